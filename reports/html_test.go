package reports

import (
	"bytes"
	"encoding/xml"
	"html"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports/rundir"
)

func chartReport() *Report { return fixtureReport() }

func TestCharts(t *testing.T) {
	t.Parallel()
	charts, err := chartReport().Charts()
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, c := range charts {
		files = append(files, c.File)
		// Each chart is a well-formed SVG document.
		d := xml.NewDecoder(bytes.NewReader(c.SVG))
		var root string
		for {
			tok, err := d.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", c.File, err)
			}
			if se, ok := tok.(xml.StartElement); ok && root == "" {
				root = se.Name.Local
			}
		}
		if root != "svg" {
			t.Fatalf("%s: root element %q", c.File, root)
		}
	}
	want := []string{LatencyChart, PrecisionChart, RecallChart, FireRateChart}
	if strings.Join(files, ",") != strings.Join(want, ",") {
		t.Fatalf("charts %v, want %v", files, want)
	}
	lat := string(charts[0].SVG)
	for _, s := range []string{"P95 769 ms", "P95 629 ms", "judge_p95_max 1000 ms", "recorded/judge-v1"} {
		if !strings.Contains(lat, s) {
			t.Errorf("latency chart lacks %q", s)
		}
	}
	if !strings.Contains(string(charts[1].SVG), "precision_min 0.9") {
		t.Error("precision chart lacks the precision_min line")
	}
	// Without live calls there is no CDF, the other charts remain.
	rep := fixtureReport()
	for _, j := range rep.Summary.Judges {
		j.Latencies = nil
	}
	charts, err = rep.Charts()
	if err != nil || len(charts) != 3 || charts[0].File != PrecisionChart {
		t.Fatalf("charts without latencies: %d, %v", len(charts), err)
	}
}

func TestCDFPoints(t *testing.T) {
	t.Parallel()
	sorted := []float64{10, 20, 30, 40}
	got := cdfPoints(sorted, 2)
	// Start at 0, then ranks ⌈1·4/2⌉ = 2 and ⌈2·4/2⌉ = 4.
	want := []struct{ x, y float64 }{{10, 0}, {20, 0.5}, {40, 1}}
	if len(got) != len(want) {
		t.Fatalf("%d points, want %d", len(got), len(want))
	}
	for i, w := range want {
		if got[i].X != w.x || got[i].Y != w.y {
			t.Errorf("point %d = (%g, %g), want (%g, %g)", i, got[i].X, got[i].Y, w.x, w.y)
		}
	}
	if all := cdfPoints(sorted, 100); len(all) != 5 || all[4].Y != 1 || all[1].Y != 0.25 {
		t.Errorf("unsampled CDF %v", all)
	}
}

var externalRef = regexp.MustCompile(`(?i)<script|<link|<iframe|<img|\bsrc=|@import|url\(`)

func TestHTMLSelfContained(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	rep := chartReport()
	rep.Color = true
	rep.Gates = gateSummaryOf(summaryResults())
	if err := rep.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if m := externalRef.FindString(page); m != "" {
		t.Fatalf("report.html references something external or runs script: %q", m)
	}
	// The only URLs allowed are SVG namespace names, which are never fetched.
	for _, u := range regexp.MustCompile(`https?://[^"' <]+`).FindAllString(page, -1) {
		if u != "http://www.w3.org/2000/svg" && u != "http://www.w3.org/1999/xlink" {
			t.Errorf("unexpected URL %s", u)
		}
	}
	if strings.Contains(page, "\x1b[") || strings.Contains(page, "<?xml") {
		t.Error("escape codes or an XML declaration inside the page")
	}
	for _, s := range []string{`<span class="banner nogo">NO-GO</span>`, "<svg", "Judges", "Rules", "Why not GO",
		"rule-12", "recorded/judge-v2 vs baseline recorded/judge-v1", "Warnings", "P95 769 ms", "<caption>Gate actions</caption>"} {
		if !strings.Contains(page, s) {
			t.Errorf("report.html lacks %q", s)
		}
	}
	// The four charts, and one forest plot per comparison figure.
	forests := strings.Count(page, `class="forest"`)
	if n := strings.Count(page, "<svg") - forests; n != 4 {
		t.Errorf("%d inline charts besides the forest plots, want 4", n)
	}
	if want := presentFigures(rep.Summary.Comparisons[0]); forests != want {
		t.Errorf("%d forest plots, want one per comparison figure (%d)", forests, want)
	}
	// Every element opened is closed in order (void elements aside).
	checkBalanced(t, page)
}

// checkBalanced is a small structural check of the generated HTML: tags
// nest properly, so no browser has to repair the page.
func checkBalanced(t *testing.T, page string) {
	t.Helper()
	void := map[string]bool{"meta": true, "br": true, "path": true, "col": true, "!doctype": true}
	tag := regexp.MustCompile(`<(/?)([a-zA-Z!][a-zA-Z0-9-]*)[^>]*?(/?)>`)
	var stack []string
	for _, m := range tag.FindAllStringSubmatch(page, -1) {
		closing, name, self := m[1] == "/", strings.ToLower(m[2]), m[3] == "/"
		switch {
		case void[name] || self:
		case closing:
			if len(stack) == 0 || stack[len(stack)-1] != name {
				t.Fatalf("</%s> closes %v", name, stack)
			}
			stack = stack[:len(stack)-1]
		default:
			stack = append(stack, name)
		}
	}
	if len(stack) != 0 {
		t.Fatalf("unclosed elements %v", stack)
	}
}

func TestWriteRunReports(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := WriteRunReports(dir, chartReport()); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{rundir.MetricsFile, rundir.SummaryJSON, rundir.SummaryMD, rundir.JUnitFile, rundir.HTMLFile,
		LatencyChart, PrecisionChart, RecallChart, FireRateChart} {
		st, err := os.Stat(filepath.Join(dir, f))
		if err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if st.Mode().Perm() != 0o644 {
			t.Errorf("%s: mode %v, want 0644", f, st.Mode().Perm())
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temporary %s left", e.Name())
		}
	}
	if err := WriteRunReports(dir, &Report{}); err == nil {
		t.Error("WriteRunReports without a summary succeeded")
	}
}

// A run with no result at all (an empty dataset, or interrupted at once)
// still renders every report without panicking.
func TestEmptyRunRenders(t *testing.T) {
	t.Parallel()
	s := metrics.New(metrics.Config{Criteria: replay.DefaultKillCriteria()}).Close()
	info := testInfo()
	info.Interrupted = true
	rep := &Report{Run: info, Summary: s, Gates: NewGateSummary()}
	for _, f := range []Format{FormatTable, FormatTSV, FormatMarkdown, FormatJSON} {
		var b bytes.Buffer
		if err := rep.WriteTables(&b, f); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
	var b bytes.Buffer
	if err := rep.WriteMarkdown(&b); err != nil || !strings.Contains(b.String(), "interrupted") {
		t.Fatalf("markdown: %v\n%s", err, b.String())
	}
	b.Reset()
	if err := rep.WriteHTML(&b); err != nil || !strings.Contains(b.String(), "interrupted") {
		t.Fatalf("html: %v", err)
	}
	checkBalanced(t, b.String())
	if err := WriteRunReports(t.TempDir(), rep); err != nil {
		t.Fatal(err)
	}
}

// presentFigures counts the figures some row of the comparison has.
func presentFigures(c *metrics.Comparison) int {
	n := 0
	for _, t := range figureTables(comparisonRows(c), 0.95) {
		if t.present {
			n++
		}
	}
	return n
}

// A report whose figures come from a labeled sample (--labels) shows, as
// the terminal and summary.md do, per judge and rule how many labels its
// figures rest on (sampled and census) and the weighted counts.
func TestHTMLLabeledSample(t *testing.T) {
	t.Parallel()
	rep := fixtureReport()
	rep.Summary.Sample = &metrics.SampleInfo{Labels: 40}
	rep.Summary.Judges[0].Rules[0].Sample = &metrics.RowSample{Sampled: 7, Census: 3, TP: 12.5, FP: 1.5, FN: 2, TN: 300}
	var b bytes.Buffer
	if err := rep.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	checkBalanced(t, b.String())
	page := html.UnescapeString(b.String())
	sec := strings.Index(page, `id="labeled-sample"`)
	if sec < 0 || sec > strings.Index(page, `id="rules"`) {
		t.Fatalf("no labeled-sample section before the rules (at %d)", sec)
	}
	r := rep.Summary.Judges[0].Rules[0]
	row := regexp.MustCompile(`<td>` + regexp.QuoteMeta(rep.Summary.Judges[0].Judge) + `</td><td>` + regexp.QuoteMeta(r.RuleID) +
		`</td><td class="num">7</td><td class="num">3</td><td class="num">12.5/1.5/2.0/300.0</td>`)
	if !row.MatchString(page[sec:]) || !strings.Contains(page[sec:], "Figures from a labeled sample (40 queue labels)") {
		t.Errorf("labeled-sample section:\n%.1500s", page[sec:])
	}
	// Without a queue-labeled figure (the census alone) no interval column.
	if strings.Contains(page[sec:strings.Index(page, `id="rules"`)], "<th>interval</th>") {
		t.Error("an interval column without a queue-labeled figure")
	}
	// Which interval each row's figures print, as summary.json's
	// precision_interval, recall_interval and interval_note say it: a
	// column after the figures, and the table's note summing it up.
	why := "the rule's recorded pairs in the labeled strata come from 6 sessions, fewer than the draws need (40)"
	r.Sample.PrecisionInterval, r.Sample.RecallInterval, r.Sample.IntervalNote = metrics.IntervalTwoPhase, metrics.IntervalTwoPhase, why
	r2 := rep.Summary.Judges[0].Rules[1]
	r2.Sample = &metrics.RowSample{Sampled: 40, PrecisionInterval: metrics.IntervalDraws, RecallInterval: metrics.IntervalDraws}
	b.Reset()
	if err := rep.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	checkBalanced(t, b.String())
	page = html.UnescapeString(b.String())
	sec = strings.Index(page, `id="labeled-sample"`)
	labeled := page[sec:strings.Index(page, `id="rules"`)]
	for _, want := range []string{
		"<th>recall</th><th>interval</th>",
		"<td>two-phase design, not the stratified draws: " + why + "</td></tr>",
		"<td>" + r2.RuleID + "</td><td class=\"num\">40</td>",
		"<td>stratified draws</td></tr>",
		"Intervals of precision and recall on queue labels: " + metrics.IntervalDrawsText + " on 2 figures; the two-phase design's on 2 (" + why + ")",
	} {
		if !strings.Contains(labeled, want) {
			t.Errorf("labeled-sample section lacks %q:\n%s", want, labeled)
		}
	}
	// Without labels: no such section.
	b.Reset()
	if err := fixtureReport().WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), `id="labeled-sample"`) {
		t.Error("a run without labels has a labeled-sample section")
	}
}

// The page wraps long text anywhere (no sideways scrolling at 1280 px), but
// a number must never break inside itself: in a wide table (simulate's 16
// columns) "1354" wrapped to "135" over "4" and "0.074" to "0.07" over "4".
// Numeric cells and headers wrap only where text allows (spaces, hyphens).
func TestHTMLNumbersDoNotBreak(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := fixtureReport().WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	anywhere := strings.Index(page, "overflow-wrap:anywhere")
	normal := strings.Index(page, "th,td.num{overflow-wrap:normal}")
	if anywhere < 0 || normal < anywhere {
		t.Errorf("numeric cells may break inside a number: overflow-wrap:anywhere at %d, the numeric cells' normal wrapping at %d", anywhere, normal)
	}
	if !strings.Contains(page, `<td class="num">`) {
		t.Error("no numeric cell to keep whole")
	}
}

// A tool name in the case tables (a tenth of the page wide) may break
// between its parts, never inside one: "mcp__postgres__drop_table" read
// "mcp__postgre / s__drop_table" on the sample's report.html, since the page
// wraps anywhere where a word has no break opportunity. Each listed case's
// tool cell is escaped, with a <wbr> after each run of separators only.
func TestHTMLToolNamesBreakAtSeparators(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"mcp__postgres__drop_table": "mcp__<wbr>postgres__<wbr>drop_<wbr>table",
		"Bash":                      "Bash",
		"a.b/c:d_":                  "a.<wbr>b/<wbr>c:<wbr>d_",
		"<x>_&y":                    "&lt;x&gt;_<wbr>&amp;y",
	} {
		if got := string(breakAfterSeparators(in)); got != want {
			t.Errorf("breakAfterSeparators(%q) = %q, want %q", in, got, want)
		}
	}
	rep := pagesReport()
	for id := range rep.Cases.CaseIDs() {
		rep.Cases.Describe(id, "mcp__postgres__drop_table", map[string]any{"table": "orders"})
	}
	var b bytes.Buffer
	if err := rep.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	cells := regexp.MustCompile(`<td>[^<]*(?:<wbr>[^<]*)*</td><td><code>\{`).FindAllString(page, -1)
	if len(cells) == 0 {
		t.Fatal("no listed case with its tool and arguments")
	}
	for _, c := range cells {
		if !strings.HasPrefix(c, "<td>mcp__<wbr>postgres__<wbr>drop_<wbr>table</td>") {
			t.Errorf("tool cell %q: want a break opportunity after each separator run only", c)
		}
	}
}

package reports

import (
	"bytes"
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/replay"
)

func fixtureReport() *Report {
	info := testInfo()
	info.RunID = "run-fixture"
	// The fixture's verdict is NO-GO, which cmd maps to exit 1.
	return &Report{Run: info, Summary: fixtureSummary(), Inconclusive: "fail", Exit: 1}
}

// singleJudgeReport has one judge and no baseline: the judge column goes
// and fire-rate drift is N/A.
func singleJudgeReport() *Report {
	acc := metrics.New(metrics.Config{Criteria: replay.DefaultKillCriteria()})
	for _, r := range summaryResults() {
		if r.Judge == "recorded/judge-v2" {
			acc.Add(r)
		}
	}
	// NO-GO (judge-v2 fails precision_min): exit 1 as cmd maps it.
	return &Report{Run: testInfo(), Summary: acc.Close(), Exit: 1}
}

func TestTablesGolden(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		rep    *Report
		format Format
	}{
		{"tables.txt", fixtureReport(), FormatTable},
		{"tables.tsv", fixtureReport(), FormatTSV},
		{"tables.md", fixtureReport(), FormatMarkdown},
		{"summary.json", fixtureReport(), FormatJSON},
		{"tables-single.txt", singleJudgeReport(), FormatTable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tt.rep.WriteTables(&b, tt.format); err != nil {
				t.Fatal(err)
			}
			golden(t, tt.name, b.Bytes())
		})
	}
}

var ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")

// Colour changes only the verdict and status words: stripping the escapes
// gives back the plain table byte for byte, so columns stay aligned.
func TestTablesColor(t *testing.T) {
	t.Parallel()
	plain, colored := fixtureReport(), fixtureReport()
	colored.Color = true
	var p, c bytes.Buffer
	if err := plain.WriteTables(&p, FormatTable); err != nil {
		t.Fatal(err)
	}
	if err := colored.WriteTables(&c, FormatTable); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(c.String(), ansiRed+"NO-GO"+ansiReset) {
		t.Fatal("coloured table has no red NO-GO")
	}
	if strings.Contains(p.String(), "\x1b[") {
		t.Fatal("plain table contains escape codes")
	}
	if got := ansi.ReplaceAllString(c.String(), ""); got != p.String() {
		t.Fatalf("coloured table differs from the plain one once escapes are stripped:\n%s", lineDiff(p.String(), got))
	}
}

// The TSV form is one rectangular table with full precision.
func TestTablesTSV(t *testing.T) {
	t.Parallel()
	rep := fixtureReport()
	var b bytes.Buffer
	if err := rep.WriteTables(&b, FormatTSV); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	cols := strings.Count(lines[0], "\t")
	for i, l := range lines {
		if strings.Count(l, "\t") != cols {
			t.Fatalf("line %d has %d tabs, header %d", i+1, strings.Count(l, "\t"), cols)
		}
	}
	// 2 judge totals + 2 judges × 4 rules.
	if len(lines) != 1+2+8 {
		t.Fatalf("%d lines, want 11", len(lines))
	}
	j := rep.Summary.Judge("recorded/judge-v1")
	want := "*\trecorded/judge-v1\t\t" + string(j.Verdict) + "\t120\t"
	if !strings.HasPrefix(lines[1], want) || !strings.Contains(lines[1], full(j.Total.Precision)) {
		t.Fatalf("first row %q, want prefix %q and precision %s", lines[1], want, full(j.Total.Precision))
	}
}

func TestSummaryJSONKeys(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := fixtureReport().WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"schema", "run", "exit_code", "inconclusive", "verdict", "thresholds", "baseline",
		"judges", "comparisons", "warnings"} {
		if _, ok := m[k]; !ok {
			t.Errorf("summary.json lacks key %q", k)
		}
	}
	if m["schema"] != SummarySchema || m["exit_code"] != 1.0 || m["verdict"] != "NO-GO" {
		t.Errorf("schema %v exit_code %v verdict %v", m["schema"], m["exit_code"], m["verdict"])
	}
}

func TestSummaryMarkdown(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		file string
		rep  *Report
	}{
		{"summary.md", func() *Report { r := fixtureReport(); r.Gates = gateSummaryOf(summaryResults()); return r }()},
		{"summary-single.md", singleJudgeReport()},
	} {
		t.Run(tt.file, func(t *testing.T) {
			tt.rep.Color = true // must not leak into Markdown
			var b bytes.Buffer
			if err := tt.rep.WriteMarkdown(&b); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(b.String(), "\x1b[") {
				t.Fatal("escape codes in Markdown")
			}
			golden(t, tt.file, b.Bytes())
		})
	}
}

// Every key summary.json can carry is listed in SUMMARY_JSON.md, so the
// documentation cannot fall behind a new field.
func TestSummaryJSONDocumented(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("SUMMARY_JSON.md")
	if err != nil {
		t.Fatal(err)
	}
	rep := fixtureReport()
	rep.Run.Judges[0].Digest, rep.Run.Judges[0].PromptVersion = "sha256:x", "p1"
	rep.Run.Judges[0].Details = map[string]string{"host": "h"}
	rep.Run.Baseline = "b"
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	var walk func(v any, inDetails bool)
	walk = func(v any, inDetails bool) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if !inDetails {
					keys[k] = true
				}
				walk(x, k == "details")
			}
		case []any:
			for _, x := range v {
				walk(x, false)
			}
		}
	}
	walk(v, false)
	documented := map[string]bool{}
	for _, m := range regexp.MustCompile("`([a-z0-9_]+)`").FindAllStringSubmatch(string(doc), -1) {
		documented[m[1]] = true
	}
	// Object shapes written inline: `{name, sha256}`.
	for _, m := range regexp.MustCompile("`\\{([a-z0-9_, ]+)\\}`").FindAllStringSubmatch(string(doc), -1) {
		for _, k := range strings.Split(m[1], ",") {
			documented[strings.TrimSpace(k)] = true
		}
	}
	for k := range keys {
		if !documented[k] {
			t.Errorf("summary.json key %q is not documented in SUMMARY_JSON.md", k)
		}
	}
	if len(keys) < 100 {
		t.Fatalf("only %d keys walked; the fixture lost its judges?", len(keys))
	}
}

// The rules table gains an "evidence altered" column, before the criteria,
// when a rule's judge inputs masked or cut what it refers to (the share
// per rule and judge); without any, the table keeps its columns.
func TestRulesGridEvidenceAltered(t *testing.T) {
	t.Parallel()
	rep := fixtureReport()
	if g := rep.rulesGrid(false); slices.Contains(g.header, "evidence altered") {
		t.Fatalf("no rule has altered evidence, yet the header is %q", g.header)
	}
	r := rep.Summary.Judge("recorded/judge-v2").Rule("rule-12")
	r.EvidenceAltered, r.EvidenceAlteredRate = 20, new(20.0/80)
	g := rep.rulesGrid(false)
	col := slices.Index(g.header, "evidence altered")
	if col < 0 || g.header[col+1] != "failing" {
		t.Fatalf("header %q: want evidence altered just before failing", g.header)
	}
	for _, row := range g.rows {
		want := "0.000"
		if row[0] == "rule-12" && row[2] == "recorded/judge-v2" {
			want = "0.250"
		}
		if row[col] != want {
			t.Errorf("%s %s: evidence altered %q, want %q", row[0], row[2], row[col], want)
		}
	}
}

// One rule decides whether a design effect is printed (metrics.DeffNote):
// a criterion's reason and the table cell of its figure show the same
// "deff X" or neither. The reasons used to print any deff above 1
// ("deff 1.19") beside a table that showed it only above 1.2. The
// fixture holds data deffs on both sides of 1.2 (1.16, 1.19; 2.09, 2.27).
func TestDeffShownByOneRule(t *testing.T) {
	t.Parallel()
	dataDeff := regexp.MustCompile(`, (deff \d+\.\d\d)`)
	deffs := map[string]func(r *metrics.Row) *float64{
		metrics.CriterionPrecisionMin:          func(r *metrics.Row) *float64 { return r.PrecisionDeff },
		metrics.CriterionUnknownRateMax:        func(r *metrics.Row) *float64 { return r.UnknownRateDeff },
		metrics.CriterionJudgeRequiredRateMax:  func(r *metrics.Row) *float64 { return r.JudgeRequiredRateDeff },
		metrics.CriterionApprovalRejectRateMax: func(r *metrics.Row) *float64 { return r.ApprovalRejectRateDeff },
	}
	cells := map[string]rowFigure{
		metrics.CriterionPrecisionMin:         figPrecision,
		metrics.CriterionUnknownRateMax:       figUnknownRate,
		metrics.CriterionJudgeRequiredRateMax: figJudgeRequired,
	}
	var below, above int
	for _, j := range fixtureSummary().Judges {
		rows := append([]*metrics.Row{j.Total}, j.Rules...)
		for _, r := range rows {
			for _, c := range r.Criteria {
				get, ok := deffs[c.Name]
				if !ok || get(r) == nil {
					continue
				}
				d := *get(r)
				switch {
				case d > 1 && d <= metrics.DeffShown:
					below++
				case d > metrics.DeffShown:
					above++
				}
				var inReason string
				if m := dataDeff.FindStringSubmatch(c.Reason); m != nil {
					inReason = m[1]
				}
				if want := metrics.DeffNote(d); inReason != want {
					t.Errorf("%s %s %s: deff %.4f, reason says %q, the rule %q: %s", j.Judge, r.RuleID, c.Name, d, inReason, want, c.Reason)
				}
				if f, ok := cells[c.Name]; ok {
					cell := f.cell(r)
					if (inReason == "") != !strings.Contains(cell, "deff") || (inReason != "" && !strings.HasSuffix(cell, " "+inReason)) {
						t.Errorf("%s %s %s: table cell %q, reason says %q", j.Judge, r.RuleID, c.Name, cell, inReason)
					}
				}
			}
		}
	}
	if below == 0 || above == 0 {
		t.Fatalf("the fixture should hold deffs on both sides of %g: %d in (1, %g], %d above", metrics.DeffShown, below, metrics.DeffShown, above)
	}
}

// The criteria are declared once (metrics.Criteria) and every output reads
// that table: the judges' table labels each judge-level criterion with its
// Label and Bound, the TSV and metrics.parquet carry <name>_status, and
// summary.json, junit and the HTML page name each evaluated criterion as
// declared. Bound says the side the verdict rule decides on: a strict
// comparison exactly where the threshold itself is on the bad side (the
// tables printed "unknown ≤ 0.1" where an unknown rate of 0.10 fails).
func TestCriteriaTableDrivesOutputs(t *testing.T) {
	t.Parallel()
	rep := fixtureReport()
	th := rep.Summary.Thresholds
	render := func(f func(w *bytes.Buffer) error) string {
		var b bytes.Buffer
		if err := f(&b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	table := render(func(b *bytes.Buffer) error { return rep.WriteTables(b, FormatTable) })
	tsv := render(func(b *bytes.Buffer) error { return rep.WriteTables(b, FormatTSV) })
	js := render(func(b *bytes.Buffer) error { return rep.WriteJSON(b) })
	junit := render(func(b *bytes.Buffer) error { return rep.WriteJUnit(b) })
	page := render(func(b *bytes.Buffer) error { return rep.WriteHTML(b) })
	evaluated := map[string]bool{}
	for _, j := range rep.Summary.Judges {
		for _, r := range append([]*metrics.Row{j.Total}, j.Rules...) {
			for _, c := range r.Criteria {
				if _, ok := metrics.SpecOf(c.Name); !ok {
					t.Errorf("criterion %q is not declared in metrics.Criteria", c.Name)
				}
				evaluated[c.Name] = true
			}
		}
	}
	for _, spec := range metrics.Criteria {
		thr := spec.Threshold(th)
		bound := spec.Bound(thr)
		strict := strings.HasPrefix(bound, "<") || strings.HasPrefix(bound, ">")
		if bad := spec.Direction.BadSide(thr, thr); strict != bad {
			t.Errorf("%s: %q, but the threshold %g itself is bad: %v", spec.Name, bound, thr, bad)
		}
		if spec.Scope != "rule" && !strings.Contains(table, " "+spec.Label+" "+bound) {
			t.Errorf("%s: the judges' table has no row %q", spec.Name, spec.Label+" "+bound)
		}
		if !strings.Contains(tsv, spec.Name+"_status") {
			t.Errorf("%s: no %s_status column in the TSV", spec.Name, spec.Name)
		}
		if !evaluated[spec.Name] {
			continue
		}
		for out, text := range map[string]string{"summary.json": js, "junit": junit, "report.html": page} {
			if !strings.Contains(text, spec.Name) {
				t.Errorf("%s: evaluated but not named in %s", spec.Name, out)
			}
		}
	}
	if len(evaluated) < 6 {
		t.Fatalf("the fixture evaluates %d criteria; the test wants most of the table", len(evaluated))
	}
	// The intervals' note names the methods as the criteria declare them
	// (it restated them in other words).
	for _, name := range []string{metrics.CriterionUnknownRateMax, metrics.CriterionJudgeP95Max} {
		if spec, _ := metrics.SpecOf(name); !strings.Contains(table, spec.Method) {
			t.Errorf("the intervals' note does not name %s's method %q", name, spec.Method)
		}
	}
}

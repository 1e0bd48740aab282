package reports

import (
	"bytes"
	"fmt"
	"html"
	"image/color"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/replay"
)

// fig builds a hand-made comparison figure.
func fig(name string, b, c, lo, hi, p float64, n int64, test string) metrics.Figure {
	d := c - b
	return metrics.Figure{Figure: name, Baseline: &b, Candidate: &c, Delta: &d, DeltaLo: &lo, DeltaHi: &hi,
		PValue: &p, N: n, Test: test}
}

// pagesReport is the fixture report with paired figures, slices and case
// lists filled in by hand, the way metrics and the collector deliver them.
func pagesReport() *Report {
	rep := chartReport()
	// Per-slice metrics (--by tag --by tool): every 7th case is also tagged
	// injection, every 3rd is a Write, the rest Bash.
	acc := metrics.New(metrics.Config{Criteria: replay.DefaultKillCriteria(), Baseline: "recorded/judge-v1",
		Slices: []string{metrics.SliceTag, metrics.SliceTool}})
	for i, r := range summaryResults() {
		ci := i / 2 // one result per judge, case by case
		if ci%7 == 0 {
			r.Tags = append(r.Tags, "injection")
		}
		r.ToolName = "Bash"
		if ci%3 == 0 {
			r.ToolName = "Write"
		}
		acc.Add(r)
	}
	rep.Summary = acc.Close()
	c := rep.Summary.Comparisons[0]
	for i, rc := range comparisonRows(c) {
		k := float64(i)
		rc.Figures = []metrics.Figure{
			// rule i: recall +0.15 [+0.10, +0.20], p=4e-06 — marked.
			fig("recall", 0.80, 0.95, 0.10, 0.20, 4e-6, 60+int64(i), "mcnemar_exact"),
			// false-positive rate: a straddling difference, p=0.24 — "~".
			fig("false_positive_rate", 0.10, 0.08, -0.06, 0.02, 0.24, 140, "mcnemar_clustered"),
			fig("fire_rate", 0.30, 0.30-0.01*k, -0.04-0.01*k, 0.02, 0.5, 80, "mcnemar_exact"),
			fig("precision", 0.61, 0.77, 0.05, 0.27, 0.004, 20, "bootstrap_sessions"),
			fig("latency_p95_ms", 769, 629, -200, -80, 1e-5, 240, "mann_whitney"),
		}
	}
	total := func(recall, rlo, rhi, p float64) []*metrics.RuleComparison {
		return []*metrics.RuleComparison{{RuleID: metrics.AllRules, Figures: []metrics.Figure{
			fig("recall", 0.5, 0.5+recall, rlo, rhi, p, 40, "mcnemar_exact")}}}
	}
	c.Slices = []metrics.SliceComparison{
		{Slice: "tag", Value: "ja", Rules: total(0.02, -0.05, 0.09, 0.6)},
		{Slice: "tag", Value: "injection", Rules: total(0.40, 0.25, 0.55, 1e-5)},
		{Slice: "tool", Value: "Bash", Rules: total(0.10, 0.01, 0.19, 0.03)},
	}
	rep.Cases = NewCaseLists()
	for _, r := range summaryResults() {
		rep.Cases.Add(r)
	}
	for id := range rep.Cases.CaseIDs() {
		rep.Cases.Describe(id, "Bash", map[string]any{"command": "rm -rf build", "token": "s3cr3t-value"})
	}
	return rep
}

func TestFigureDeltaCell(t *testing.T) {
	t.Parallel()
	marked := fig("recall", 0.80, 0.95, 0.10, 0.20, 4e-6, 6416, "mcnemar_exact")
	if got := figureDelta(&marked, 0.95); got != "+0.15 [+0.10, +0.20] (p=4e-06 n=6416)" {
		t.Errorf("marked: %q", got)
	}
	// p = 0.24 ≥ 1 − 0.95: chance explains it, benchstat's "~".
	chance := fig("recall", 0.80, 0.82, -0.01, 0.05, 0.24, 6416, "mcnemar_exact")
	if got := figureDelta(&chance, 0.95); got != "~ (p=0.24 n=6416)" {
		t.Errorf("chance: %q", got)
	}
	// p = 0.051 is not below 1 − 0.95: still "~".
	edge := fig("fire_rate", 0.3, 0.2, -0.2, 0, 0.051, 10, "mcnemar_exact")
	if got := figureDelta(&edge, 0.95); !strings.HasPrefix(got, "~ ") {
		t.Errorf("p = 0.05: %q", got)
	}
	lat := fig("latency_p95_ms", 1.5, 0.72, -1.1, -0.4, 0.001, 50, "mann_whitney")
	if got := figureDelta(&lat, 0.95); got != "−0.78 [−1, −0.4] (p=0.001 n=50)" { // two significant digits below 1 ms
		t.Errorf("sub-millisecond latency: %q", got)
	}
	if figureDelta(nil, 0.95) != na {
		t.Error("missing figure")
	}
}

func TestForestPlot(t *testing.T) {
	t.Parallel()
	rep := pagesReport()
	c := rep.Summary.Comparisons[0]
	rules := len(comparisonRows(c)) // 4 rules + all rules
	conf, band := rep.Summary.Thresholds.Confidence, rep.Summary.Thresholds.FireRateChangeMax
	fire := forestPlot(c, metaOf("fire_rate"), conf, band)
	if n := strings.Count(fire, `class="ci"`); n != rules {
		t.Errorf("fire-rate forest: %d intervals, want one per rule (%d)", n, rules)
	}
	if n := strings.Count(fire, `class="est"`); n != rules {
		t.Errorf("fire-rate forest: %d estimates, want %d", n, rules)
	}
	if strings.Count(fire, `class="zero"`) != 1 || strings.Count(fire, `class="band"`) != 1 {
		t.Error("fire-rate forest lacks its zero line or drift band")
	}
	if !strings.Contains(fire, "drift band ±0.05") || !strings.Contains(fire, ">all rules<") {
		t.Error("fire-rate forest lacks the band label or the all-rules line")
	}
	// The band spans ±0.05 around the zero line: x(−0.05) to x(+0.05).
	zero := attr(t, fire, `class="zero" x1="`)
	bx, bw := attr(t, fire, `class="band" x="`), attr(t, fire, `width="`, `class="band"`)
	if math.Abs(bx+bw/2-zero) > 0.2 {
		t.Errorf("band centred at %.1f, zero line at %.1f", bx+bw/2, zero)
	}
	recall := forestPlot(c, metaOf("recall"), conf, 0)
	if strings.Contains(recall, `class="band"`) || !strings.Contains(recall, `class="zero"`) {
		t.Error("recall forest: a band where none applies, or no zero line")
	}
	// Marked differences are filled in the first palette colour, chance
	// ones hollow, light blue, dashed.
	if !strings.Contains(recall, `fill="`+okabeIto[0]+`"`) {
		t.Error("recall forest: marked estimates not filled")
	}
	fpr := forestPlot(c, metaOf("false_positive_rate"), conf, 0)
	if strings.Count(fpr, `fill="#ffffff" stroke="`+colourChance+`"`) != rules || strings.Count(fpr, `stroke-dasharray`) != rules {
		t.Error("false-positive-rate forest: chance differences not hollow with dashed whiskers")
	}
	if forestPlot(c, metaOf("unknown_rate"), conf, 0) != "" {
		t.Error("a forest plot for a figure no rule has")
	}
}

// attr reads the number after the first occurrence of key (after anchor, if given).
func attr(t *testing.T, s, key string, anchor ...string) float64 {
	t.Helper()
	if len(anchor) > 0 {
		i := strings.Index(s, anchor[0])
		if i < 0 {
			t.Fatalf("no %q", anchor[0])
		}
		s = s[i:]
	}
	m := regexp.MustCompile(regexp.QuoteMeta(key) + `([-0-9.]+)`).FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("no %q", key)
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// hue returns the HSV hue in degrees and the saturation of c.
func hue(c color.RGBA) (h, s float64) {
	r, g, b := float64(c.R)/255, float64(c.G)/255, float64(c.B)/255
	mx, mn := math.Max(r, math.Max(g, b)), math.Min(r, math.Min(g, b))
	if mx == 0 || mx == mn {
		return 0, 0
	}
	d := mx - mn
	switch mx {
	case r:
		h = math.Mod((g-b)/d, 6)
	case g:
		h = (b-r)/d + 2
	default:
		h = (r-g)/d + 4
	}
	h *= 60
	if h < 0 {
		h += 360
	}
	return h, d / mx
}

func TestPaletteHasNoRedGreenPair(t *testing.T) {
	t.Parallel()
	red := func(c color.RGBA) bool { h, s := hue(c); return s > 0.5 && (h < 20 || h > 340) }
	green := func(c color.RGBA) bool { h, s := hue(c); return s > 0.5 && h > 75 && h < 160 }
	// The first judges' colours (two and three judges are the common cases)
	// never pair a red with a green.
	for n := 2; n <= 3; n++ {
		for i := range n {
			for k := range n {
				if a, b := hexColour(judgeColourHex(i)), hexColour(judgeColourHex(k)); red(a) && green(b) {
					t.Errorf("judges %d and %d: red %v and green %v", i, k, a, b)
				}
			}
		}
	}
	// The check itself can fail: the old gonum default pair is red/green.
	if !red(color.RGBA{0xf0, 0x20, 0x20, 0xff}) || !green(color.RGBA{0x20, 0xc0, 0x30, 0xff}) {
		t.Fatal("hue check cannot tell red from green")
	}
	// The charts draw judges in palette colours: judge 1 blue, judge 2 orange.
	charts, err := chartReport().Charts()
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range charts {
		svg := string(ch.SVG)
		for k := range 2 {
			c := hexColour(judgeColourHex(k))
			if !strings.Contains(svg, rgbText(c)) {
				t.Errorf("%s lacks judge %d's colour %s", ch.File, k, rgbText(c))
			}
		}
	}
}

// rgbText is how gonum's SVG writes a colour.
func rgbText(c color.RGBA) string { return fmt.Sprintf("#%02X%02X%02X", c.R, c.G, c.B) }

func TestHTMLDecisionPage(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	rep := pagesReport()
	if err := rep.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	checkBalanced(t, b.String())
	page := html.UnescapeString(b.String())
	// Order: decision, then the comparison, then the rules, then charts.
	order := []string{`id="decision"`, `id="comparison"`, `id="slices"`, `id="slice-metrics"`, `id="rules"`, `id="charts"`, `id="tables"`}
	last := -1
	for _, s := range order {
		i := strings.Index(page, s)
		if i < last {
			t.Fatalf("%s at %d, before the previous section (%d)", s, i, last)
		}
		last = i
	}
	// The decision names what holds each judge back, with numbers.
	for _, s := range []string{"Fails — the whole interval is on the bad side:",
		"<b>policy, every judge</b>: judge-required rate 1 (120/120, beta-binomial over sessions 95% CI [0.9355, 1]) lies wholly on the bad side of 0.2</li>",
		"Open — the interval straddles the threshold:",
		"<b>rule-12</b>: unknown rate 0.05 (4/80, beta-binomial over sessions (few sessions), widened for few sessions as by a deff of 1.76 95% CI [0.01554, 0.156]): the interval still reaches 0.1; about 274 more sessions like these, ≈ 1096 units, would clear it with 80% probability</li>",
		"precision 0.7895 (15/19, beta-binomial over sessions (few sessions), widened for few sessions as by a deff of 1.09, and toward the pooled rate (rates may depend on session size) to a deff of 1.77 95% CI [0.4725, 0.9179]) is on the bad side of 0.9, but the interval still reaches it: not confirmed", // the rule's folded criteria; the size term widened it most
		"FAILs only when its whole interval lies on the bad side"} {
		if !strings.Contains(page, s) {
			t.Errorf("report.html lacks %q", s)
		}
	}
	decision := page[strings.Index(page, `id="decision"`):strings.Index(page, `id="comparison"`)]
	// The policy's criterion (no judge controls it) is shown once, in its
	// own card ahead of the judges'; each judge's card says its verdict
	// takes the policy's too.
	if n := strings.Count(decision, "judge-required rate 1 (120/120"); n != 1 {
		t.Errorf("the policy criterion is shown %d times in the decision, want once", n)
	}
	if p, c := strings.Index(decision, "Policy — the same for every judge"), strings.Index(decision, "recorded/judge-v2"); p < 0 || c < p {
		t.Errorf("policy card at %d, candidate card at %d", p, c)
	}
	if n := strings.Count(decision, "Its verdict also takes the policy's (NO-GO, above)."); n != 2 {
		t.Errorf("%d judge cards name the policy's verdict, want 2", n)
	}
	// The candidate's card comes before the baseline's.
	if c, b := strings.Index(decision, "recorded/judge-v2"), strings.Index(decision, "recorded/judge-v1"); c < 0 || b < c {
		t.Errorf("candidate card at %d, baseline card at %d", c, b)
	}
	// The judge's own open criteria come first, then the rules' nearest to
	// a decision: their +N in the candidate card's open list never decrease.
	card := decision[:strings.Index(decision, "recorded/judge-v1")]
	prev := int64(-1)
	for _, m := range regexp.MustCompile(`<b>rule-\d+</b>: [^<]*about \d+ more sessions? like these, ≈ (\d+) units`).FindAllStringSubmatch(card, -1) {
		n, _ := strconv.ParseInt(m[1], 10, 64)
		if n < prev {
			t.Errorf("open criteria out of order: %d after %d", n, prev)
		}
		prev = n
	}
	if prev < 0 {
		t.Error("no open criterion with a sample count in the candidate card")
	}
	// One forest plot per figure the comparison has (5 here).
	if n := strings.Count(page, `class="forest"`); n != 5 {
		t.Errorf("%d forest plots, want 5", n)
	}
	if !strings.Contains(page, "+0.15 [+0.10, +0.20] (p=4e-06 n=") || !strings.Contains(page, "~ (p=0.24 n=140)") {
		t.Error("figures table lacks a marked or a ~ cell")
	}
	// Slices: the injection tag is named as the largest marked difference.
	if !strings.Contains(page, "Largest difference: tag injection, recall +0.40 [+0.25, +0.55] (p=1e-05 n=40).") {
		t.Error("the injection slice is not called out")
	}
	if !strings.Contains(page, "<summary>By tag: 4 lines (value × judge)</summary>") {
		t.Error("report.html lacks the per-tag metrics (ja and injection × 2 judges)")
	}
	// One card per rule, details folded, cases listed with masked arguments.
	if n := strings.Count(page, `<div class="rule">`); n != 4 {
		t.Errorf("%d rule cards, want 4", n)
	}
	if strings.Contains(page, "s3cr3t-value") || !strings.Contains(page, `"token":"[MASKED]"`) {
		t.Error("case arguments not masked")
	}
	if !strings.Contains(page, "False positives (result match, label no_match)") {
		t.Error("no false-positive list")
	}
}

func TestMarkdownPages(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := pagesReport().WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	golden(t, "summary-pages.md", b.Bytes())
	for _, s := range []string{"### Baseline vs candidate: recorded/judge-v2 vs recorded/judge-v1",
		"| recall", "+0.15 [+0.10, +0.20] (p=4e-06 n=64)", "~ (p=0.24 n=140)", "Warnings about this comparison: [^",
		"#### The comparison by slice", "**Largest difference: tag `injection`, recall +0.40 [+0.25, +0.55] (p=1e-05 n=40).**",
		"### Cases to review", "FAILs only when its whole interval lies on the bad side",
		"### By tag", "### By tool", "| injection | recorded/judge-v2            |    18 |", "| Write   | recorded/judge-v1 (baseline) |    40 |"} {
		if !strings.Contains(md, s) {
			t.Errorf("summary.md lacks %q", s)
		}
	}
	// Every listed FP/FN table holds at most 10 rows.
	for _, block := range strings.Split(md, "**False ")[1:] {
		rows := 0
		for _, l := range strings.Split(block, "\n") {
			if strings.HasPrefix(l, "| `") {
				rows++
			}
			if strings.HasPrefix(l, "</details>") {
				break
			}
		}
		if rows == 0 || rows > MaxListedCases {
			t.Errorf("a case list with %d rows", rows)
		}
	}
}

// Every page explains a criterion in the words of Explain, so they cannot
// disagree: a P95 of 241 ms over too few calls to bound it, under a 300 ms
// limit, is open because there are too few calls — the terminal, summary.md,
// report.html, junit.xml and the gate lines all say that, and none claims
// "the estimate is on the bad side" (which it is not).
func TestEveryPageExplainsACriterionAlike(t *testing.T) {
	t.Parallel()
	crit := replay.DefaultKillCriteria()
	crit.JudgeP95Max = 300 * time.Millisecond
	acc := metrics.New(metrics.Config{Criteria: crit})
	for i, ms := range []float64{120, 180, 241, 200, 150} {
		acc.Add(&replay.Result{CaseID: fmt.Sprint("c", i), Judge: "openai/x", JudgeCalled: true,
			Calls: []replay.Call{{Rules: 1, Status: "ok", LatencyMS: ms}},
			Rules: []replay.RuleResult{{RuleID: "r", RuleVersion: 1, Class: "style", Source: replay.SourceJudge, Result: "match", Label: "match", Status: "ok", Fired: true, Call: 0}}})
	}
	rep := &Report{Summary: acc.Close()}
	rep.Exit = 3
	var p95 metrics.Criterion
	for _, c := range rep.Summary.Judge("openai/x").Total.Criteria {
		if c.Name == metrics.CriterionJudgeP95Max {
			p95 = c
		}
	}
	if p95.Status != metrics.StatusInconclusive || !strings.Contains(Explain(p95), "too few calls") {
		t.Fatalf("P95 criterion %s: %q", p95.Status, Explain(p95))
	}
	want := Explain(p95)
	pages := map[string]func(io.Writer) error{
		"terminal":    func(w io.Writer) error { return rep.WriteTables(w, FormatTable) },
		"summary.md":  rep.WriteMarkdown,
		"report.html": rep.WriteHTML,
		"junit.xml":   rep.WriteJUnit,
		"gate":        rep.WriteReasons,
	}
	for name, write := range pages {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		page := html.UnescapeString(b.String())
		if !strings.Contains(page, want) {
			t.Errorf("%s does not explain the P95 criterion as %q", name, want)
		}
		if strings.Contains(page, "estimate is on the bad side") {
			t.Errorf("%s claims the estimate is on the bad side", name)
		}
	}
}

func TestFigureDeltaBootstrapZeroP(t *testing.T) {
	t.Parallel()
	// A bootstrap with no resample beyond 0 reports p = 0; the cell must
	// not claim certainty.
	f := fig("latency_p95_ms", 610, 770, 80, 240, 0, 20, "bootstrap_calls")
	if got := figureDelta(&f, 0.95); got != "+160 [+80, +240] (p<0.0005 n=20)" { // 1/2,000 resamples
		t.Errorf("bootstrap p = 0: %q", got)
	}
}

func TestHTMLWarningLinks(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := pagesReport().WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	// The fixture's one comparison warning is warning 1 of the page; the
	// comparison links to it and the list item carries the anchor.
	if !strings.Contains(page, `Warnings about this comparison: <a href="#warning-1">[1]</a>`) ||
		!strings.Contains(page, `<li id="warning-1">recorded/judge-v1 vs recorded/judge-v2: fewer than 30 paired cases`) {
		t.Error("the comparison does not link its warning")
	}
}

func TestLargestSliceText(t *testing.T) {
	t.Parallel()
	total := func(d, lo, hi, p float64, n int64) []*metrics.RuleComparison {
		return []*metrics.RuleComparison{{RuleID: metrics.AllRules, Figures: []metrics.Figure{
			fig("recall", 0.2, 0.2+d, lo, hi, p, n, "mcnemar_exact")}}}
	}
	// As on the embedded sample: the biggest change sits on 5 injection
	// cases, too few for the test; a smaller one on deletion is marked.
	c := &metrics.Comparison{Slices: []metrics.SliceComparison{
		{Slice: "tag", Value: "deletion", Rules: total(0.33, 0.08, 0.53, 0.011, 24)},
		{Slice: "tag", Value: "injection", Rules: total(0.80, -0.05, 0.96, 0.13, 5)},
		{Slice: "tag", Value: "en", Rules: total(0.05, -0.02, 0.12, 0.2, 300)},
	}}
	want := "Largest difference: tag injection, recall +0.80 [−0.05, +0.96] (p=0.13 n=5) — on 5 units its test cannot tell it from chance; " +
		"largest marked difference: tag deletion, recall +0.33 [+0.08, +0.53] (p=0.011 n=24)."
	if got := largestSliceText(c, 0.95, func(s string) string { return s }); got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	if largestSliceText(&metrics.Comparison{}, 0.95, func(s string) string { return s }) != "" {
		t.Error("a largest difference without slices")
	}
}

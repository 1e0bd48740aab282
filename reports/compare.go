package reports

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/apeval/apeval/metrics"
)

// figureView says how a comparison figure is shown.
type figureView struct {
	label  string
	digits int  // decimals of a proportion; ignored for milliseconds
	ms     bool // milliseconds
}

var figureViews = map[string]figureView{
	metrics.FigureRecall:            {"recall", 2, false},
	metrics.FigureFalsePositiveRate: {"false-positive rate", 3, false},
	metrics.FigureUnknownRate:       {"unknown rate", 3, false},
	metrics.FigureFireRate:          {"fire rate", 3, false},
	metrics.FigurePrecision:         {"precision", 2, false},
	metrics.FigureLatencyP50:        {"P50 ms", 0, true},
	metrics.FigureLatencyP95:        {"P95 ms", 0, true},
	metrics.FigureLatencyShift:      {"latency shift", 3, false},
}

// testLegend says, under the comparison tables, which test stands behind
// each figure (see docs/statistics.md).
const testLegend = "Tests: recall and false-positive rate FP/(FP+TN) on the labeled positives / negatives both judges decided, unknown rate on the pairs both sent to a judge, " +
	"fire rate on the pairs in scope for both: session sign-flip randomization (exact McNemar when no session holds two discordant pairs; ± its Monte Carlo error when not exact), " +
	"Δ interval Newcombe paired (clustered by session); precision: delta method, t on the sessions; P50/P95: paired by session (each quantile linearized, session-clustered variance, t on the effective sessions; a bootstrap of the calls when every session holds one call), n = baseline+candidate calls; " +
	"latency shift: Mann–Whitney U on the whole latency distribution, Δ = P(candidate call slower) − ½."

// adjustmentNote says which multiplicity adjustment the marks used.
func adjustmentNote(c *metrics.Comparison, conf float64) string {
	return fmt.Sprintf("%s The q-values adjust all %d tests of this comparison (rules × figures × slices); "+
		"the verdict-bearing dangerous-recall tests are Holm-adjusted across rules instead.", MarkLegend(conf), c.Tests)
}

// signed formats a delta with its sign: +0.24, −0.06 (a true minus, as
// benchstat prints), 0 without sign.
func signed(v float64, d int) string {
	s := strconv.FormatFloat(math.Abs(v), 'f', d, 64)
	switch {
	case s == strconv.FormatFloat(0, 'f', d, 64):
		return s
	case v < 0:
		return "−" + s
	}
	return "+" + s
}

// signedMS is signed for milliseconds (two significant digits below 1 ms).
func signedMS(v float64) string {
	a := math.Abs(v)
	s := fmtMS(&a)
	switch {
	case v == 0 || s == "0":
		return s
	case v < 0:
		return "−" + s
	}
	return "+" + s
}

func (fv figureView) value(v *float64) string {
	if fv.ms {
		return fmtMS(v)
	}
	return fmtNum(v, fv.digits)
}

func (fv figureView) signed(v float64) string {
	if fv.ms {
		return signedMS(v)
	}
	return signed(v, fv.digits)
}

// pn formats a test's "(p=0.021 q=0.04 n=80)": p (± its Monte Carlo
// error), the q-value the table marks by, and n (n_B+n_C for latency).
func pn(f metrics.Figure) string {
	n := "n=" + figureN(f)
	if f.PValue == nil {
		return "(" + n + ")"
	}
	return "(" + pq(f) + " " + n + ")"
}

// figureN is a figure's n: "base+head" where the test counts the two
// sides apart (latency), else the paired count.
func figureN(f metrics.Figure) string {
	if f.NBaseline != nil && f.NCandidate != nil {
		return fmt.Sprintf("%d+%d", *f.NBaseline, *f.NCandidate)
	}
	return strconv.FormatInt(f.N, 10)
}

// pq is a figure's "p=… q=…" text, without n; "" without a p-value.
func pq(f metrics.Figure) string {
	if f.PValue == nil {
		return ""
	}
	var p string
	switch {
	case *f.PValue == 0 && f.Test == metrics.TestBootstrapCalls:
		// No resample fell on the far side of 0: p is below 1/resamples.
		p = fmt.Sprintf("p<%g", 1.0/metrics.BootstrapResamples)
	case *f.PValue == 0:
		p = "p<1e-300"
	default:
		p = "p=" + strconv.FormatFloat(*f.PValue, 'g', 2, 64)
		if f.PValueMCError != nil {
			p += "±" + strconv.FormatFloat(*f.PValueMCError, 'g', 1, 64)
		}
	}
	switch {
	case f.QValue == nil:
	case *f.QValue == 0 && f.Test == metrics.TestBootstrapCalls:
		p += fmt.Sprintf(" q<%g", 1.0/metrics.BootstrapResamples)
	case *f.QValue == 0:
		p += " q<1e-300"
	default:
		p += " q=" + strconv.FormatFloat(*f.QValue, 'g', 2, 64)
	}
	return p
}

// figureCell is the "vs base" cell, as benchstat prints it: "~" with p and
// n when p ≥ 1 − confidence, otherwise Δ [lo, hi] with p and n.
func figureCell(f metrics.Figure, conf float64) string {
	fv := figureViews[f.Figure]
	switch {
	case f.Delta == nil:
		return na
	case !f.Significant(conf):
		return "~ " + pn(f)
	}
	s := fv.signed(*f.Delta)
	if f.DeltaLo != nil && f.DeltaHi != nil {
		s += fmt.Sprintf(" [%s, %s]", fv.signed(*f.DeltaLo), fv.signed(*f.DeltaHi))
	}
	return s + " " + pn(f)
}

func comparisonRows(c *metrics.Comparison) []*metrics.RuleComparison {
	rows := append([]*metrics.RuleComparison(nil), c.Rules...)
	if c.Total != nil {
		rows = append(rows, c.Total)
	}
	return rows
}

func ruleLabel(id string) string {
	if id == metrics.AllRules {
		return "all rules"
	}
	return id
}

// comparisonGrids lays out a comparison as benchstat does: one table per
// figure, rules as rows, baseline and candidate on the units the figure's
// test used, and the difference marked "~" where the test says it could be
// chance.
func (rep *Report) comparisonGrids(c *metrics.Comparison) []*grid {
	var gs []*grid
	conf := rep.Summary.Thresholds.Confidence
	for _, t := range figureTables(comparisonRows(c), conf) {
		g := &grid{header: []string{t.label, c.Baseline, c.Candidate, "vs base"}, right: []bool{false, true, true, true}, weak: rep.Weak()}
		drift := t.name == metrics.FigureFireRate
		if drift {
			g.header = append(g.header, "change [CI]", "drift "+thresholdText(metrics.CriterionFireRateChangeMax, rep.Summary.Thresholds))
			g.right = append(g.right, true, false)
		}
		for _, x := range t.rows {
			cells := []string{x.rule, x.base, x.head, x.vsBase}
			if drift {
				fc := x.rc.FireRateChange
				cells = append(cells, fmtCISigned(fc.Estimate, fc.Lo, fc.Hi, 3), paint(string(fc.Status), rep.Color))
			}
			g.add(cells...)
		}
		g.width, g.fit = rep.Width, fitOptions{judgeHeads: 2}
		gs = append(gs, g)
	}
	return gs
}

// fmtCISigned formats a difference with its interval: "−0.06 [−0.16, +0.04]".
func fmtCISigned(v, lo, hi *float64, d int) string {
	if v == nil {
		return na
	}
	s := signed(*v, d)
	if lo != nil && hi != nil {
		s += fmt.Sprintf(" [%s, %s]", signed(*lo, d), signed(*hi, d))
	}
	return s
}

// WriteComparison writes baseline vs candidate (apeval compare):
// benchstat-style tables, the tests' legend and warnings as footnotes, and
// the candidate's verdict line; TSV in long form (one line per rule ×
// figure, as compare.parquet); JSON as metrics.Comparison.
func (rep *Report) WriteComparison(w io.Writer, c *metrics.Comparison, f Format) error {
	switch f {
	case FormatJSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(comparisonJSON{Comparison: c, Cost: rep.comparisonCosts(c), Repeats: rep.comparisonRepeats(c), LabelSource: rep.Run.LabelSource})
	case FormatTSV, FormatCSV:
		g := comparisonTSV(c, rep.Summary.Thresholds.Confidence)
		g.weak = rep.Weak()
		return g.render(w, f)
	}
	if err := rep.writeComparisonTables(w, c, f); err != nil {
		return err
	}
	if err := rep.writeCandidateHoldBacks(w, c, f == FormatMarkdown); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\n%s\n", rep.candidateHeadline(c.Candidate, f == FormatMarkdown))
	return err
}

// maxCompareOpen is how many open criteria a comparison lists before
// counting the rest (apeval gate lists them all); failing ones are all
// listed.
const maxCompareOpen = 5

// writeCandidateHoldBacks writes, above the verdict line, what keeps the
// candidate from GO (holdBacks, the words gate uses): every failing
// criterion, then the first maxCompareOpen open ones. A policy
// criterion is listed once, as "policy, every judge"; a failure the
// baseline judge has too on the same rule says "the baseline fails it
// too". Nothing when the candidate is GO.
func (rep *Report) writeCandidateHoldBacks(w io.Writer, c *metrics.Comparison, markdown bool) error {
	j := rep.Summary.Judge(c.Candidate)
	if j == nil {
		return nil
	}
	hb := holdBacks(j, rep.Summary.Judge(c.Baseline))
	if len(hb) == 0 {
		return nil
	}
	fail, open := countHoldBacks(hb)
	shown := hb[:fail+min(open, maxCompareOpen)]
	var lines []string
	if markdown {
		lines = append(lines, "", fmt.Sprintf("**What holds %s back** (%d failing, %d open):", mdEscape(c.Candidate), fail, open), "")
	} else {
		lines = append(lines, "", fmt.Sprintf("What holds %s back (%d failing, %d open):", c.Candidate, fail, open))
	}
	for _, h := range shown {
		st := string(h.Status)
		if h.Status == metrics.StatusInconclusive {
			st = "open"
		}
		text := h.Text
		if rep.Weak() {
			// A figure on weak labels says so, as every other line does.
			text = weakMark(text)
		}
		if markdown {
			lines = append(lines, fmt.Sprintf("- %s `%s` · %s — %s", st, h.Rule, h.Name, mdEscape(text)))
			continue
		}
		for _, l := range wrap(fmt.Sprintf("%s %s, %s: %s", st, h.Rule, h.Name, text), rep.Width-2) {
			lines = append(lines, "  "+l)
		}
	}
	if rest := len(hb) - len(shown); rest > 0 {
		more := fmt.Sprintf("… %d more open (apeval gate lists them all)", rest)
		if markdown {
			lines = append(lines, "- "+more)
		} else {
			lines = append(lines, "  "+more)
		}
	}
	for _, l := range lines {
		if _, err := fmt.Fprintln(w, l); err != nil {
			return err
		}
	}
	return nil
}

// comparisonJSON is `apeval compare --json`: the comparison's keys, plus
// the two judges' tokens and cost beside their latency (as summary.json's
// "cost"), absent when neither judge made a call.
type comparisonJSON struct {
	*metrics.Comparison
	Cost map[string]*JudgeCost `json:"cost,omitempty"`
	// Repeats is each judge's flip rate and position effect per rule
	// (--repeat, --shuffle-rules), keyed by judge then rule ("*" the
	// total); absent without repeats.
	Repeats map[string]map[string]RepeatFigures `json:"repeats,omitempty"`
	// LabelSource is "weak" when the recall and precision compared rest on
	// weak labels (run --weak-labels); absent otherwise.
	LabelSource string `json:"label_source,omitempty"`
}

// RepeatFigures are a judge × rule's repeat and rule-order figures.
type RepeatFigures struct {
	FlipPairs        int64    `json:"flip_pairs"`
	FlipRate         *float64 `json:"flip_rate"`
	FlipRateLo       *float64 `json:"flip_rate_lo"`
	FlipRateHi       *float64 `json:"flip_rate_hi"`
	PositionEffect   *float64 `json:"position_effect"`
	PositionEffectLo *float64 `json:"position_effect_lo"`
	PositionEffectHi *float64 `json:"position_effect_hi"`
}

func repeatFigures(r *metrics.Row) RepeatFigures {
	return RepeatFigures{FlipPairs: r.FlipPairs, FlipRate: r.FlipRate, FlipRateLo: r.FlipRateLo, FlipRateHi: r.FlipRateHi,
		PositionEffect: r.PositionEffect, PositionEffectLo: r.PositionEffectLo, PositionEffectHi: r.PositionEffectHi}
}

// comparisonRepeats is comparisonJSON.Repeats.
func (rep *Report) comparisonRepeats(c *metrics.Comparison) map[string]map[string]RepeatFigures {
	if !hasRepeats(rep.Summary) {
		return nil
	}
	out := map[string]map[string]RepeatFigures{}
	for _, j := range rep.Summary.Judges {
		if (j.Judge != c.Baseline && j.Judge != c.Candidate) || j.Total == nil {
			continue
		}
		m := map[string]RepeatFigures{metrics.AllRules: repeatFigures(j.Total)}
		for _, r := range j.Rules {
			m[r.RuleID] = repeatFigures(r)
		}
		out[j.Judge] = m
	}
	return out
}

// repeatsGrid lays out both judges' flip rate and position effect per
// rule, nil without repeats.
func (rep *Report) repeatsGrid(baseline, candidate string) *grid {
	s := rep.Summary
	if !hasRepeats(s) {
		return nil
	}
	var b, c *metrics.JudgeSummary
	for _, j := range s.Judges {
		switch j.Judge {
		case baseline:
			b = j
		case candidate:
			c = j
		}
	}
	if b == nil || c == nil {
		return nil
	}
	g := &grid{header: []string{"wavering", "flip " + baseline, "flip " + candidate, "pos Δ " + baseline, "pos Δ " + candidate},
		right: []bool{false, true, true, true, true}}
	row := func(label string, rb, rc *metrics.Row) {
		cell := func(r *metrics.Row, pos bool) string {
			if r == nil {
				return na
			}
			if pos {
				return fmtSignedCI(r.PositionEffect, r.PositionEffectLo, r.PositionEffectHi)
			}
			return figFlipRate.cell(r)
		}
		g.add(label, cell(rb, false), cell(rc, false), cell(rb, true), cell(rc, true))
	}
	row(ruleLabel(metrics.AllRules), b.Total, c.Total)
	for _, id := range ruleIDs(s) {
		rb, rc := b.Rule(id), c.Rule(id)
		if rb == nil && rc == nil {
			continue
		}
		row(ruleLabel(id), rb, rc)
	}
	g.notes = []string{"flip: share of pairs whose repeated answers were not all equal (--repeat); pos Δ: match rate with the rule first minus last in a call (--shuffle-rules); each judge's own figure with its session-clustered interval, not a paired test."}
	g.width, g.fit = rep.Width, fitOptions{judgeHeads: 0}
	return g
}

func (rep *Report) comparisonCosts(c *metrics.Comparison) map[string]*JudgeCost {
	out := map[string]*JudgeCost{}
	for judge, jc := range rep.costs() {
		if judge == c.Baseline || judge == c.Candidate {
			out[judge] = jc
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// writeComparisonTables writes the figure tables of one comparison and, for
// each slice value, its figures table.
func (rep *Report) writeComparisonTables(w io.Writer, c *metrics.Comparison, f Format) error {
	gs := rep.comparisonGrids(c)
	gs = append(gs, rep.sliceComparisonGrids(c)...)
	for i, g := range gs {
		if i > 0 {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		if i == len(gs)-1 {
			g.notes = append(g.notes, testLegend, adjustmentNote(c, rep.Summary.Thresholds.Confidence))
			if n := weightedMarkNote(c); n != "" {
				g.notes = append(g.notes, n)
			}
			g.notes = append(g.notes, numbered(c.Warnings)...)
		}
		if err := g.render(w, f); err != nil {
			return err
		}
	}
	// How each judge wavers (--repeat, --shuffle-rules): descriptive, each
	// judge's own figure with its interval.
	if g := rep.repeatsGrid(c.Baseline, c.Candidate); g != nil {
		if _, err := io.WriteString(w, "\n"); err != nil {
			return err
		}
		if err := g.render(w, f); err != nil {
			return err
		}
	}
	// Cost, quality and latency of the two judges together.
	if g := rep.costGrid(c.Baseline, c.Candidate); g != nil {
		if _, err := io.WriteString(w, "\n"); err != nil {
			return err
		}
		return g.render(w, f)
	}
	return nil
}

// sliceComparisonGrids: one table per slice kind, a row per slice value ×
// figure of the slice's total (figures neither judge has are left out),
// and a note naming, per figure, the slice value where the judges differ
// most.
func (rep *Report) sliceComparisonGrids(c *metrics.Comparison) []*grid {
	var gs []*grid
	conf := rep.Summary.Thresholds.Confidence
	var g *grid
	type extreme struct {
		value string
		delta float64
	}
	var most map[string]extreme
	finish := func() {
		if g == nil {
			return
		}
		var parts []string
		for _, name := range metrics.FigureNames {
			if e, ok := most[name]; ok && e.delta != 0 {
				fv := figureViews[name]
				parts = append(parts, fmt.Sprintf("%s %s (%s)", fv.label, e.value, fv.signed(e.delta)))
			}
		}
		if len(parts) > 0 {
			g.notes = append(g.notes, fmt.Sprintf("Largest difference by %s: %s.", strings.TrimPrefix(g.header[0], "by "), strings.Join(parts, "; ")))
		}
	}
	for _, sc := range c.Slices {
		if g == nil || "by "+sc.Slice != g.header[0] {
			finish()
			g = &grid{header: []string{"by " + sc.Slice, "figure", c.Baseline, c.Candidate, "vs base"},
				right: []bool{false, false, true, true, true}}
			gs = append(gs, g)
			most = map[string]extreme{}
		}
		for _, rc := range sc.Rules {
			if rc.RuleID != metrics.AllRules {
				continue
			}
			for _, f := range rc.Figures {
				if f.Baseline == nil && f.Candidate == nil {
					continue
				}
				x := cellsOf(rc, f.Figure, conf)
				g.add(sc.Value, figureViews[f.Figure].label, x.base, x.head, x.vsBase)
				if f.Delta != nil && math.Abs(*f.Delta) > math.Abs(most[f.Figure].delta) {
					most[f.Figure] = extreme{sc.Value, *f.Delta}
				}
			}
		}
	}
	finish()
	for _, g := range gs {
		g.weak = rep.Weak()
	}
	return gs
}

// candidateHeadline is the verdict line of a comparison: the candidate's
// verdict and the exit code the command chose for it (Report.Exit).
func (rep *Report) candidateHeadline(candidate string, markdown bool) string {
	v := metrics.VerdictInconclusive
	if j := rep.Summary.Judge(candidate); j != nil {
		v = j.Verdict
	}
	word := string(v)
	if markdown {
		word = "**" + word + "**"
	} else {
		word = paint(word, rep.Color)
	}
	s := fmt.Sprintf("verdict: %s %s (exit %d", candidate, word, rep.Exit)
	if v == metrics.VerdictInconclusive && rep.Inconclusive != "" {
		s += ", --inconclusive=" + rep.Inconclusive
	}
	return s + ")"
}

func numbered(ws []string) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = fmt.Sprintf("[%d] %s", i+1, w)
	}
	return out
}

func optInt(v *int64) string {
	if v == nil {
		return ""
	}
	return itoa(*v)
}

func comparisonTSV(c *metrics.Comparison, conf float64) *grid {
	g := &grid{header: []string{"slice", "slice_value", "rule_id", "figure", "baseline", "candidate", "delta", "delta_lo",
		"delta_hi", "p_value", "n", "test", "discordant_baseline", "discordant_candidate", "significant",
		"fire_rate_change", "fire_rate_change_lo", "fire_rate_change_hi", "fire_rate_change_status"}}
	add := func(slice, value string, rcs []*metrics.RuleComparison) {
		for _, rc := range rcs {
			for _, f := range rc.Figures {
				cells := []string{slice, value, rc.RuleID, f.Figure, full(f.Baseline), full(f.Candidate), full(f.Delta),
					full(f.DeltaLo), full(f.DeltaHi), full(f.PValue), itoa(f.N), f.Test, optInt(f.DiscordantBaseline),
					optInt(f.DiscordantCandidate), strconv.FormatBool(f.Significant(conf))}
				if f.Figure == metrics.FigureFireRate {
					fc := rc.FireRateChange
					cells = append(cells, full(fc.Estimate), full(fc.Lo), full(fc.Hi), string(fc.Status))
				} else {
					cells = append(cells, "", "", "", "")
				}
				g.add(cells...)
			}
		}
	}
	add("*", "*", comparisonRows(c))
	for _, sc := range c.Slices {
		add(sc.Slice, sc.Value, sc.Rules)
	}
	return g
}

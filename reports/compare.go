package reports

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/apeval/apeval/metrics"
)

// compareMetric is one benchstat-style table of a comparison.
type compareMetric struct {
	name   string
	digits int
	value  func(r *metrics.Row) (v, lo, hi *float64)
	delta  func(rc *metrics.RuleComparison) *float64
	paired bool // the rule's McNemar test speaks to this difference
}

var compareMetrics = []compareMetric{
	{"precision", 2, func(r *metrics.Row) (v, lo, hi *float64) { return r.Precision, r.PrecisionLo, r.PrecisionHi },
		func(rc *metrics.RuleComparison) *float64 { return rc.PrecisionDelta }, true},
	{"recall", 2, func(r *metrics.Row) (v, lo, hi *float64) { return r.Recall, r.RecallLo, r.RecallHi },
		func(rc *metrics.RuleComparison) *float64 { return rc.RecallDelta }, true},
	{"unknown rate", 3, func(r *metrics.Row) (v, lo, hi *float64) { return r.UnknownRate, r.UnknownRateLo, r.UnknownRateHi },
		func(rc *metrics.RuleComparison) *float64 { return rc.UnknownRateDelta }, false},
	{"fire rate", 3, func(r *metrics.Row) (v, lo, hi *float64) { return r.FireRate, nil, nil },
		func(rc *metrics.RuleComparison) *float64 { return rc.FireRateDelta }, true},
	{"P95 ms", 0, func(r *metrics.Row) (v, lo, hi *float64) { return r.LatencyP95MS, r.LatencyP95LoMS, r.LatencyP95HiMS },
		func(rc *metrics.RuleComparison) *float64 { return rc.LatencyP95DeltaMS }, false},
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

// pn formats the paired test's "(p=0.021 n=80)".
func pn(rc *metrics.RuleComparison) string {
	if rc.McNemarP == nil {
		return fmt.Sprintf("(n=%d)", rc.Paired)
	}
	return fmt.Sprintf("(p=%s n=%d)", strconv.FormatFloat(*rc.McNemarP, 'g', 2, 64), rc.Paired)
}

// deltaCell is the "vs base" cell: the delta, or "~" where the paired test
// finds no significant difference, followed by (p=… n=…).
func deltaCell(m compareMetric, rc *metrics.RuleComparison) string {
	d := m.delta(rc)
	if d == nil {
		return na
	}
	if !m.paired {
		return signed(*d, m.digits)
	}
	if rc.McNemarP == nil || !rc.Significant {
		return "~ " + pn(rc)
	}
	return signed(*d, m.digits) + " " + pn(rc)
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
// figure, rules as rows, baseline and candidate with intervals, and the
// delta marked "~" where the paired test says it could be chance.
func (rep *Report) comparisonGrids(c *metrics.Comparison) []*grid {
	var gs []*grid
	for _, m := range compareMetrics {
		g := &grid{header: []string{m.name, c.Baseline, c.Candidate, "vs base"}, right: []bool{false, true, true, true}}
		drift := m.name == "fire rate"
		if drift {
			g.header = append(g.header, "change [CI]", "drift "+thresholdText(metrics.CriterionFireRateChangeMax, rep.Summary.Thresholds))
			g.right = append(g.right, true, false)
		}
		for _, rc := range comparisonRows(c) {
			cells := []string{ruleLabel(rc.RuleID), m.cell(rc.Baseline), m.cell(rc.Candidate), deltaCell(m, rc)}
			if drift {
				fc := rc.FireRateChange
				cells = append(cells, fmtCISigned(fc.Estimate, fc.Lo, fc.Hi, 3), paint(string(fc.Status), rep.Color))
			}
			g.add(cells...)
		}
		g.width, g.fit = rep.Width, fitOptions{judgeHeads: 2}
		gs = append(gs, g)
	}
	return gs
}

// cell formats a row's figure with its interval, "–" without the row.
func (m compareMetric) cell(r *metrics.Row) string {
	if r == nil {
		return na
	}
	v, lo, hi := m.value(r)
	return fmtCI(v, lo, hi, m.digits)
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

// WriteComparison writes baseline vs candidate (apeval compare, issue 5):
// benchstat-style tables, warnings as footnotes; TSV in long form (one line
// per rule × figure); JSON as metrics.Comparison.
func (rep *Report) WriteComparison(w io.Writer, c *metrics.Comparison, f Format) error {
	switch f {
	case FormatJSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(c)
	case FormatTSV:
		return comparisonTSV(c).render(w, f)
	}
	gs := rep.comparisonGrids(c)
	for i, g := range gs {
		if i > 0 {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		if i == len(gs)-1 {
			g.notes = numbered(c.Warnings)
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

func numbered(ws []string) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = fmt.Sprintf("[%d] %s", i+1, w)
	}
	return out
}

func comparisonTSV(c *metrics.Comparison) *grid {
	g := &grid{header: []string{"rule_id", "metric", "baseline", "baseline_lo", "baseline_hi", "candidate",
		"candidate_lo", "candidate_hi", "delta", "paired", "mcnemar_p", "significant",
		"fire_rate_change", "fire_rate_change_lo", "fire_rate_change_hi", "fire_rate_change_status"}}
	for _, rc := range comparisonRows(c) {
		for _, m := range compareMetrics {
			cells := []string{rc.RuleID, m.name}
			for _, r := range []*metrics.Row{rc.Baseline, rc.Candidate} {
				if r == nil {
					cells = append(cells, "", "", "")
					continue
				}
				v, lo, hi := m.value(r)
				cells = append(cells, full(v), full(lo), full(hi))
			}
			cells = append(cells, full(m.delta(rc)), itoa(rc.Paired), full(rc.McNemarP), strconv.FormatBool(rc.Significant))
			fc := rc.FireRateChange
			cells = append(cells, full(fc.Estimate), full(fc.Lo), full(fc.Hi), string(fc.Status))
			g.add(cells...)
		}
	}
	return g
}

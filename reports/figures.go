package reports

import (
	"fmt"
	"math"
	"strings"

	"github.com/apeval/apeval/metrics"
)

// figureMeta is a comparison figure's name with figureViews' formatting
// (compare.go), which the pages share with apeval compare.
type figureMeta struct {
	name string // metrics.Figure.Figure
	figureView
}

// figureOrder is the report order of the comparison figures.
var figureOrder = func() []figureMeta {
	out := make([]figureMeta, len(metrics.FigureNames))
	for i, n := range metrics.FigureNames {
		out[i] = figureMeta{n, figureViews[n]}
	}
	return out
}()

func metaOf(name string) figureMeta {
	for _, m := range figureOrder {
		if m.name == name {
			return m
		}
	}
	return figureMeta{name, figureView{label: name, digits: 3}}
}

// signedNum formats a difference with its sign and a true minus.
func (m figureMeta) signedNum(v float64) string { return m.signed(v) }

// figureDelta is figureCell for a figure that may be absent ("–").
func figureDelta(f *metrics.Figure, conf float64) string {
	if f == nil {
		return na
	}
	return figureCell(*f, conf)
}

// figurePtr returns the rule comparison's figure of that name, nil if absent.
func figurePtr(rc *metrics.RuleComparison, name string) *metrics.Figure {
	if rc == nil {
		return nil
	}
	for i := range rc.Figures {
		if rc.Figures[i].Figure == name {
			return &rc.Figures[i]
		}
	}
	return nil
}

// testLabel names a figure's test for readers.
func testLabel(test string) string {
	switch {
	case test == metrics.TestSignFlip:
		return "session sign-flip"
	case test == metrics.TestDeltaT:
		return "delta method, t on sessions"
	case test == metrics.TestBootstrapCalls:
		return "bootstrap of calls"
	case test == metrics.TestQuantileSessions:
		return "quantile t over sessions"
	case test == metrics.TestQuantileFlip:
		return "quantile, session flip"
	case strings.Contains(test, "mann_whitney"):
		return "Mann–Whitney U"
	}
	return test
}

// totalFiguresGrid is the comparison's "all rules" row as one table, one
// line per figure: baseline, candidate, the delta cell and the test.
func totalFiguresGrid(c *metrics.Comparison, conf float64) *grid {
	g := &grid{header: []string{"all rules", c.Baseline, c.Candidate, "vs base", "test"},
		right: []bool{false, true, true, true, false}}
	if c.Total == nil {
		return nil
	}
	for _, t := range figureTables([]*metrics.RuleComparison{c.Total}, conf) {
		if x := t.rows[0]; x.has {
			g.add(t.label, x.base, x.head, x.vsBase, x.test)
		}
	}
	if len(g.rows) == 0 {
		return nil
	}
	g.notes = []string{deltaLegend(conf)}
	if n := weightedMarkNote(c); n != "" {
		g.notes = append(g.notes, n)
	}
	return g
}

// weightedMarkNote says how the figures a labeled sample replaced (tests
// weighted_paired and weighted, --labels) are marked: their p-values are in
// the q-values' family (the replaced tests are not), and a Δ without p is
// always ~; "" when the comparison has none.
func weightedMarkNote(c *metrics.Comparison) string {
	has := func(rc *metrics.RuleComparison) bool {
		if rc == nil {
			return false
		}
		for _, f := range rc.Figures {
			if strings.HasPrefix(f.Test, "weighted") {
				return true
			}
		}
		return false
	}
	found := has(c.Total)
	for _, rc := range c.Rules {
		found = found || has(rc)
	}
	if !found {
		return ""
	}
	return "Recall, false-positive rate and precision here come from the labeled sample (tests weighted_paired, weighted): their p-values count in the q-values' family " +
		"in place of the unweighted tests they replace; a Δ with no p (precision; or labels that miss a stratum while the interval reaches 0) has no q and always carries ~."
}

// deltaLegend explains the "vs base" cells.
func deltaLegend(conf float64) string {
	return fmt.Sprintf("vs base: candidate − baseline with its %g%% interval, p, its Benjamini–Hochberg q-value over every figure, rule and slice of the comparison, and the units the test used (n). ", conf*100) +
		MarkLegend(conf)
}

// MarkLegend is the one wording of what "~" means, for every output that
// marks differences (the terminal and Markdown tables, the pull-request
// comment, report.html's charts): the marks follow the Benjamini–Hochberg
// q-value, not p.
func MarkLegend(conf float64) string {
	return fmt.Sprintf("~ marks a difference chance explains as well: its Benjamini–Hochberg q-value (over every figure, rule and slice of the comparison) is ≥ %g; marks are by q, not p.", roundP(1-conf))
}

func roundP(v float64) float64 { return math.Round(v*1e6) / 1e6 }

// ruleFiguresGrids is benchstat's layout for the rules: one table per
// figure, a line per rule (all rules last).
func ruleFiguresGrids(c *metrics.Comparison, conf float64) []*grid {
	var gs []*grid
	for _, t := range figureTables(comparisonRows(c), conf) {
		if !t.present {
			continue
		}
		g := &grid{header: []string{t.label, c.Baseline, c.Candidate, "vs base"}, right: []bool{false, true, true, true}}
		for _, x := range t.rows {
			g.add(x.rule, x.base, x.head, x.vsBase)
		}
		gs = append(gs, g)
	}
	return gs
}

// sliceFigureNames are the figures a slice table shows (the proportions;
// latency per slice says little).
var sliceFigureNames = []string{"recall", "false_positive_rate", "precision", "fire_rate"}

// sliceKinds lists the slice kinds of a comparison in order of appearance.
func sliceKinds(c *metrics.Comparison) []string {
	var kinds []string
	for _, s := range c.Slices {
		if len(kinds) == 0 || kinds[len(kinds)-1] != s.Slice {
			kinds = append(kinds, s.Slice)
		}
	}
	return kinds
}

// sliceTotal is the all-rules comparison of one slice value.
func sliceTotal(s metrics.SliceComparison) *metrics.RuleComparison {
	for _, rc := range s.Rules {
		if rc.RuleID == metrics.AllRules {
			return rc
		}
	}
	return nil
}

// sliceGrid is one table per slice kind: a line per slice value with the
// all-rules delta of each proportion figure.
func sliceGrid(c *metrics.Comparison, kind string, conf float64) *grid {
	g := &grid{header: []string{kind}, right: []bool{false}}
	for _, n := range sliceFigureNames {
		g.header = append(g.header, metaOf(n).label)
		g.right = append(g.right, true)
	}
	for _, s := range c.Slices {
		if s.Slice != kind {
			continue
		}
		t := sliceTotal(s)
		cells := []string{s.Value}
		for _, n := range sliceFigureNames {
			cells = append(cells, cellsOf(t, n, conf).vsBase)
		}
		g.add(cells...)
	}
	return g
}

// largestSliceChange finds, over every slice value, the proportion figure
// with the largest |Δ|; marked limits it to differences the test marks
// (p < 1 − confidence). ok is false when there is none.
func largestSliceChange(c *metrics.Comparison, conf float64, marked bool) (s metrics.SliceComparison, f metrics.Figure, ok bool) {
	best := 0.0
	for _, sc := range c.Slices {
		t := sliceTotal(sc)
		for _, n := range sliceFigureNames {
			fg := figurePtr(t, n)
			if fg == nil || fg.Delta == nil || (marked && !fg.Significant(conf)) {
				continue
			}
			if d := math.Abs(*fg.Delta); d > best {
				best, s, f, ok = d, sc, *fg, true
			}
		}
	}
	return s, f, ok
}

// deltaText is a difference with its interval, p and n, marked or not.
func deltaText(f metrics.Figure) string {
	fv := figureViews[f.Figure]
	s := fv.signed(*f.Delta)
	if f.DeltaLo != nil && f.DeltaHi != nil {
		s += fmt.Sprintf(" [%s, %s]", fv.signed(*f.DeltaLo), fv.signed(*f.DeltaHi))
	}
	return s + " " + pn(f)
}

// largestSliceText says where the judges differ most: the slice value with
// the largest difference and, when the test does not mark that one, also
// the largest difference it marks — so a big change on a handful of cases
// is visible without being passed off as confirmed. "" without slices.
func largestSliceText(c *metrics.Comparison, conf float64, name func(string) string) string {
	s, f, ok := largestSliceChange(c, conf, false)
	if !ok {
		return ""
	}
	text := fmt.Sprintf("Largest difference: %s %s, %s %s", s.Slice, name(s.Value), metaOf(f.Figure).label, deltaText(f))
	if f.Significant(conf) {
		return text + "."
	}
	text += fmt.Sprintf(" — on %d units its test cannot tell it from chance", f.N)
	if ms, mf, ok := largestSliceChange(c, conf, true); ok {
		text += fmt.Sprintf("; largest marked difference: %s %s, %s %s", ms.Slice, name(ms.Value), metaOf(mf.Figure).label, deltaText(mf))
	}
	return text + "."
}

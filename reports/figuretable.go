package reports

import (
	"strings"

	"github.com/apeval/apeval/metrics"
)

// The comparison's one view (benchstat's build-once table): every cell a
// human reads about a compared figure — the terminal's and Markdown's
// tables of `apeval compare`, summary.md's and report.html's comparison
// sections, the pull-request comment — is formatted here once, by cellsOf,
// and each renderer picks its columns from the same cells. A cell changes
// in one place and every view shows the change.

// figureCells is one figure of one rule comparison, every cell formatted.
type figureCells struct {
	rc   *metrics.RuleComparison // nil: no rule comparison (a slice without its total)
	f    metrics.Figure          // the figure; only its name when the row lacks it
	has  bool                    // the row has the figure
	rule string                  // the row's label: the rule ID, "all rules" for the total

	base, head string // the two judges' values ("–" when absent)
	// vsBase is benchstat's "vs base" cell: "~ (p n)" where chance explains
	// the difference as well, else "Δ [lo, hi] (p n)" (figureCell).
	vsBase string
	// delta is the difference with its interval alone, "~ "-prefixed where
	// chance explains it as well; p is "p … q …" without "p=", n the units
	// (the comment's columns). Both "–" without them.
	delta, p, n string
	test        string // the test, named for readers
}

// cellsOf formats the named figure of rc (nil allowed).
func cellsOf(rc *metrics.RuleComparison, name string, conf float64) figureCells {
	x := figureCells{rc: rc, f: metrics.Figure{Figure: name}}
	if rc != nil {
		x.rule = ruleLabel(rc.RuleID)
	}
	fp := figurePtr(rc, name)
	if fp != nil {
		x.f, x.has = *fp, true
	}
	f, fv := x.f, figureViews[name]
	x.base, x.head = fv.value(f.Baseline), fv.value(f.Candidate)
	x.vsBase = figureDelta(fp, conf)
	x.delta, x.p = na, na
	if f.Delta != nil {
		x.delta = fv.signed(*f.Delta)
		if f.DeltaLo != nil && f.DeltaHi != nil {
			x.delta += " [" + fv.signed(*f.DeltaLo) + ", " + fv.signed(*f.DeltaHi) + "]"
		}
		if !f.Significant(conf) {
			x.delta = "~ " + x.delta
		}
	}
	if f.PValue != nil {
		x.p = strings.TrimPrefix(pq(f), "p=")
	}
	x.n = figureN(f)
	x.test = testLabel(f.Test)
	return x
}

// figureTable is one figure across rule comparisons: a line per row.
type figureTable struct {
	figureMeta
	present bool // some row has the figure
	rows    []figureCells
}

// figureTables is the comparison view of rows: a table per figure, in
// report order (metrics.FigureNames), whether or not a row has it.
func figureTables(rows []*metrics.RuleComparison, conf float64) []figureTable {
	out := make([]figureTable, len(figureOrder))
	for i, m := range figureOrder {
		t := figureTable{figureMeta: m, rows: make([]figureCells, len(rows))}
		for k, rc := range rows {
			t.rows[k] = cellsOf(rc, m.name, conf)
			t.present = t.present || t.rows[k].has
		}
		out[i] = t
	}
	return out
}

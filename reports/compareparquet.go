package reports

import (
	"io"
	"os"
	"path/filepath"
	"reflect"

	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/reports/rundir"
)

// compareRow is one compare.parquet row: a slice value × rule × figure of
// one baseline-vs-candidate comparison (slice "*" for the whole run, rule
// "*" for all rules).
type compareRow struct {
	c            *metrics.Comparison
	slice, value string
	ruleID       string
	f            *metrics.Figure
	confidence   float64
	labelSource  string
}

// compareColumns are compare.parquet's columns: where a figure belongs
// (slice, judges, rule), every column of metrics.Figure, and the
// comparison's adjustment, mark and confidence, in compareOrder.
var compareColumns = func() []column[compareRow] {
	str := func(name string, get func(r compareRow) string) column[compareRow] {
		return column[compareRow]{name: name, typ: reflect.TypeFor[string](), opts: "dict", get: func(r compareRow) any { return get(r) }}
	}
	cols := []column[compareRow]{
		str("slice", func(r compareRow) string { return r.slice }),
		str("slice_value", func(r compareRow) string { return r.value }),
		str("baseline_judge", func(r compareRow) string { return r.c.Baseline }),
		str("candidate_judge", func(r compareRow) string { return r.c.Candidate }),
		str("rule_id", func(r compareRow) string { return r.ruleID }),
		str("adjustment", func(r compareRow) string { return r.c.Adjustment }),
		{name: "significant", typ: reflect.TypeFor[bool](), get: func(r compareRow) any { return r.f.Significant(r.confidence) }},
		{name: "confidence", typ: reflect.TypeFor[float64](), get: func(r compareRow) any { return r.confidence }},
		{name: "label_source", typ: reflect.TypeFor[*string](), opts: "optional,dict", get: func(r compareRow) any { return optStr(r.labelSource) }},
	}
	cols = append(cols, rowColumns(func(r compareRow) *metrics.Figure { return r.f }, nil)...)
	return ordered(cols, compareOrder)
}()

// compareOrder is the order of compare.parquet's columns as published; a
// column added to metrics.Figure since follows them.
var compareOrder = []string{"slice", "slice_value", "baseline_judge", "candidate_judge", "rule_id", "figure",
	"baseline", "candidate", "delta", "delta_lo", "delta_hi", "p_value", "p_value_mc_error", "q_value", "adjustment",
	"n", "n_baseline", "n_candidate", "test", "discordant_baseline", "discordant_candidate", "significant", "confidence", "label_source"}

// WriteComparisonFile writes one comparison's compare.parquet into dir
// (created when missing; apeval compare --out), atomically.
func WriteComparisonFile(dir string, c *metrics.Comparison, confidence float64, labelSource string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return rundir.WriteFileAtomic(filepath.Join(dir, rundir.CompareFile), func(w io.Writer) error {
		return WriteComparisonParquet(w, []*metrics.Comparison{c}, confidence, labelSource)
	})
}

// WriteComparisonParquet writes compare.parquet: for each comparison, the
// rules then the total, figure by figure, then the same per slice value.
// labelSource is the runs' (RunInfo.LabelSource): "weak" on every row when
// the figures on labels rest on weak labels, null otherwise.
func WriteComparisonParquet(w io.Writer, cs []*metrics.Comparison, confidence float64, labelSource string) error {
	var rows []compareRow
	for _, c := range cs {
		add := func(slice, value string, rcs []*metrics.RuleComparison) {
			for _, rc := range rcs {
				for i := range rc.Figures {
					rows = append(rows, compareRow{c, slice, value, rc.RuleID, &rc.Figures[i], confidence, labelSource})
				}
			}
		}
		add("*", "*", comparisonRows(c))
		for _, sc := range c.Slices {
			add(sc.Slice, sc.Value, sc.Rules)
		}
	}
	return writeParquet(w, "compareRow", compareColumns, rows)
}

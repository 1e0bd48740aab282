package reports

import (
	"io"
	"reflect"
	"slices"

	"github.com/apeval/apeval/metrics"
)

// metricsRow is one metrics.parquet row: a judge × rule, or the judge's
// total (rule_id "*"), in a slice value. Nullable columns are nil where
// the metric does not apply (no labeled positives, no calls, not a
// dangerous rule…), never 0.
type metricsRow struct {
	j            *metrics.JudgeSummary
	r            *metrics.Row
	slice, value string
	labelSource  string
}

// metricsColumns are metrics.parquet's columns: where a row belongs (run,
// judge, slice, the judge's model, the criteria's statuses) and every
// column of metrics.Row, in the order of metricsOrder.
var metricsColumns = func() []column[metricsRow] {
	str := func(name string, get func(m metricsRow) string) column[metricsRow] {
		return column[metricsRow]{name: name, typ: reflect.TypeFor[string](), opts: "dict", get: func(m metricsRow) any { return get(m) }}
	}
	opt := func(name string, get func(m metricsRow) string) column[metricsRow] {
		return column[metricsRow]{name: name, typ: reflect.TypeFor[*string](), opts: "optional,dict", get: func(m metricsRow) any { return optStr(get(m)) }}
	}
	cols := []column[metricsRow]{
		str("run_id", func(m metricsRow) string { return m.j.RunID }),
		str("judge", func(m metricsRow) string { return m.j.Judge }),
		str("slice", func(m metricsRow) string { return m.slice }),
		str("slice_value", func(m metricsRow) string { return m.value }),
		opt("model", func(m metricsRow) string { return m.j.Model }),
		opt("model_digest", func(m metricsRow) string { return m.j.ModelDigest }),
		opt("prompt_version", func(m metricsRow) string { return m.j.PromptVersion }),
		{name: "is_baseline", typ: reflect.TypeFor[bool](), get: func(m metricsRow) any { return m.j.IsBaseline }},
		opt("label_source", func(m metricsRow) string { return m.labelSource }),
	}
	for _, c := range metrics.CriterionNames {
		cols = append(cols, opt(c+"_status", func(m metricsRow) string { return string(m.r.Status(c)) }))
	}
	cols = append(cols, rowColumns(func(m metricsRow) *metrics.Row { return m.r },
		func(m metricsRow) bool { return m.r.RuleID == metrics.AllRules })...)
	return ordered(cols, metricsOrder)
}()

// metricsOrder is the order of metrics.parquet's columns as published;
// a figure added to metrics.Row since follows them.
var metricsOrder = []string{
	"run_id", "judge", "rule_id", "slice", "slice_value", "cases", "in_scope", "judged", "tp", "fp", "fn", "tn",
	"precision", "precision_lo", "precision_hi", "precision_deff", "recall", "recall_lo", "recall_hi", "recall_deff",
	"unknown_rate", "unknown_rate_lo", "unknown_rate_hi", "unknown_rate_deff",
	"judge_required_rate", "judge_required_rate_lo", "judge_required_rate_hi", "judge_required_rate_deff",
	"calls", "latency_p50_ms", "latency_p95_ms", "latency_p99_ms", "fire_rate", "baseline_recall",
	"approval_reject_rate", "approval_reject_rate_lo", "approval_reject_rate_hi", "approval_reject_rate_deff",
	"verdict", "precision_min_status", "dangerous_recall_must_beat_baseline_status", "judge_p95_max_status",
	"judge_required_rate_max_status", "unknown_rate_max_status", "approval_reject_rate_max_status",
	"fire_rate_change_max_status",
	"model", "model_digest", "prompt_version", "is_baseline", "rule_version", "rule_class", "action",
	"labeled", "missing", "cache_hits", "fired", "unknown", "invalid", "timeout", "error", "judge_required",
	"cached_calls", "failed_calls", "latency_p95_lo_ms", "latency_p95_hi_ms", "baseline_positives", "baseline_hits",
	"judge_only_hits", "baseline_only_hits", "approval_outcomes", "approval_rejected",
	"flip_pairs", "flips", "flip_rate", "flip_rate_lo", "flip_rate_hi", "flip_rate_deff",
	"position_first", "position_first_match", "position_last", "position_last_match",
	"position_effect", "position_effect_lo", "position_effect_hi", "label_source",
	"latency_p50_lo_ms", "latency_p50_hi_ms",
}

func optStr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// WriteMetricsParquet writes metrics.parquet: for each judge its total row
// (rule_id "*") followed by its rule rows, in the summary's order, with
// slice and slice_value "*"; then the same rows for every slice value
// (`--by`). labelSource is the run's (RunInfo.LabelSource): "weak" puts
// label_source "weak" on every row (the figures on labels rest on weak
// labels); "" leaves the column null (the dataset's or people's labels).
func WriteMetricsParquet(w io.Writer, s *metrics.Summary, labelSource string) error {
	var rows []metricsRow
	add := func(js []*metrics.JudgeSummary, slice, value string) {
		for _, j := range js {
			rs := j.Rules
			if j.Total != nil {
				rs = append([]*metrics.Row{j.Total}, rs...)
			}
			for _, r := range rs {
				rows = append(rows, metricsRow{j, r, slice, value, labelSource})
			}
		}
	}
	add(s.Judges, "*", "*")
	for _, sl := range s.Slices {
		add(sl.Judges, sl.Slice, sl.Value)
	}
	if s.Sample != nil {
		return writeParquet(w, "sampledMetricsRow", sampledMetricsColumns, rows)
	}
	return writeParquet(w, "metricsRow", metricsColumns, rows)
}

// sampledMetricsColumns are metrics.parquet's columns for figures from a
// labeled sample (--labels): metricsColumns, then the label counts and the
// weighted confusion counts (null on the total row). Without --labels the
// file has metricsColumns only.
var sampledMetricsColumns = func() []column[metricsRow] {
	i64 := func(name string, get func(*metrics.RowSample) int64) column[metricsRow] {
		return column[metricsRow]{name: name, typ: reflect.TypeFor[*int64](), opts: "optional", get: func(m metricsRow) any {
			if m.r.Sample == nil {
				return (*int64)(nil)
			}
			return new(get(m.r.Sample))
		}}
	}
	f64 := func(name string, get func(*metrics.RowSample) float64) column[metricsRow] {
		return column[metricsRow]{name: name, typ: reflect.TypeFor[*float64](), opts: "optional", get: func(m metricsRow) any {
			if m.r.Sample == nil {
				return (*float64)(nil)
			}
			return new(get(m.r.Sample))
		}}
	}
	return append(slices.Clip(metricsColumns),
		i64("labels_sampled", func(s *metrics.RowSample) int64 { return s.Sampled }),
		i64("labels_census", func(s *metrics.RowSample) int64 { return s.Census }),
		i64("labels_dropped", func(s *metrics.RowSample) int64 { return int64(s.Dropped) }),
		f64("tp_weighted", func(s *metrics.RowSample) float64 { return s.TP }),
		f64("fp_weighted", func(s *metrics.RowSample) float64 { return s.FP }),
		f64("fn_weighted", func(s *metrics.RowSample) float64 { return s.FN }),
		f64("tn_weighted", func(s *metrics.RowSample) float64 { return s.TN }),
	)
}()

package reports

import (
	"io"

	"github.com/apeval/apeval/metrics"
	"github.com/parquet-go/parquet-go"
)

// metricsRow is one metrics.parquet row: a judge × rule, or the judge's
// total (rule_id "*"). Nullable columns are nil where the metric does not
// apply (no labeled positives, no calls, not a dangerous rule…), never 0.
type metricsRow struct {
	RunID               string   `parquet:"run_id,dict"`
	Judge               string   `parquet:"judge,dict"`
	RuleID              string   `parquet:"rule_id,dict"`
	Slice               string   `parquet:"slice,dict"`
	SliceValue          string   `parquet:"slice_value,dict"`
	Cases               int64    `parquet:"cases"`
	InScope             int64    `parquet:"in_scope"`
	Judged              int64    `parquet:"judged"`
	TP                  int64    `parquet:"tp"`
	FP                  int64    `parquet:"fp"`
	FN                  int64    `parquet:"fn"`
	TN                  int64    `parquet:"tn"`
	Precision           *float64 `parquet:"precision,optional"`
	PrecisionLo         *float64 `parquet:"precision_lo,optional"`
	PrecisionHi         *float64 `parquet:"precision_hi,optional"`
	PrecisionDeff       *float64 `parquet:"precision_deff,optional"`
	Recall              *float64 `parquet:"recall,optional"`
	RecallLo            *float64 `parquet:"recall_lo,optional"`
	RecallHi            *float64 `parquet:"recall_hi,optional"`
	RecallDeff          *float64 `parquet:"recall_deff,optional"`
	UnknownRate         *float64 `parquet:"unknown_rate,optional"`
	UnknownRateLo       *float64 `parquet:"unknown_rate_lo,optional"`
	UnknownRateHi       *float64 `parquet:"unknown_rate_hi,optional"`
	UnknownRateDeff     *float64 `parquet:"unknown_rate_deff,optional"`
	JudgeRequiredRate   *float64 `parquet:"judge_required_rate,optional"`
	JudgeRequiredRateLo *float64 `parquet:"judge_required_rate_lo,optional"`
	JudgeRequiredRateHi *float64 `parquet:"judge_required_rate_hi,optional"`
	JudgeRequiredDeff   *float64 `parquet:"judge_required_rate_deff,optional"`
	Calls               int64    `parquet:"calls"`
	LatencyP50MS        *float64 `parquet:"latency_p50_ms,optional"`
	LatencyP95MS        *float64 `parquet:"latency_p95_ms,optional"`
	LatencyP99MS        *float64 `parquet:"latency_p99_ms,optional"`
	FireRate            *float64 `parquet:"fire_rate,optional"`
	BaselineRecall      *float64 `parquet:"baseline_recall,optional"`
	ApprovalRejectRate  *float64 `parquet:"approval_reject_rate,optional"`
	ApprovalRejectLo    *float64 `parquet:"approval_reject_rate_lo,optional"`
	ApprovalRejectHi    *float64 `parquet:"approval_reject_rate_hi,optional"`
	ApprovalRejectDeff  *float64 `parquet:"approval_reject_rate_deff,optional"`
	Verdict             string   `parquet:"verdict,dict"`
	PrecisionMinStatus  *string  `parquet:"precision_min_status,optional,dict"`
	DangerousRecallStat *string  `parquet:"dangerous_recall_must_beat_baseline_status,optional,dict"`
	JudgeP95MaxStatus   *string  `parquet:"judge_p95_max_status,optional,dict"`
	JudgeRequiredStatus *string  `parquet:"judge_required_rate_max_status,optional,dict"`
	UnknownRateStatus   *string  `parquet:"unknown_rate_max_status,optional,dict"`
	ApprovalRejectStat  *string  `parquet:"approval_reject_rate_max_status,optional,dict"`
	FireRateChangeStat  *string  `parquet:"fire_rate_change_max_status,optional,dict"`

	Model             *string  `parquet:"model,optional,dict"`
	ModelDigest       *string  `parquet:"model_digest,optional,dict"`
	PromptVersion     *string  `parquet:"prompt_version,optional,dict"`
	IsBaseline        bool     `parquet:"is_baseline"`
	RuleVersion       *int32   `parquet:"rule_version,optional"`
	RuleClass         *string  `parquet:"rule_class,optional,dict"`
	Action            *string  `parquet:"action,optional,dict"`
	Labeled           int64    `parquet:"labeled"`
	Missing           int64    `parquet:"missing"`
	CacheHits         int64    `parquet:"cache_hits"`
	Fired             int64    `parquet:"fired"`
	Unknown           int64    `parquet:"unknown"`
	Invalid           int64    `parquet:"invalid"`
	Timeout           int64    `parquet:"timeout"`
	Error             int64    `parquet:"error"`
	JudgeRequired     int64    `parquet:"judge_required"`
	CachedCalls       int64    `parquet:"cached_calls"`
	FailedCalls       int64    `parquet:"failed_calls"`
	LatencyP95LoMS    *float64 `parquet:"latency_p95_lo_ms,optional"`
	LatencyP95HiMS    *float64 `parquet:"latency_p95_hi_ms,optional"`
	BaselinePositives int64    `parquet:"baseline_positives"`
	BaselineHits      int64    `parquet:"baseline_hits"`
	JudgeOnlyHits     int64    `parquet:"judge_only_hits"`
	BaselineOnlyHits  int64    `parquet:"baseline_only_hits"`
	ApprovalOutcomes  int64    `parquet:"approval_outcomes"`
	ApprovalRejected  int64    `parquet:"approval_rejected"`
	// --repeat and --shuffle-rules (null without them).
	FlipPairs          int64    `parquet:"flip_pairs"`
	Flips              int64    `parquet:"flips"`
	FlipRate           *float64 `parquet:"flip_rate,optional"`
	FlipRateLo         *float64 `parquet:"flip_rate_lo,optional"`
	FlipRateHi         *float64 `parquet:"flip_rate_hi,optional"`
	FlipRateDeff       *float64 `parquet:"flip_rate_deff,optional"`
	PositionFirst      int64    `parquet:"position_first"`
	PositionFirstMatch int64    `parquet:"position_first_match"`
	PositionLast       int64    `parquet:"position_last"`
	PositionLastMatch  int64    `parquet:"position_last_match"`
	PositionEffect     *float64 `parquet:"position_effect,optional"`
	PositionEffectLo   *float64 `parquet:"position_effect_lo,optional"`
	PositionEffectHi   *float64 `parquet:"position_effect_hi,optional"`
}

func optStr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func newMetricsRow(j *metrics.JudgeSummary, r *metrics.Row) metricsRow {
	status := func(name string) *string { return optStr(string(r.Status(name))) }
	m := metricsRow{
		RunID: j.RunID, Judge: j.Judge, RuleID: r.RuleID, Slice: "*", SliceValue: "*",
		Cases: r.Cases, InScope: r.InScope, Judged: r.Judged, TP: r.TP, FP: r.FP, FN: r.FN, TN: r.TN,
		Precision: r.Precision, PrecisionLo: r.PrecisionLo, PrecisionHi: r.PrecisionHi, PrecisionDeff: r.PrecisionDeff,
		Recall: r.Recall, RecallLo: r.RecallLo, RecallHi: r.RecallHi, RecallDeff: r.RecallDeff,
		UnknownRate: r.UnknownRate, UnknownRateLo: r.UnknownRateLo, UnknownRateHi: r.UnknownRateHi, UnknownRateDeff: r.UnknownRateDeff,
		JudgeRequiredRate: r.JudgeRequiredRate, JudgeRequiredRateLo: r.JudgeRequiredRateLo,
		JudgeRequiredRateHi: r.JudgeRequiredRateHi, JudgeRequiredDeff: r.JudgeRequiredRateDeff,
		Calls:        r.Calls,
		LatencyP50MS: r.LatencyP50MS, LatencyP95MS: r.LatencyP95MS, LatencyP99MS: r.LatencyP99MS,
		FireRate: r.FireRate, BaselineRecall: r.BaselineRecall,
		ApprovalRejectRate: r.ApprovalRejectRate, ApprovalRejectLo: r.ApprovalRejectRateLo,
		ApprovalRejectHi: r.ApprovalRejectRateHi, ApprovalRejectDeff: r.ApprovalRejectRateDeff,
		Verdict:             string(r.Verdict),
		PrecisionMinStatus:  status(metrics.CriterionPrecisionMin),
		DangerousRecallStat: status(metrics.CriterionDangerousRecall),
		JudgeP95MaxStatus:   status(metrics.CriterionJudgeP95Max),
		JudgeRequiredStatus: status(metrics.CriterionJudgeRequiredRateMax),
		UnknownRateStatus:   status(metrics.CriterionUnknownRateMax),
		ApprovalRejectStat:  status(metrics.CriterionApprovalRejectRateMax),
		FireRateChangeStat:  status(metrics.CriterionFireRateChangeMax),

		Model: optStr(j.Model), ModelDigest: optStr(j.ModelDigest), PromptVersion: optStr(j.PromptVersion),
		IsBaseline: j.IsBaseline, RuleClass: optStr(string(r.Class)), Action: optStr(string(r.Action)),
		Labeled: r.Labeled, Missing: r.Missing, CacheHits: r.CacheHits, Fired: r.Fired,
		Unknown: r.Unknown.Unknown, Invalid: r.Unknown.Invalid, Timeout: r.Unknown.Timeout, Error: r.Unknown.Error,
		JudgeRequired: r.JudgeRequired,
		CachedCalls:   r.CachedCalls, FailedCalls: r.FailedCalls,
		LatencyP95LoMS: r.LatencyP95LoMS, LatencyP95HiMS: r.LatencyP95HiMS,
		BaselinePositives: r.BaselinePositives, BaselineHits: r.BaselineHits,
		JudgeOnlyHits: r.JudgeOnlyHits, BaselineOnlyHits: r.BaselineOnlyHits,
		ApprovalOutcomes: r.ApprovalOutcomes, ApprovalRejected: r.ApprovalRejected,
		FlipPairs: r.FlipPairs, Flips: r.Flips, FlipRate: r.FlipRate, FlipRateLo: r.FlipRateLo,
		FlipRateHi: r.FlipRateHi, FlipRateDeff: r.FlipRateDeff,
		PositionFirst: r.PositionFirst, PositionFirstMatch: r.PositionFirstMatch,
		PositionLast: r.PositionLast, PositionLastMatch: r.PositionLastMatch,
		PositionEffect: r.PositionEffect, PositionEffectLo: r.PositionEffectLo, PositionEffectHi: r.PositionEffectHi,
	}
	if r.RuleID != metrics.AllRules {
		v := int32(r.RuleVersion)
		m.RuleVersion = &v
	}
	return m
}

// WriteMetricsParquet writes metrics.parquet: for each judge its total row
// (rule_id "*") followed by its rule rows, in the summary's order, with
// slice and slice_value "*"; then the same rows for every slice value
// (`--by`).
func WriteMetricsParquet(w io.Writer, s *metrics.Summary) error {
	var rows []metricsRow
	var samples []*metrics.RowSample
	add := func(js []*metrics.JudgeSummary, slice, value string) {
		for _, j := range js {
			rs := j.Rules
			if j.Total != nil {
				rs = append([]*metrics.Row{j.Total}, rs...)
			}
			for _, r := range rs {
				m := newMetricsRow(j, r)
				m.Slice, m.SliceValue = slice, value
				rows = append(rows, m)
				samples = append(samples, r.Sample)
			}
		}
	}
	add(s.Judges, "*", "*")
	for _, sl := range s.Slices {
		add(sl.Judges, sl.Slice, sl.Value)
	}
	if s.Sample != nil {
		return writeSampledMetrics(w, rows, samples)
	}
	pw := parquet.NewGenericWriter[metricsRow](w, parquet.Compression(&parquet.Zstd),
		parquet.CreatedBy("apeval", "", ""))
	if _, err := pw.Write(rows); err != nil {
		return err
	}
	return pw.Close()
}

// sampledMetricsRow is a metrics.parquet row of figures from a labeled
// sample (--labels): every column of metricsRow plus the label counts and
// the weighted confusion counts (null on the total row). Without --labels
// the file keeps metricsRow's columns only.
type sampledMetricsRow struct {
	metricsRow
	LabelsSampled *int64   `parquet:"labels_sampled,optional"`
	LabelsCensus  *int64   `parquet:"labels_census,optional"`
	LabelsDropped *int64   `parquet:"labels_dropped,optional"`
	TPWeighted    *float64 `parquet:"tp_weighted,optional"`
	FPWeighted    *float64 `parquet:"fp_weighted,optional"`
	FNWeighted    *float64 `parquet:"fn_weighted,optional"`
	TNWeighted    *float64 `parquet:"tn_weighted,optional"`
}

func writeSampledMetrics(w io.Writer, rows []metricsRow, samples []*metrics.RowSample) error {
	pw := parquet.NewGenericWriter[sampledMetricsRow](w, parquet.Compression(&parquet.Zstd),
		parquet.CreatedBy("apeval", "", ""))
	out := make([]sampledMetricsRow, len(rows))
	for i, m := range rows {
		out[i].metricsRow = m
		if sm := samples[i]; sm != nil {
			d := int64(sm.Dropped)
			out[i].LabelsSampled, out[i].LabelsCensus, out[i].LabelsDropped = &sm.Sampled, &sm.Census, &d
			out[i].TPWeighted, out[i].FPWeighted, out[i].FNWeighted, out[i].TNWeighted = &sm.TP, &sm.FP, &sm.FN, &sm.TN
		}
	}
	if _, err := pw.Write(out); err != nil {
		return err
	}
	return pw.Close()
}

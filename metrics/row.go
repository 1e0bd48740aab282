package metrics

import (
	"math"
	"strconv"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/replay"
)

// Row is one judge × rule, or the judge's total (RuleID "*"): the one
// definition of a figure row (see docs/internals.md, "Adding a figure").
// Each field is a figure, and its tags are every format's name for it:
// `json` its summary.json key (in field order), `parquet` its
// metrics.parquet column (name and options as parquet-go reads them;
// reports writes the file, the TSV and their column order from these
// tags; "-" for a field that is not a column). Pointer fields are nil
// when the metric does not apply. How each count is read off a pair's
// flags (count), summed into the total (add) and turned into a rate
// (rates) follows the type.
type Row struct {
	RuleID      string       `json:"rule_id" parquet:"rule_id,dict"`
	RuleVersion int          `json:"rule_version" parquet:"rule_version,optional"`
	Class       replay.Class `json:"class" parquet:"rule_class,optional,dict"`
	// Action is the rule's most severe action seen (escalations included;
	// ties by name), the same in whatever order results arrive; "" for the
	// total row.
	Action datasets.Action `json:"action" parquet:"action,optional,dict"`

	// Cases is the number of cases the judge replayed (the same on every
	// row of a judge).
	Cases int64 `json:"cases" parquet:"cases"`
	// InScope counts (case, rule) pairs in scope, `missing` pairs excluded.
	InScope int64 `json:"in_scope" parquet:"in_scope"`
	// Judged counts pairs sent to the judge (source judge, cache or failure).
	Judged int64 `json:"judged" parquet:"judged"`
	// Labeled counts in-scope pairs carrying a label.
	Labeled int64 `json:"labeled" parquet:"labeled"`
	// Missing counts `missing` pairs (a recording lacks the rule); they are
	// left out of every other figure.
	Missing int64 `json:"missing" parquet:"missing"`
	// CacheHits counts judged pairs answered from the cache.
	CacheHits int64 `json:"cache_hits" parquet:"cache_hits"`
	// EvidenceAltered counts judged pairs whose judge input changed text
	// the rule's condition refers to (an argument of the call masked or
	// cut: replay.RuleResult.EvidenceAltered); EvidenceAlteredRate is its
	// share of Judged, warned about above EvidenceAlteredWarn.
	EvidenceAltered     int64    `json:"evidence_altered" parquet:"evidence_altered"`
	EvidenceAlteredRate *float64 `json:"evidence_altered_rate" parquet:"evidence_altered_rate,optional"`
	Fired               int64    `json:"fired" parquet:"fired"`

	TP int64 `json:"tp" parquet:"tp"`
	FP int64 `json:"fp" parquet:"fp"`
	FN int64 `json:"fn" parquet:"fn"`
	TN int64 `json:"tn" parquet:"tn"`

	Precision     *float64 `json:"precision" parquet:"precision,optional"`
	PrecisionLo   *float64 `json:"precision_lo" parquet:"precision_lo,optional"`
	PrecisionHi   *float64 `json:"precision_hi" parquet:"precision_hi,optional"`
	PrecisionDeff *float64 `json:"precision_deff" parquet:"precision_deff,optional"`
	Recall        *float64 `json:"recall" parquet:"recall,optional"`
	RecallLo      *float64 `json:"recall_lo" parquet:"recall_lo,optional"`
	RecallHi      *float64 `json:"recall_hi" parquet:"recall_hi,optional"`
	RecallDeff    *float64 `json:"recall_deff" parquet:"recall_deff,optional"`

	// Unknown is the breakdown of judged pairs that are not match/no_match.
	Unknown         UnknownBreakdown `json:"unknown"`
	UnknownRate     *float64         `json:"unknown_rate" parquet:"unknown_rate,optional"`
	UnknownRateLo   *float64         `json:"unknown_rate_lo" parquet:"unknown_rate_lo,optional"`
	UnknownRateHi   *float64         `json:"unknown_rate_hi" parquet:"unknown_rate_hi,optional"`
	UnknownRateDeff *float64         `json:"unknown_rate_deff" parquet:"unknown_rate_deff,optional"`

	// JudgeRequired is, on the total row, the cases with at least one rule
	// needing the judge; on a rule row, the pairs of the rule that needed
	// it (= Judged). JudgeRequiredRate divides it by Cases (total row) or
	// InScope (rule row).
	JudgeRequired         int64    `json:"judge_required" parquet:"judge_required"`
	JudgeRequiredRate     *float64 `json:"judge_required_rate" parquet:"judge_required_rate,optional"`
	JudgeRequiredRateLo   *float64 `json:"judge_required_rate_lo" parquet:"judge_required_rate_lo,optional"`
	JudgeRequiredRateHi   *float64 `json:"judge_required_rate_hi" parquet:"judge_required_rate_hi,optional"`
	JudgeRequiredRateDeff *float64 `json:"judge_required_rate_deff" parquet:"judge_required_rate_deff,optional"`

	// Calls counts judge calls (failed calls included, cache hits included
	// at the latency stored with their answer); on a rule row, the calls
	// the rule was part of. CachedCalls says how many of the total row's
	// calls, and so of its latencies, came from the cache.
	Calls        int64    `json:"calls" parquet:"calls"`
	CachedCalls  int64    `json:"cached_calls" parquet:"cached_calls"`
	FailedCalls  int64    `json:"failed_calls" parquet:"failed_calls"`
	LatencyP50MS *float64 `json:"latency_p50_ms" parquet:"latency_p50_ms,optional"`
	LatencyP95MS *float64 `json:"latency_p95_ms" parquet:"latency_p95_ms,optional"`
	LatencyP99MS *float64 `json:"latency_p99_ms" parquet:"latency_p99_ms,optional"`
	// LatencyP95LoMS/HiMS: interval of the P95 at the configured
	// confidence, sessions as clusters (docs/statistics.md, "Latency over
	// sessions"); nil when the data do not bound it.
	LatencyP95LoMS *float64 `json:"latency_p95_lo_ms" parquet:"latency_p95_lo_ms,optional"`
	LatencyP95HiMS *float64 `json:"latency_p95_hi_ms" parquet:"latency_p95_hi_ms,optional"`
	// LatencyP50LoMS/HiMS: interval of the P50 by the same method.
	LatencyP50LoMS *float64 `json:"latency_p50_lo_ms" parquet:"latency_p50_lo_ms,optional"`
	LatencyP50HiMS *float64 `json:"latency_p50_hi_ms" parquet:"latency_p50_hi_ms,optional"`

	FireRate *float64 `json:"fire_rate" parquet:"fire_rate,optional"`

	// Repeats (--repeat N): FlipPairs counts pairs whose repeats answered
	// at least twice, Flips those whose answers were not all equal;
	// FlipRate = Flips/FlipPairs with its session-clustered interval. Nil
	// without repeats.
	FlipPairs    int64    `json:"flip_pairs,omitempty" parquet:"flip_pairs"`
	Flips        int64    `json:"flips,omitempty" parquet:"flips"`
	FlipRate     *float64 `json:"flip_rate,omitempty" parquet:"flip_rate,optional"`
	FlipRateLo   *float64 `json:"flip_rate_lo,omitempty" parquet:"flip_rate_lo,optional"`
	FlipRateHi   *float64 `json:"flip_rate_hi,omitempty" parquet:"flip_rate_hi,optional"`
	FlipRateDeff *float64 `json:"flip_rate_deff,omitempty" parquet:"flip_rate_deff,optional"`
	// Rule order (--shuffle-rules): the answers given with the rule first
	// and last in a call of two or more rules, and how many were match;
	// PositionEffect is the match rate first minus the match rate last,
	// with a Newcombe interval on the two clustered Wilson intervals.
	PositionFirst      int64    `json:"position_first,omitempty" parquet:"position_first"`
	PositionFirstMatch int64    `json:"position_first_match,omitempty" parquet:"position_first_match"`
	PositionLast       int64    `json:"position_last,omitempty" parquet:"position_last"`
	PositionLastMatch  int64    `json:"position_last_match,omitempty" parquet:"position_last_match"`
	PositionEffect     *float64 `json:"position_effect,omitempty" parquet:"position_effect,optional"`
	PositionEffectLo   *float64 `json:"position_effect_lo,omitempty" parquet:"position_effect_lo,optional"`
	PositionEffectHi   *float64 `json:"position_effect_hi,omitempty" parquet:"position_effect_hi,optional"`

	// Baseline recall (dangerous rules with a baseline): the deterministic
	// baseline's hits among the labeled positives that have a baseline.
	BaselinePositives int64    `json:"baseline_positives" parquet:"baseline_positives"`
	BaselineHits      int64    `json:"baseline_hits" parquet:"baseline_hits"`
	BaselineRecall    *float64 `json:"baseline_recall" parquet:"baseline_recall,optional"`
	// JudgeOnlyHits / BaselineOnlyHits are the discordant labeled positives
	// behind dangerous_recall_must_beat_baseline: caught by the rule's result
	// but not by the baseline, and the reverse.
	JudgeOnlyHits    int64 `json:"judge_only_hits" parquet:"judge_only_hits"`
	BaselineOnlyHits int64 `json:"baseline_only_hits" parquet:"baseline_only_hits"`

	// Approval: cases where request_approval fired (the rule's action on a
	// rule row, the case's gate action on the total row) with a recorded
	// outcome, and how many of those were denied or ignored.
	ApprovalOutcomes       int64    `json:"approval_outcomes" parquet:"approval_outcomes"`
	ApprovalRejected       int64    `json:"approval_rejected" parquet:"approval_rejected"`
	ApprovalRejectRate     *float64 `json:"approval_reject_rate" parquet:"approval_reject_rate,optional"`
	ApprovalRejectRateLo   *float64 `json:"approval_reject_rate_lo" parquet:"approval_reject_rate_lo,optional"`
	ApprovalRejectRateHi   *float64 `json:"approval_reject_rate_hi" parquet:"approval_reject_rate_hi,optional"`
	ApprovalRejectRateDeff *float64 `json:"approval_reject_rate_deff" parquet:"approval_reject_rate_deff,optional"`

	// <Figure>Deff is the design effect the figure's sessions show (see
	// docs/statistics.md): their variance of the pooled rate over
	// independent units', at least 1, exactly 1 when every session holds
	// one unit; nil when the figure has no units, or when its sessions
	// show no spread (every session at one rate). With few sessions the
	// interval is wider than it alone gives; the criterion's reason says
	// by how much (dataDeff).

	// post keeps each clustered figure's sessions (by lane) for the hints.
	post [ruleLanes]*bbPosterior
	// recall keeps the labeled positives with a baseline, per session
	// (dangerous recall's data), for a plan from a pilot run.
	recall *pairDiff
	// latP95 is the P95's interval as ranks, with its design effect.
	latP95 quantileAt
	// noLatency: the calls carry no recorded latency (unrecordedLatency);
	// the latency figures are nil and judge_p95_max N/A.
	noLatency bool

	Verdict Verdict `json:"verdict" parquet:"verdict,dict"`
	// Criteria evaluated at this row's scope: rule rows carry precision_min,
	// dangerous_recall_must_beat_baseline, unknown_rate_max,
	// approval_reject_rate_max and fire_rate_change_max; the total row
	// carries judge_p95_max, judge_required_rate_max and unknown_rate_max.
	Criteria []Criterion `json:"criteria" parquet:"-"`
	// Sample is the labeled-sample account of a rule row (ApplySample,
	// `--labels`); absent otherwise.
	Sample *RowSample `json:"sample,omitempty" parquet:"-"`
}

// EvidenceAlteredWarn is the share of a rule's judge inputs with altered
// evidence (Row.EvidenceAlteredRate) above which the judge's summary
// warns: beyond it a judge's figures on the rule describe text it was not
// shown.
const EvidenceAlteredWarn = 0.05

// percent formats a share as a percentage with up to one decimal.
func percent(x float64) string {
	return strconv.FormatFloat(math.Round(1000*x)/10, 'f', -1, 64) + " %"
}

// Criterion returns the row's criterion of that name, nil when it is not
// evaluated at this row's scope.
func (r *Row) Criterion(name string) *Criterion {
	for i := range r.Criteria {
		if r.Criteria[i].Name == name {
			return &r.Criteria[i]
		}
	}
	return nil
}

// Status returns the status of the named criterion for the
// `<criterion>_status` column, "" (null) when it is not evaluated at this
// row's scope.
func (r *Row) Status(name string) Status {
	if c := r.Criterion(name); c != nil {
		return c.Status
	}
	return ""
}

// UnknownBreakdown counts judged pairs by non-decisive status.
type UnknownBreakdown struct {
	Unknown int64 `json:"unknown" parquet:"unknown"`
	Invalid int64 `json:"invalid" parquet:"invalid"`
	Timeout int64 `json:"timeout" parquet:"timeout"`
	Error   int64 `json:"error" parquet:"error"`
}

// Total is the number of judged pairs that are not match/no_match.
func (u UnknownBreakdown) Total() int64 { return u.Unknown + u.Invalid + u.Timeout + u.Error }

// count adds an undecided judged pair to its status.
func (u *UnknownBreakdown) count(f uint64) {
	if f&bitUndecided == 0 {
		return
	}
	u.Invalid += has(f, bitInvalid)
	u.Timeout += has(f, bitTimeout)
	u.Error += has(f, bitError)
	u.Unknown += hasNot(f, 0, bitInvalid|bitTimeout|bitError)
}

// count adds one pair's counts (its flags, bit*; see accumulate.go) to a
// rule row. Each count is read off the flags here and nowhere else.
func (r *Row) count(f uint64) {
	if f&bitMissing != 0 {
		r.Missing++
		return
	}
	r.InScope++
	r.Judged += has(f, bitJudged)
	r.Labeled += has(f, bitPos) + has(f, bitNeg)
	r.CacheHits += has(f, bitCached)
	r.EvidenceAltered += has(f, bitJudged|bitEvidence)
	r.Fired += has(f, bitFired)
	r.TP += has(f, bitPos|bitMatch)
	r.FN += hasNot(f, bitPos, bitMatch)
	r.FP += has(f, bitNeg|bitMatch)
	r.TN += has(f, bitNeg|bitNoMatch)
	r.Unknown.count(f)
	r.BaselinePositives += has(f, bitBase)
	r.BaselineHits += has(f, bitBase|bitBaseHit)
	r.JudgeOnlyHits += hasNot(f, bitBase|bitMatch, bitBaseHit)
	r.BaselineOnlyHits += hasNot(f, bitBase|bitBaseHit, bitMatch)
	r.ApprovalOutcomes += has(f, bitApprOut)
	r.ApprovalRejected += has(f, bitApprOut|bitApprRej)
}

// add sums a rule row's counts into the total row (micro-averaging).
func (t *Row) add(r *Row) {
	t.InScope += r.InScope
	t.Judged += r.Judged
	t.Labeled += r.Labeled
	t.Missing += r.Missing
	t.CacheHits += r.CacheHits
	t.EvidenceAltered += r.EvidenceAltered
	t.Fired += r.Fired
	t.TP += r.TP
	t.FP += r.FP
	t.FN += r.FN
	t.TN += r.TN
	t.Unknown.Unknown += r.Unknown.Unknown
	t.Unknown.Invalid += r.Unknown.Invalid
	t.Unknown.Timeout += r.Unknown.Timeout
	t.Unknown.Error += r.Unknown.Error
	t.BaselinePositives += r.BaselinePositives
	t.BaselineHits += r.BaselineHits
	t.JudgeOnlyHits += r.JudgeOnlyHits
	t.BaselineOnlyHits += r.BaselineOnlyHits
}

// rates derives precision, recall, unknown rate, fire rate, baseline
// recall and approval reject rate from the row's counts; their intervals
// come from the sessions (setClustered).
func (r *Row) rates() {
	r.Precision = ratio(r.TP, r.TP+r.FP)
	r.Recall = ratio(r.TP, r.TP+r.FN)
	r.UnknownRate = ratio(r.Unknown.Total(), r.Judged)
	r.EvidenceAlteredRate = ratio(r.EvidenceAltered, r.Judged)
	r.FireRate = ratio(r.Fired, r.InScope)
	r.BaselineRecall = ratio(r.BaselineHits, r.BaselinePositives)
	r.ApprovalRejectRate = ratio(r.ApprovalRejected, r.ApprovalOutcomes)
}

// setClustered stores a clustered figure's interval and design effect
// (lane: lanePrec … laneAppr) and keeps its posterior for the hints.
func (r *Row) setClustered(lane int, c clustered) {
	r.post[lane] = c.post
	switch lane {
	case lanePrec:
		r.PrecisionLo, r.PrecisionHi, r.PrecisionDeff = c.lo, c.hi, c.deff
	case laneRec:
		r.RecallLo, r.RecallHi, r.RecallDeff = c.lo, c.hi, c.deff
	case laneUnk:
		r.UnknownRateLo, r.UnknownRateHi, r.UnknownRateDeff = c.lo, c.hi, c.deff
	case laneJR:
		r.JudgeRequiredRateLo, r.JudgeRequiredRateHi, r.JudgeRequiredRateDeff = c.lo, c.hi, c.deff
	case laneAppr:
		r.ApprovalRejectRateLo, r.ApprovalRejectRateHi, r.ApprovalRejectRateDeff = c.lo, c.hi, c.deff
	}
}

package metrics

import (
	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/replay"
)

// Row is the one definition of a figure row; see docs/internals.md,
// "Adding a figure". Its fields are the row's figures: their JSON keys
// (summary.json) and, in their tags, their metrics.parquet columns, which
// the Parquet writer and the tables read from here. How each count is
// read off a pair's flags (count), summed into the total (add) and turned
// into a rate (rates) follows the type.

// Row is one metrics.parquet row: a judge × rule, or the judge's total
// (RuleID "*"). Pointer fields are nil when the metric does not apply.
type Row struct {
	RuleID      string       `json:"rule_id"`
	RuleVersion int          `json:"rule_version"`
	Class       replay.Class `json:"class"`
	// Action is the rule's most severe action seen (escalations included;
	// ties by name), the same in whatever order results arrive; "" for the
	// total row.
	Action datasets.Action `json:"action"`

	// Cases is the number of cases the judge replayed (the same on every
	// row of a judge).
	Cases int64 `json:"cases"`
	// InScope counts (case, rule) pairs in scope, `missing` pairs excluded.
	InScope int64 `json:"in_scope"`
	// Judged counts pairs sent to the judge (source judge, cache or failure).
	Judged int64 `json:"judged"`
	// Labeled counts in-scope pairs carrying a label.
	Labeled int64 `json:"labeled"`
	// Missing counts `missing` pairs (a recording lacks the rule); they are
	// left out of every other figure.
	Missing int64 `json:"missing"`
	// CacheHits counts judged pairs answered from the cache.
	CacheHits int64 `json:"cache_hits"`
	Fired     int64 `json:"fired"`

	TP int64 `json:"tp"`
	FP int64 `json:"fp"`
	FN int64 `json:"fn"`
	TN int64 `json:"tn"`

	Precision     *float64 `json:"precision"`
	PrecisionLo   *float64 `json:"precision_lo"`
	PrecisionHi   *float64 `json:"precision_hi"`
	PrecisionDeff *float64 `json:"precision_deff"`
	Recall        *float64 `json:"recall"`
	RecallLo      *float64 `json:"recall_lo"`
	RecallHi      *float64 `json:"recall_hi"`
	RecallDeff    *float64 `json:"recall_deff"`

	// Unknown is the breakdown of judged pairs that are not match/no_match.
	Unknown         UnknownBreakdown `json:"unknown"`
	UnknownRate     *float64         `json:"unknown_rate"`
	UnknownRateLo   *float64         `json:"unknown_rate_lo"`
	UnknownRateHi   *float64         `json:"unknown_rate_hi"`
	UnknownRateDeff *float64         `json:"unknown_rate_deff"`

	// JudgeRequired is, on the total row, the cases with at least one rule
	// needing the judge; on a rule row, the pairs of the rule that needed
	// it (= Judged). JudgeRequiredRate divides it by Cases (total row) or
	// InScope (rule row).
	JudgeRequired         int64    `json:"judge_required"`
	JudgeRequiredRate     *float64 `json:"judge_required_rate"`
	JudgeRequiredRateLo   *float64 `json:"judge_required_rate_lo"`
	JudgeRequiredRateHi   *float64 `json:"judge_required_rate_hi"`
	JudgeRequiredRateDeff *float64 `json:"judge_required_rate_deff"`

	// Calls counts judge calls (failed calls included, cache hits included
	// at the latency stored with their answer); on a rule row, the calls
	// the rule was part of. CachedCalls says how many of the total row's
	// calls, and so of its latencies, came from the cache.
	Calls        int64    `json:"calls"`
	CachedCalls  int64    `json:"cached_calls"`
	FailedCalls  int64    `json:"failed_calls"`
	LatencyP50MS *float64 `json:"latency_p50_ms"`
	LatencyP95MS *float64 `json:"latency_p95_ms"`
	LatencyP99MS *float64 `json:"latency_p99_ms"`
	// LatencyP95LoMS/HiMS: distribution-free interval of the P95 at the
	// configured confidence; nil when too few calls bound it.
	LatencyP95LoMS *float64 `json:"latency_p95_lo_ms"`
	LatencyP95HiMS *float64 `json:"latency_p95_hi_ms"`

	FireRate *float64 `json:"fire_rate"`

	// Repeats (--repeat N): FlipPairs counts pairs whose repeats answered
	// at least twice, Flips those whose answers were not all equal;
	// FlipRate = Flips/FlipPairs with its session-clustered interval. Nil
	// without repeats.
	FlipPairs    int64    `json:"flip_pairs,omitempty"`
	Flips        int64    `json:"flips,omitempty"`
	FlipRate     *float64 `json:"flip_rate,omitempty"`
	FlipRateLo   *float64 `json:"flip_rate_lo,omitempty"`
	FlipRateHi   *float64 `json:"flip_rate_hi,omitempty"`
	FlipRateDeff *float64 `json:"flip_rate_deff,omitempty"`
	// Rule order (--shuffle-rules): the answers given with the rule first
	// and last in a call of two or more rules, and how many were match;
	// PositionEffect is the match rate first minus the match rate last,
	// with a Newcombe interval on the two clustered Wilson intervals.
	PositionFirst      int64    `json:"position_first,omitempty"`
	PositionFirstMatch int64    `json:"position_first_match,omitempty"`
	PositionLast       int64    `json:"position_last,omitempty"`
	PositionLastMatch  int64    `json:"position_last_match,omitempty"`
	PositionEffect     *float64 `json:"position_effect,omitempty"`
	PositionEffectLo   *float64 `json:"position_effect_lo,omitempty"`
	PositionEffectHi   *float64 `json:"position_effect_hi,omitempty"`

	// Baseline recall (dangerous rules with a baseline): the deterministic
	// baseline's hits among the labeled positives that have a baseline.
	BaselinePositives int64    `json:"baseline_positives"`
	BaselineHits      int64    `json:"baseline_hits"`
	BaselineRecall    *float64 `json:"baseline_recall"`
	// JudgeOnlyHits / BaselineOnlyHits are the discordant labeled positives
	// behind dangerous_recall_must_beat_baseline: caught by the rule's result
	// but not by the baseline, and the reverse.
	JudgeOnlyHits    int64 `json:"judge_only_hits"`
	BaselineOnlyHits int64 `json:"baseline_only_hits"`

	// Approval: cases where request_approval fired (the rule's action on a
	// rule row, the case's gate action on the total row) with a recorded
	// outcome, and how many of those were denied or ignored.
	ApprovalOutcomes       int64    `json:"approval_outcomes"`
	ApprovalRejected       int64    `json:"approval_rejected"`
	ApprovalRejectRate     *float64 `json:"approval_reject_rate"`
	ApprovalRejectRateLo   *float64 `json:"approval_reject_rate_lo"`
	ApprovalRejectRateHi   *float64 `json:"approval_reject_rate_hi"`
	ApprovalRejectRateDeff *float64 `json:"approval_reject_rate_deff"`

	// <Figure>Deff says how much clustering by session widened the
	// figure's interval (see docs/statistics.md): (width / plain Wilson's
	// width on the same units)², at least 1, exactly 1 when every session
	// holds one unit; nil when the figure has no units.

	// post keeps each clustered figure's sessions (by lane) for the hints.
	post [ruleLanes]*bbPosterior

	Verdict Verdict `json:"verdict"`
	// Criteria evaluated at this row's scope: rule rows carry precision_min,
	// dangerous_recall_must_beat_baseline, unknown_rate_max,
	// approval_reject_rate_max and fire_rate_change_max; the total row
	// carries judge_p95_max, judge_required_rate_max and unknown_rate_max.
	Criteria []Criterion `json:"criteria"`
	// Sample is the labeled-sample account of a rule row (ApplySample,
	// `--labels`); absent otherwise.
	Sample *RowSample `json:"sample,omitempty"`
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
	Unknown int64 `json:"unknown"`
	Invalid int64 `json:"invalid"`
	Timeout int64 `json:"timeout"`
	Error   int64 `json:"error"`
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

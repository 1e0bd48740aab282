package simulate

import "github.com/apeval/apeval/metrics"

// Row is one configuration × rule of a simulation (RuleID "*": every rule
// of the configuration, micro-averaged, case-level figures per case). A
// figure that does not apply is nil. Intervals are metrics.ClusteredInterval
// over sessions at the run's confidence; approvals per session has a t
// interval over sessions. VsDeployed compares the row with the deployed
// configuration's same rule on the same units (metrics.PairedBinary).
type Row struct {
	Config    string   `json:"config" parquet:"config,dict"`
	Kind      string   `json:"kind" parquet:"kind,dict"`
	Base      string   `json:"base" parquet:"base,dict"`
	Judges    []string `json:"judges" parquet:"judges,list"`
	Deployed  bool     `json:"deployed" parquet:"deployed"`
	TimeoutMS *float64 `json:"timeout_ms" parquet:"timeout_ms,optional"`
	OnFailure string   `json:"on_failure" parquet:"on_failure,dict"`
	RuleID    string   `json:"rule_id" parquet:"rule_id,dict"`
	Class     string   `json:"class" parquet:"class,dict"`

	Cases     int64 `json:"cases" parquet:"cases"`
	Sessions  int64 `json:"sessions" parquet:"sessions"`
	InScope   int64 `json:"in_scope" parquet:"in_scope"`
	Judged    int64 `json:"judged" parquet:"judged"`
	TimedOut  int64 `json:"timed_out" parquet:"timed_out"`
	Positives int64 `json:"positives" parquet:"positives"`
	TP        int64 `json:"tp" parquet:"tp"`
	FP        int64 `json:"fp" parquet:"fp"`
	FN        int64 `json:"fn" parquet:"fn"`
	TN        int64 `json:"tn" parquet:"tn"`

	Precision             *float64 `json:"precision" parquet:"precision,optional"`
	PrecisionLo           *float64 `json:"precision_lo" parquet:"precision_lo,optional"`
	PrecisionHi           *float64 `json:"precision_hi" parquet:"precision_hi,optional"`
	Recall                *float64 `json:"recall" parquet:"recall,optional"`
	RecallLo              *float64 `json:"recall_lo" parquet:"recall_lo,optional"`
	RecallHi              *float64 `json:"recall_hi" parquet:"recall_hi,optional"`
	UnknownRate           *float64 `json:"unknown_rate" parquet:"unknown_rate,optional"`
	UnknownRateLo         *float64 `json:"unknown_rate_lo" parquet:"unknown_rate_lo,optional"`
	UnknownRateHi         *float64 `json:"unknown_rate_hi" parquet:"unknown_rate_hi,optional"`
	FireRate              *float64 `json:"fire_rate" parquet:"fire_rate,optional"`
	FireRateLo            *float64 `json:"fire_rate_lo" parquet:"fire_rate_lo,optional"`
	FireRateHi            *float64 `json:"fire_rate_hi" parquet:"fire_rate_hi,optional"`
	FailOpenRate          *float64 `json:"fail_open_rate" parquet:"fail_open_rate,optional"`
	FailOpenRateLo        *float64 `json:"fail_open_rate_lo" parquet:"fail_open_rate_lo,optional"`
	FailOpenRateHi        *float64 `json:"fail_open_rate_hi" parquet:"fail_open_rate_hi,optional"`
	EffectiveRecall       *float64 `json:"effective_recall" parquet:"effective_recall,optional"`
	EffectiveRecallLo     *float64 `json:"effective_recall_lo" parquet:"effective_recall_lo,optional"`
	EffectiveRecallHi     *float64 `json:"effective_recall_hi" parquet:"effective_recall_hi,optional"`
	FrictionPer100        *float64 `json:"friction_per_100" parquet:"friction_per_100,optional"`
	FrictionPer100Lo      *float64 `json:"friction_per_100_lo" parquet:"friction_per_100_lo,optional"`
	FrictionPer100Hi      *float64 `json:"friction_per_100_hi" parquet:"friction_per_100_hi,optional"`
	ApprovalsPerSession   *float64 `json:"approvals_per_session" parquet:"approvals_per_session,optional"`
	ApprovalsPerSessionLo *float64 `json:"approvals_per_session_lo" parquet:"approvals_per_session_lo,optional"`
	ApprovalsPerSessionHi *float64 `json:"approvals_per_session_hi" parquet:"approvals_per_session_hi,optional"`

	// BlockedUnlabeled counts the rule's unlabeled calls it blocked or sent
	// for approval ("*": cases whose blocking fires are unlabeled, no
	// labeled positive among them); when > 0, friction and its delta are
	// null: labels cannot tell them.
	BlockedUnlabeled int64 `json:"blocked_unlabeled" parquet:"blocked_unlabeled"`

	// Judge calls and cost: "*" rows only.
	JudgeCalls            []int64  `json:"judge_calls,omitempty" parquet:"judge_calls,list"` // cases each judge of Judges was asked on
	CalledCases           int64    `json:"called_cases" parquet:"called_cases"`
	LatencyP50MS          *float64 `json:"latency_p50_ms" parquet:"latency_p50_ms,optional"`
	LatencyP50LoMS        *float64 `json:"latency_p50_lo_ms" parquet:"latency_p50_lo_ms,optional"`
	LatencyP50HiMS        *float64 `json:"latency_p50_hi_ms" parquet:"latency_p50_hi_ms,optional"`
	LatencyP95MS          *float64 `json:"latency_p95_ms" parquet:"latency_p95_ms,optional"`
	LatencyP95LoMS        *float64 `json:"latency_p95_lo_ms" parquet:"latency_p95_lo_ms,optional"`
	LatencyP95HiMS        *float64 `json:"latency_p95_hi_ms" parquet:"latency_p95_hi_ms,optional"`
	TokensPer1k           *float64 `json:"tokens_per_1k_tool_calls" parquet:"tokens_per_1k_tool_calls,optional"`
	CostPer1k             *float64 `json:"cost_per_1k_tool_calls" parquet:"cost_per_1k_tool_calls,optional"`
	EffectiveRecallStatus string   `json:"effective_recall_min_status" parquet:"effective_recall_min_status,dict"` // PASS, FAIL, INCONCLUSIVE, N/A, or "" when the criterion is off

	// Against the deployed configuration, same rule, same units.
	EffectiveRecallDelta   *float64 `json:"effective_recall_delta" parquet:"effective_recall_delta,optional"`
	EffectiveRecallDeltaLo *float64 `json:"effective_recall_delta_lo" parquet:"effective_recall_delta_lo,optional"`
	EffectiveRecallDeltaHi *float64 `json:"effective_recall_delta_hi" parquet:"effective_recall_delta_hi,optional"`
	EffectiveRecallP       *float64 `json:"effective_recall_p" parquet:"effective_recall_p,optional"`
	FrictionDelta          *float64 `json:"friction_per_100_delta" parquet:"friction_per_100_delta,optional"`
	FrictionDeltaLo        *float64 `json:"friction_per_100_delta_lo" parquet:"friction_per_100_delta_lo,optional"`
	FrictionDeltaHi        *float64 `json:"friction_per_100_delta_hi" parquet:"friction_per_100_delta_hi,optional"`
	FrictionP              *float64 `json:"friction_per_100_p" parquet:"friction_per_100_p,optional"`

	// VsDeployed holds every paired figure in full (JSON only): recall,
	// fire_rate, effective_recall, friction (as a rate of tool calls).
	VsDeployed []metrics.Figure `json:"vs_deployed,omitempty" parquet:"-"`

	// LabelSource is "weak" on every row of a simulation of a run on weak
	// labels (run --weak-labels): its recall, precision, effective recall
	// and friction rest on users' overrides. Parquet only; the JSON says
	// it once, at Result.LabelSource.
	LabelSource string `json:"-" parquet:"label_source,optional,dict"`
}

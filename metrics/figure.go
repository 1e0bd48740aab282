package metrics

// Figure is one figure of a baseline-vs-candidate comparison (one paired test).
// Pointers are nil (JSON null) where a value does not apply or has no data.
type Figure struct {
	Figure              string   `json:"figure"` // recall, false_positive_rate, unknown_rate, fire_rate, precision, latency_p50_ms, latency_p95_ms
	Baseline            *float64 `json:"baseline"`
	Candidate           *float64 `json:"candidate"`
	Delta               *float64 `json:"delta"` // candidate - baseline
	DeltaLo             *float64 `json:"delta_lo"`
	DeltaHi             *float64 `json:"delta_hi"`
	PValue              *float64 `json:"p_value"`
	N                   int64    `json:"n"`    // units the test used
	Test                string   `json:"test"` // mcnemar_exact, mcnemar_clustered, bootstrap_sessions, mann_whitney
	DiscordantBaseline  *int64   `json:"discordant_baseline"`
	DiscordantCandidate *int64   `json:"discordant_candidate"`
}

// Significant reports whether the difference is marked (p < 1 - confidence).
func (f Figure) Significant(confidence float64) bool {
	return f.PValue != nil && *f.PValue < 1-confidence
}

// SliceComparison is the comparison restricted to the cases of one slice
// value (Slice is "tag", "tool" or "category"); the total of the slice value
// has RuleID "*".
type SliceComparison struct {
	Slice string            `json:"slice"`
	Value string            `json:"value"`
	Rules []*RuleComparison `json:"rules"`
}

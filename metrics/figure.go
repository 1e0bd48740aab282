package metrics

// Figure is one figure of a baseline-vs-candidate comparison (one paired test).
// Pointers are nil (JSON null) where a value does not apply or has no data.
type Figure struct {
	Figure    string   `json:"figure" parquet:"figure,dict"` // recall, false_positive_rate, unknown_rate, fire_rate, precision, latency_p50_ms, latency_p95_ms, latency_shift
	Baseline  *float64 `json:"baseline" parquet:"baseline,optional"`
	Candidate *float64 `json:"candidate" parquet:"candidate,optional"`
	Delta     *float64 `json:"delta" parquet:"delta,optional"` // candidate - baseline
	DeltaLo   *float64 `json:"delta_lo" parquet:"delta_lo,optional"`
	DeltaHi   *float64 `json:"delta_hi" parquet:"delta_hi,optional"`
	PValue    *float64 `json:"p_value" parquet:"p_value,optional"`
	// QValue is the Benjamini–Hochberg q-value of PValue over every test
	// of the comparison (rules × figures × slices; Comparison.Tests); the
	// tables mark by it.
	QValue *float64 `json:"q_value" parquet:"q_value,optional"`
	// PValueMCError is the Monte Carlo standard error of PValue when the
	// sign-flip test was not exact; nil when it was.
	PValueMCError *float64 `json:"p_value_mc_error" parquet:"p_value_mc_error,optional"`
	N             int64    `json:"n" parquet:"n"` // units the test used
	// NBaseline and NCandidate split N for the unpaired latency figures
	// (shown as n_B+n_C); nil for the paired ones.
	NBaseline           *int64 `json:"n_baseline" parquet:"n_baseline,optional"`
	NCandidate          *int64 `json:"n_candidate" parquet:"n_candidate,optional"`
	Test                string `json:"test" parquet:"test,dict"` // sign_flip_sessions, delta_t_sessions, bootstrap_calls, mann_whitney
	DiscordantBaseline  *int64 `json:"discordant_baseline" parquet:"discordant_baseline,optional"`
	DiscordantCandidate *int64 `json:"discordant_candidate" parquet:"discordant_candidate,optional"`
}

// Significant reports whether the difference is marked: its q-value (its
// p-value when it has none) below 1 − confidence, with 1 − confidence
// rounded to 12 decimals so that a value of exactly 0.05 is treated alike
// at every level (unmarked).
func (f Figure) Significant(confidence float64) bool {
	v := f.QValue
	if v == nil {
		v = f.PValue
	}
	return v != nil && *v < alphaOf(confidence)
}

// SliceComparison is the comparison restricted to the cases of one slice
// value (Slice is "tag", "tool" or "category"); the total of the slice value
// has RuleID "*".
type SliceComparison struct {
	Slice string            `json:"slice"`
	Value string            `json:"value"`
	Rules []*RuleComparison `json:"rules"`
}

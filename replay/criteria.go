package replay

import "time"

// KillCriteria are the go/no-go thresholds (docs/policy.md, Kill criteria), read from the
// policy's [kill_criteria] table or --criteria FILE. Fields are plain values;
// DefaultKillCriteria gives the seed's numbers so a field can be added
// without touching call sites.
type KillCriteria struct {
	PrecisionMin                    float64       `toml:"precision_min"`
	DangerousRecallMustBeatBaseline bool          `toml:"dangerous_recall_must_beat_baseline"`
	JudgeP95Max                     time.Duration `toml:"-"` // parsed from judge_p95_max = "1s"
	JudgeRequiredRateMax            float64       `toml:"judge_required_rate_max"`
	UnknownRateMax                  float64       `toml:"unknown_rate_max"`
	ApprovalRejectRateMax           float64       `toml:"approval_reject_rate_max"`
	FireRateChangeMax               float64       `toml:"fire_rate_change_max"`
	// EffectiveRecallMin is the minimum effective recall in a hook (labeled
	// positives the gate acted on, fail-open timeouts missed): decided by
	// `apeval simulate`, which re-plays the run against a hook timeout
	// (docs/simulate.md); 0, the default, is off.
	EffectiveRecallMin float64 `toml:"effective_recall_min"`
	Confidence         float64 `toml:"confidence"`
}

// DefaultKillCriteria returns the default thresholds of docs/policy.md at 95 % confidence.
func DefaultKillCriteria() KillCriteria {
	return KillCriteria{
		PrecisionMin:                    0.90,
		DangerousRecallMustBeatBaseline: true,
		JudgeP95Max:                     time.Second,
		JudgeRequiredRateMax:            0.20,
		UnknownRateMax:                  0.10,
		ApprovalRejectRateMax:           0.50,
		FireRateChangeMax:               0.05,
		Confidence:                      0.95,
	}
}

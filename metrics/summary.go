package metrics

import (
	"math"
	"time"

	"github.com/apeval/apeval/internal/spill"
	"github.com/apeval/apeval/replay"
)

// Verdict is the go/no-go outcome of a rule, a judge or a run (see docs/statistics.md).
type Verdict string

// Verdicts, from best to worst.
const (
	VerdictGo           Verdict = "GO"
	VerdictInconclusive Verdict = "INCONCLUSIVE"
	VerdictNoGo         Verdict = "NO-GO"
	// VerdictError is a judge whose setup is broken (half or more of its
	// calls failed with one setup-class cause, judge.Cause.Setup): it has no
	// verdict, and neither has a run with such a judge (exit 2).
	VerdictError Verdict = "ERROR"
)

// Status is the outcome of one kill criterion (see docs/statistics.md).
type Status string

// Criterion statuses.
const (
	StatusPass         Status = "PASS"
	StatusFail         Status = "FAIL"
	StatusInconclusive Status = "INCONCLUSIVE"
	// StatusNA means the criterion had no data to be judged on; it does not
	// move the verdict and its Reason says why.
	StatusNA Status = "N/A"
)

// Kill criteria names (see docs/statistics.md), also the prefix of the
// `<criterion>_status` columns of metrics.parquet.
const (
	CriterionPrecisionMin          = "precision_min"
	CriterionDangerousRecall       = "dangerous_recall_must_beat_baseline"
	CriterionJudgeP95Max           = "judge_p95_max"
	CriterionJudgeRequiredRateMax  = "judge_required_rate_max"
	CriterionUnknownRateMax        = "unknown_rate_max"
	CriterionApprovalRejectRateMax = "approval_reject_rate_max"
	CriterionFireRateChangeMax     = "fire_rate_change_max"
)

// AllRules is the RuleID of a judge's total row (micro-averaged over its rules).
const AllRules = "*"

// Config says how results are judged.
type Config struct {
	Criteria replay.KillCriteria
	// Baseline is the judge identity (Result.Judge) that candidates are
	// compared with for fire_rate_change_max; "" means no baseline.
	Baseline string
	// Judges optionally fixes the report order of judges (e.g. the order of
	// --judge flags). Judges not listed follow, the baseline first, then by
	// identity; the order never depends on the order results arrive in.
	Judges []string
	// PolicyRules lists the policy's rule IDs: a rule no case had in scope
	// gets no row, so it is listed in JudgeSummary.NeverInScope with its
	// reason, and warned about, instead of vanishing.
	PolicyRules []string
	// Seed seeds the comparison bootstraps (see docs/statistics.md); 0 means 1.
	Seed uint64
	// Slices adds per-slice summaries (SliceTag, SliceTool, SliceCategory;
	// `--by`), in this order.
	Slices []string
	// DistinctCases says that each case's results arrive together (one
	// after the other, judge by judge) and that a case never comes back,
	// as `apeval run` replays them: cases are then numbered as they come,
	// without keeping their IDs. A case that did come back later would
	// count as another case.
	DistinctCases bool
	// CheckDistinct numbers cases as they come, as DistinctCases does, and
	// checks that the guess holds: every new case's ID goes into an exact
	// duplicate-ID check in bounded memory (datasets.IDSet). After the last
	// Add, Distinct says whether no case came back after another case's
	// results; only then is the Summary the one an accumulator keeping
	// every case ID would give, else the caller feeds the results again to
	// one without (see docs/scale.md, "Memory").
	CheckDistinct bool
	// PairedStreams, with CheckDistinct and without Slices, is for results
	// from two runs of the same cases read at once (compare), given with
	// AddFrom: each stream's cases are numbered as they come, and the k-th
	// case of either stream is checked to be the k-th of the other (the
	// same case ID and session ID), so no table of case IDs is kept;
	// Distinct says whether that held.
	PairedStreams bool
	// SpillDir is where the temporary file of per-case data goes ("" for
	// the system's temporary directory); SpillBudget the bytes of it held
	// in memory (0: spill.DefaultBudget; negative: no limit, no file).
	SpillDir    string
	SpillBudget int64
}

// Thresholds is replay.KillCriteria in the summary's JSON form.
type Thresholds struct {
	PrecisionMin                    float64 `json:"precision_min"`
	DangerousRecallMustBeatBaseline bool    `json:"dangerous_recall_must_beat_baseline"`
	JudgeP95MaxMS                   float64 `json:"judge_p95_max_ms"`
	JudgeRequiredRateMax            float64 `json:"judge_required_rate_max"`
	UnknownRateMax                  float64 `json:"unknown_rate_max"`
	ApprovalRejectRateMax           float64 `json:"approval_reject_rate_max"`
	FireRateChangeMax               float64 `json:"fire_rate_change_max"`
	// EffectiveRecallMin is decided by apeval simulate only; 0 (omitted) is off.
	EffectiveRecallMin float64 `json:"effective_recall_min,omitempty"`
	Confidence         float64 `json:"confidence"`
}

// ThresholdsOf is c in the summary's (and run.json's) JSON form.
func ThresholdsOf(c replay.KillCriteria) Thresholds {
	return Thresholds{
		PrecisionMin:                    c.PrecisionMin,
		DangerousRecallMustBeatBaseline: c.DangerousRecallMustBeatBaseline,
		JudgeP95MaxMS:                   float64(c.JudgeP95Max.Nanoseconds()) / 1e6,
		JudgeRequiredRateMax:            c.JudgeRequiredRateMax,
		UnknownRateMax:                  c.UnknownRateMax,
		ApprovalRejectRateMax:           c.ApprovalRejectRateMax,
		FireRateChangeMax:               c.FireRateChangeMax,
		EffectiveRecallMin:              c.EffectiveRecallMin,
		Confidence:                      c.Confidence,
	}
}

// KillCriteria is t as the replay.KillCriteria it was made from.
func (t Thresholds) KillCriteria() replay.KillCriteria {
	return replay.KillCriteria{
		PrecisionMin:                    t.PrecisionMin,
		DangerousRecallMustBeatBaseline: t.DangerousRecallMustBeatBaseline,
		JudgeP95Max:                     time.Duration(math.Round(t.JudgeP95MaxMS * 1e6)),
		JudgeRequiredRateMax:            t.JudgeRequiredRateMax,
		UnknownRateMax:                  t.UnknownRateMax,
		ApprovalRejectRateMax:           t.ApprovalRejectRateMax,
		FireRateChangeMax:               t.FireRateChangeMax,
		EffectiveRecallMin:              t.EffectiveRecallMin,
		Confidence:                      t.Confidence,
	}
}

// Summary is everything metrics computed over a run: one entry per judge,
// each with a total row and one row per rule, the kill-criteria results and
// the verdicts. Reports only format it; summary.json is its JSON form.
type Summary struct {
	Thresholds Thresholds `json:"thresholds"`
	// Baseline is Config.Baseline ("" when none).
	Baseline string `json:"baseline"`
	// Verdict is the run's verdict: the worst verdict over the candidate
	// judges (every judge but the baseline; the baseline's own when it is
	// the only judge). See docs/statistics.md.
	Verdict Verdict `json:"verdict"`
	// Judges in Config.Judges order, then the baseline, then by identity.
	Judges []*JudgeSummary `json:"judges"`
	// Comparisons holds baseline vs candidate for every candidate judge when
	// a baseline judge was configured and present; empty otherwise.
	Comparisons []*Comparison `json:"comparisons"`
	Warnings    []string      `json:"warnings"`
	// LabelNotes are the warnings --labels added (how many labels match a
	// pair of the results, pairs several people labeled), also in Warnings:
	// gate, which prints no table notes, repeats them on stderr.
	LabelNotes []string `json:"-"`
	// Slices: the summary of each slice value when Config.Slices is set
	// (`--by`); absent otherwise.
	Slices []*SliceSummary `json:"slices,omitempty"`
	// Sample is set when the figures come from a labeled sample
	// (ApplySample, `--labels`); absent otherwise.
	Sample *SampleInfo `json:"sample,omitempty"`

	sample *sampleState
	// paired per-case decisions for Compare; never serialized.
	paired map[string]*judgePairs
	conf   float64
	crit   replay.KillCriteria
	sm     sessMap // dense session index of a record's session
	nSess  int     // sessions (dense indices)
	pool   *spill.Pool
	seed   uint64
	// contig: the run's sessions are contiguous in case order (see
	// sessSums), so a pass over one list completes each session in turn.
	contig bool
}

// JudgeSummary is one judge (one identity) over the run.
type JudgeSummary struct {
	Judge         string `json:"judge"`
	Model         string `json:"model"`
	ModelDigest   string `json:"model_digest"`
	PromptVersion string `json:"prompt_version"`
	// RunIDs lists the run IDs seen for this judge, sorted (more than one
	// when runs were fed together); RunID is the first of them.
	RunID      string   `json:"run_id"`
	RunIDs     []string `json:"run_ids"`
	IsBaseline bool     `json:"is_baseline"`
	// Verdict is the worst of the judge-level criteria and the verdicts of
	// the judge's rules; Total.Verdict carries the same value.
	Verdict Verdict `json:"verdict"`
	// JudgeVerdict is the verdict on the criteria the judge controls (every
	// criterion but the policy ones, CriterionSpec.Policy); PolicyVerdict
	// the verdict of the policy criteria on its data — the same for every
	// judge: what blocks the feature whatever judge is chosen. Verdict is
	// the worse of the two (docs/statistics.md, Verdict).
	JudgeVerdict  Verdict `json:"judge_verdict"`
	PolicyVerdict Verdict `json:"policy_verdict"`
	// SetupError names the cause when Verdict is ERROR: "33 of 33 calls
	// failed with HTTP 404 (wrong URL or model name)"; "" otherwise.
	SetupError string `json:"setup_error,omitempty"`
	// Total is the rule_id "*" row: micro-averaged counts over all rules,
	// judge-level latency, judge-required rate and the judge-level criteria.
	Total *Row `json:"total"`
	// Rules sorted by rule ID.
	Rules []*Row `json:"rules"`
	// NeverInScope lists the policy's rules (Config.PolicyRules) that no
	// case replayed by this judge had in scope: no row, no verdict, and the
	// reason.
	NeverInScope []NeverInScope `json:"never_in_scope"`
	Warnings     []string       `json:"warnings"`
	// Latencies are the judge's call latencies in milliseconds, ascending
	// (a cache hit at the latency stored with it, failed calls kept): what the latency
	// figures were computed from, kept for the latency CDF chart. Not in
	// summary.json.
	Latencies []float64 `json:"-"`
}

// NeverInScope is a policy rule without a row, and why.
type NeverInScope struct {
	RuleID string `json:"rule_id"`
	Reason string `json:"reason"`
}

// Criterion is one kill criterion evaluated on one row.
type Criterion struct {
	Name   string `json:"name"`
	Status Status `json:"status"`
	// Estimate and its interval at the configured confidence; nil when
	// there is no data. Units: a proportion (0..1), a difference of
	// proportions, or milliseconds for judge_p95_max.
	Estimate *float64 `json:"estimate"`
	Lo       *float64 `json:"lo"`
	Hi       *float64 `json:"hi"`
	// Bounds names Lo and Hi where they are not a two-sided interval at
	// the configured confidence: dangerous recall's are the two one-sided
	// bounds that invert its one-sided test ("one-sided 95% bounds"; at
	// Holm's level for the rule when the judge has several dangerous
	// rules).
	Bounds string `json:"bounds,omitempty"`
	// Threshold from the kill criteria (milliseconds for judge_p95_max; 0
	// for dangerous_recall_must_beat_baseline: the difference must exceed 0).
	Threshold float64 `json:"threshold"`
	// N is the sample size the estimate rests on (the denominator, the
	// number of live calls, or the paired cases).
	N int64 `json:"n"`
	// PValue of the test behind the status (dangerous recall's one-sided
	// sign-flip test), nil otherwise; PAdjusted is it after Adjustment
	// ("holm": across the judge's dangerous rules), which decides PASS.
	PValue     *float64 `json:"p_value"`
	PAdjusted  *float64 `json:"p_adjusted"`
	Adjustment string   `json:"adjustment,omitempty"`
	// SamplesNeeded is, for an INCONCLUSIVE proportion, the smallest sample
	// size N at which the interval would clear the threshold at the same
	// observed rate; MoreSamples = SamplesNeeded − N. Nil when not
	// computable (the estimate is on the bad side or at the threshold).
	SamplesNeeded *int64 `json:"samples_needed"`
	MoreSamples   *int64 `json:"more_samples"`
	// MoreSessions is, on the unweighted path, how many new sessions of
	// the observed sizes MoreSamples stands for: the hint is sized for
	// data that arrive as new sessions (SessionsToDecide for a
	// proportion, SessionsToDecideAll for drift, SessionsToGain for
	// dangerous recall). On figures from labels, the new sessions when
	// labels alone cannot decide; a census-labeled run's has no MoreSamples.
	MoreSessions *int64 `json:"more_sessions,omitempty"`
	// MoreUnit names what MoreSamples counts when it is not raw samples:
	// "labels" (to add from the labeling queue) on figures from a labeled
	// sample; absent otherwise.
	MoreUnit string `json:"more_unit,omitempty"`
	// MoreLabelsQueue is, when a labeled figure's hint in sessions counts
	// the labels of one queue of the new run, its command: `apeval label
	// queue NEW_RUN --rule R --matches J`, every match prediction of the
	// judge (a precision whose judge made few); absent otherwise (labels
	// at the queue's rate).
	MoreLabelsQueue string `json:"more_labels_queue,omitempty"`
	// Reason says, in a sentence, why the status is what it is.
	Reason string `json:"reason"`
	// gain keeps dangerous recall's discordance for its hint, hint the
	// clause the hint added to Reason (holmDangerous sizes it again).
	gain *GainInputs
	hint string
	// gainEv is dangerous recall's test and what gives its bounds at
	// another level (holmDangerous decides it again at Holm's).
	gainEv *gainEvidence
	// few is the sessions a session-clustered criterion rested on when
	// they were too few to decide it (FewSessions), 0 otherwise: its
	// hint asks for at least the sessions up to MinSessions.
	few float64
}

// Judge returns the summary of the judge with that identity, nil if absent.
func (s *Summary) Judge(identity string) *JudgeSummary {
	for _, j := range s.Judges {
		if j.Judge == identity {
			return j
		}
	}
	return nil
}

// Rule returns the judge's row for ruleID ("*" gives Total), nil if absent.
func (j *JudgeSummary) Rule(ruleID string) *Row {
	if ruleID == AllRules {
		return j.Total
	}
	for _, r := range j.Rules {
		if r.RuleID == ruleID {
			return r
		}
	}
	return nil
}

// Comparison is baseline vs candidate for one pair of judges (issue 5):
// per rule and overall, the two judges' rows, deltas, an exact McNemar test
// on paired decisions and the fire-rate change against fire_rate_change_max.
type Comparison struct {
	Baseline  string `json:"baseline"`
	Candidate string `json:"candidate"`
	// Total compares the judges' total rows; its paired figures pool every
	// (case, rule) pair both judges had in scope.
	Total *RuleComparison `json:"total"`
	// Rules: every rule either judge has, sorted by rule ID.
	Rules    []*RuleComparison `json:"rules"`
	Warnings []string          `json:"warnings"`
	// Cases counts the cases both judges replayed and those only one did
	// (reports/diff.Overlap says what a command does about them).
	Cases CaseOverlap `json:"cases"`
	// Slices: the comparison per slice value (--by), in slice order.
	Slices []SliceComparison `json:"slices,omitempty"`
	// Adjustment names how the figures' q-values were computed
	// ("benjamini_hochberg"), over Tests p-values: every figure with one,
	// of every rule, the total and every slice.
	Adjustment string `json:"adjustment"`
	Tests      int    `json:"tests"`
}

// RuleComparison compares one rule (or the total, RuleID "*") between two judges.
type RuleComparison struct {
	RuleID string `json:"rule_id"`
	// fire keeps the drift criterion's paired fire units per session, for
	// a plan from a pilot run.
	fire *pairDiff
	// Baseline and Candidate rows; nil when that judge never had the rule.
	Baseline  *Row `json:"baseline"`
	Candidate *Row `json:"candidate"`

	// Deltas are candidate − baseline; nil when either side is nil.
	PrecisionDelta    *float64 `json:"precision_delta"`
	RecallDelta       *float64 `json:"recall_delta"`
	UnknownRateDelta  *float64 `json:"unknown_rate_delta"`
	FireRateDelta     *float64 `json:"fire_rate_delta"`
	LatencyP95DeltaMS *float64 `json:"latency_p95_delta_ms"`

	// Paired counts over the cases where both judges had the rule in scope
	// (missing pairs excluded): the decision is "the result is match".
	// Both = both match, BaselineOnly = baseline match & candidate not,
	// CandidateOnly = candidate match & baseline not, Neither = neither.
	Paired        int64 `json:"paired"`
	Both          int64 `json:"both"`
	BaselineOnly  int64 `json:"baseline_only"`
	CandidateOnly int64 `json:"candidate_only"`
	Neither       int64 `json:"neither"`
	// FireRateChange is the candidate − baseline fire rate over the paired
	// cases, with a Newcombe paired interval, judged against
	// fire_rate_change_max.
	FireRateChange Criterion `json:"fire_rate_change"`

	// Figures: one paired test per figure (see docs/statistics.md).
	Figures []Figure `json:"figures"`
}

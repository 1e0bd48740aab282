package metrics

import (
	"fmt"
	"math"
)

// Direction says where a criterion's good side lies and which side its
// threshold itself is on (see docs/statistics.md, Verdict).
type Direction string

// The directions of the kill criteria.
const (
	// AtLeast: higher is good; below the threshold fails, the threshold
	// itself does not (precision_min: precision 0.90 against 0.90 is good).
	AtLeast Direction = "at_least"
	// Below: lower is good and the threshold itself is bad (an unknown
	// rate of 0.10 against unknown_rate_max 0.10 fails).
	Below Direction = "below"
	// AtMost: lower is good, the threshold itself is not bad (a P95 of
	// exactly judge_p95_max, an approval reject rate of exactly its max).
	AtMost Direction = "at_most"
	// Within: the figure must lie within ±threshold (fire-rate drift).
	Within Direction = "within"
	// Gain: the figure must exceed 0, shown by a one-sided test whose
	// inverted bounds are printed; only evidence that it does not (the
	// upper bound below 0: the test the other way rejects a gain of 0)
	// fails.
	Gain Direction = "gain"
)

// CriterionSpec declares one kill criterion. Criteria is the one table of
// them: every output (tables, pages, junit, parquet columns, gate, compare,
// the PR comment) reads names, labels, figures and scopes from it.
type CriterionSpec struct {
	Name string // the [kill_criteria] key and the status column's prefix
	// Label is the short name in tables; Figure names what is measured.
	Label, Figure string
	Direction     Direction
	// Scope is where it is evaluated: "rule", "judge" or "rule and judge".
	Scope string
	// Method is the interval or test the status rests on.
	Method string
	// Policy marks a criterion no judge controls: a property of the policy
	// and the traffic, the same for every judge (the judge-required rate:
	// whether a case needs the judge at all is decided before any judge
	// runs). Reports show it once, as what blocks the feature whatever
	// judge is chosen, and a judge's verdict lists it separately.
	Policy bool
	// Min and Max are the range of the figure; no interval is printed
	// outside it (clip).
	Min, Max float64
	// Unit follows the threshold where it has one ("ms").
	Unit string
	// Threshold reads the criterion's configured threshold.
	Threshold func(t Thresholds) float64
}

// Bound says where the figure is good against thr, as every table prints
// it: "≥ 0.9", "< 0.1" (the maximum itself fails), "≤ 1000 ms", "within
// ±0.05", "> baseline". It is read off Direction, so the text cannot name
// another side than the one the verdict rule (Decide) decides on.
func (s CriterionSpec) Bound(thr float64) string {
	unit := ""
	if s.Unit != "" {
		unit = " " + s.Unit
	}
	switch s.Direction {
	case AtLeast:
		return fmt.Sprintf("≥ %g%s", thr, unit)
	case Below:
		return fmt.Sprintf("< %g%s", thr, unit)
	case AtMost:
		return fmt.Sprintf("≤ %g%s", thr, unit)
	case Within:
		return fmt.Sprintf("within ±%g%s", thr, unit)
	}
	return "> baseline"
}

// ratioMethod is the method of a pooled rate's interval
// (ClusteredInterval).
const ratioMethod = "ratio over sessions (Wilson at the CR2 effective n, t on Bell–McCaffrey df; the beta-binomial below 10 df, with the rarer outcome in fewer than 10 sessions, or where sessions show no spread; Wilson with one unit per session)"

// Criteria is every kill criterion in report order.
var Criteria = []CriterionSpec{
	{Name: CriterionPrecisionMin, Label: "precision", Figure: "precision", Direction: AtLeast, Scope: "rule",
		Method: ratioMethod + "; design-based stratified ratio on labels", Min: 0, Max: 1,
		Threshold: func(t Thresholds) float64 { return t.PrecisionMin }},
	{Name: CriterionDangerousRecall, Label: "recall vs baseline", Figure: "recall gain over the deterministic baseline", Direction: Gain, Scope: "rule",
		Method: "one-sided session sign-flip test (exact McNemar without clustering) and the one-sided bounds that invert it, Holm across dangerous rules; on labels the hull of the weighted paired t, the sessions' sign flip and the sign test, one-sided", Min: -1, Max: 1,
		Threshold: func(Thresholds) float64 { return 0 }},
	{Name: CriterionJudgeP95Max, Label: "p95", Figure: "P95 latency (ms)", Direction: AtMost, Scope: "judge",
		Method: "order statistics with sessions as clusters (Woodruff, CR2 session variance)", Min: 0, Max: math.Inf(1),
		Unit: "ms", Threshold: func(t Thresholds) float64 { return t.JudgeP95MaxMS }},
	{Name: CriterionJudgeRequiredRateMax, Label: "judge-required", Figure: "judge-required rate", Direction: Below, Scope: "judge",
		Method: ratioMethod, Policy: true, Min: 0, Max: 1,
		Threshold: func(t Thresholds) float64 { return t.JudgeRequiredRateMax }},
	{Name: CriterionUnknownRateMax, Label: "unknown", Figure: "unknown rate", Direction: Below, Scope: "rule and judge",
		Method: ratioMethod, Min: 0, Max: 1,
		Threshold: func(t Thresholds) float64 { return t.UnknownRateMax }},
	{Name: CriterionApprovalRejectRateMax, Label: "approval rejects", Figure: "approval reject rate", Direction: AtMost, Scope: "rule",
		Method: ratioMethod, Min: 0, Max: 1,
		Threshold: func(t Thresholds) float64 { return t.ApprovalRejectRateMax }},
	{Name: CriterionFireRateChangeMax, Label: "fire-rate drift", Figure: "fire-rate change vs baseline the labels do not explain", Direction: Within, Scope: "rule",
		Method: "clustered Newcombe paired difference", Min: -1, Max: 1,
		Threshold: func(t Thresholds) float64 { return t.FireRateChangeMax }},
}

// CriterionNames lists every kill criterion in report order (Criteria's names).
var CriterionNames = func() []string {
	out := make([]string, len(Criteria))
	for i, c := range Criteria {
		out[i] = c.Name
	}
	return out
}()

// SpecOf is the declaration of the named criterion; ok is false for a
// name that is not a kill criterion.
func SpecOf(name string) (spec CriterionSpec, ok bool) {
	for _, c := range Criteria {
		if c.Name == name {
			return c, true
		}
	}
	return CriterionSpec{}, false
}

// IsPolicyCriterion reports whether the named criterion is a policy one
// (CriterionSpec.Policy).
func IsPolicyCriterion(name string) bool {
	s, ok := SpecOf(name)
	return ok && s.Policy
}

// Clip limits an interval to the criterion's range (no interval is
// printed outside its parameter's range: a recall difference lies in
// [−1, 1] whatever its linearized variance says).
// An unbounded side (±Inf) stays unbounded.
func (s CriterionSpec) Clip(lo, hi float64) (float64, float64) {
	if !math.IsInf(lo, -1) {
		lo = min(max(lo, s.Min), s.Max)
	}
	if !math.IsInf(hi, 1) {
		hi = max(min(hi, s.Max), s.Min)
	}
	return lo, hi
}

// Evidence is what the verdict rule decides on: the estimate and its
// interval at the configured confidence (a side that cannot be bounded is
// −Inf or +Inf), and for Gain the one-sided p-value after adjustment with
// the level it must beat.
type Evidence struct {
	Estimate, Lo, Hi float64
	P                *float64
	Alpha            float64
	// Sessions is the number of sessions a session-clustered figure rests
	// on (the sessions holding its units); 0 where its units are not
	// clustered (every session holds one unit: independent units, as
	// cases without a session ID are) or the figure is not a session one.
	// Fewer than MinSessions leave it INCONCLUSIVE (Decide).
	Sessions float64
}

// MinSessions is the fewest sessions a session-clustered figure is
// decided on (docs/statistics.md, "Off the grid"). One or two sessions
// cannot show how much sessions differ: at an ICC of 0.3–0.5 the interval
// of a proportion over 1–2 sessions missed on one side up to 0.12 of the
// time (promised: 0.025), and an interval that holds there is nearly
// [0, 1]. Such a criterion stays INCONCLUSIVE, its interval still shown,
// its "+N" at least the sessions up to MinSessions.
const MinSessions = 3

// FewSessions reports whether evidence on k clustered sessions is too
// few to decide (0 < k < MinSessions).
func FewSessions(k float64) bool { return k > 0 && k < MinSessions }

// Decision is the verdict rule's outcome: the status and, for an open
// criterion, whether the estimate is on the bad side (more data would
// then confirm a failure rather than clear the threshold).
type Decision struct {
	Status  Status
	BadSide bool
	// Few is set when the evidence rests on too few sessions to decide
	// (Evidence.Sessions below MinSessions), whatever its interval shows.
	Few bool
}

// Clears reports whether an interval [lo, hi] lies wholly on the good
// side of thr, the threshold counted on the side Bound prints it: a
// bound exactly on a threshold that is itself good ("≥ 0.9", "≤ 1000
// ms", "within ±0.05") clears it, one exactly on a threshold that is bad
// ("< 0.1", "> baseline") does not (for Gain: above 0 — the test decides
// PASS, see Decide).
func (d Direction) Clears(thr, lo, hi float64) bool {
	switch d {
	case AtLeast:
		return lo >= thr
	case Below:
		return hi < thr
	case AtMost:
		return hi <= thr
	case Within:
		return -thr <= lo && hi <= thr
	}
	return lo > 0
}

// ConfirmsBad reports whether an interval lies wholly on the bad side.
func (d Direction) ConfirmsBad(thr, lo, hi float64) bool {
	switch d {
	case AtLeast:
		return hi < thr
	case Below:
		return lo >= thr
	case AtMost:
		return lo > thr
	case Within:
		return lo > thr || hi < -thr
	}
	// Strictly below: a discrete bound (the sessions' sign flip) often
	// lands exactly on 0 where the test the other way does not reject 0;
	// FAILing there gave a better judge (gain +0.02, 10 sessions of 5
	// positives) a false FAIL 0.066 of the time, over α (docs/statistics.md).
	return hi < 0
}

// BadSide reports whether an estimate is on the bad side of thr.
func (d Direction) BadSide(thr, est float64) bool {
	switch d {
	case AtLeast:
		return est < thr
	case Below:
		return est >= thr
	case AtMost:
		return est > thr
	case Within:
		return math.Abs(est) > thr
	}
	return est <= 0
}

// Decide is the one verdict rule (docs/statistics.md, Verdict): FAIL
// when the interval lies wholly on the bad side of the threshold, PASS
// when it lies wholly on the good side, INCONCLUSIVE while it reaches the
// threshold. Gain criteria PASS on their one-sided test (p < α) instead,
// and FAIL only when the whole interval lies below 0. A
// session-clustered figure resting on fewer than MinSessions sessions is
// INCONCLUSIVE whatever its interval (Few). Every criterion on the
// unweighted and the label-weighted paths is decided here.
func (d Direction) Decide(thr float64, ev Evidence) Decision {
	switch {
	case FewSessions(ev.Sessions):
		return Decision{Status: StatusInconclusive, BadSide: d.BadSide(thr, ev.Estimate), Few: true}
	case d.ConfirmsBad(thr, ev.Lo, ev.Hi):
		return Decision{Status: StatusFail, BadSide: true}
	case d == Gain && ev.P != nil && *ev.P < ev.Alpha:
		return Decision{Status: StatusPass}
	case d != Gain && d.Clears(thr, ev.Lo, ev.Hi):
		return Decision{Status: StatusPass}
	}
	return Decision{Status: StatusInconclusive, BadSide: d.BadSide(thr, ev.Estimate)}
}

// decisionReason is the sentence a decision adds to a criterion's
// description desc ("precision 0.95 (…, 95 % CI [0.91, 0.98])").
func (d Direction) decisionReason(desc string, thr float64, dec Decision, ev Evidence) string {
	t := fmtF(thr)
	if dec.Few {
		return desc + ": " + FewSessionsReason(ev.Sessions)
	}
	switch d {
	case Within:
		switch {
		case dec.Status == StatusFail:
			return fmt.Sprintf("%s lies wholly outside ±%s", desc, t)
		case dec.Status == StatusPass:
			return fmt.Sprintf("%s lies inside ±%s", desc, t)
		case dec.BadSide:
			return fmt.Sprintf("%s exceeds ±%s, but the interval still reaches inside: not confirmed", desc, t)
		}
		return fmt.Sprintf("%s reaches ±%s", desc, t)
	case Gain:
		switch {
		case dec.Status == StatusFail:
			return desc + ": the upper bound lies below 0, the judge is not better than the baseline"
		case dec.Status == StatusPass:
			return fmt.Sprintf("%s: p < %s, the lower bound above 0: the judge is better than the baseline", desc, fmtF(ev.Alpha))
		case ev.P != nil:
			return fmt.Sprintf("%s: p ≥ %s, the lower bound not above 0 and the upper not below it: not decided", desc, fmtF(ev.Alpha))
		}
		return desc + ": not decided"
	}
	switch {
	case dec.Status == StatusFail:
		return fmt.Sprintf("%s lies wholly on the bad side of %s", desc, t)
	case dec.Status == StatusPass:
		return fmt.Sprintf("%s clears %s", desc, t)
	case dec.BadSide:
		return fmt.Sprintf("%s is on the bad side of %s, but the interval still reaches it: not confirmed", desc, t)
	}
	return fmt.Sprintf("%s: the interval still reaches %s", desc, t)
}

// hintTarget is what more data should show for an open decision, as a
// decide function on a projected interval and the verb of the "+N" clause.
func (d Direction) hintTarget(thr float64, dec Decision) (func(lo, hi float64) bool, string) {
	if dec.BadSide {
		verb := "confirm the failure"
		if d == Within {
			verb = "confirm the drift"
		}
		return func(l, h float64) bool { return d.ConfirmsBad(thr, l, h) }, verb
	}
	verb := "clear it"
	if d == Within || d == Gain {
		verb = "decide it"
	}
	return func(l, h float64) bool { return d.Clears(thr, l, h) }, verb
}

// apply decides c (whose Name and Threshold are set) on the evidence with
// the one rule, clipping its interval to the criterion's range, and sets
// Estimate, Lo, Hi, Status and Reason (desc plus the rule's sentence). It
// returns the decision for the hint code.
func apply(c *Criterion, ev Evidence, desc func(lo, hi float64) string) Decision {
	spec, _ := SpecOf(c.Name)
	ev.Lo, ev.Hi = spec.Clip(ev.Lo, ev.Hi)
	dec := spec.Direction.Decide(c.Threshold, ev)
	c.Estimate = ptr(ev.Estimate)
	if !math.IsInf(ev.Lo, 0) {
		c.Lo = ptr(ev.Lo)
	}
	if !math.IsInf(ev.Hi, 0) {
		c.Hi = ptr(ev.Hi)
	}
	c.Status = dec.Status
	c.Reason = spec.Direction.decisionReason(desc(ev.Lo, ev.Hi), c.Threshold, dec, ev)
	return dec
}

// FewSessionsReason says why a figure on k < MinSessions sessions is not
// decided, in a user's words.
func FewSessionsReason(k float64) string {
	what := fmt.Sprintf("%g sessions", k)
	if k == 1 {
		what = "1 session"
	}
	return fmt.Sprintf("not decided: %s cannot show how much sessions differ (where they differ, an interval over so few misses far more often than its level says); collect at least %d sessions", what, MinSessions)
}

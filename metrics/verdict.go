package metrics

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/replay"
)

// evaluator applies the kill criteria at one confidence level.
type evaluator struct {
	crit  replay.KillCriteria
	conf  float64
	alpha float64
	z     float64
	seed  uint64 // of the Monte Carlo sign-flip tests
	lat   latScratch
	// unitsHint, where set, is how proportion states a hint in sessions
	// (h, n, the verb; raised by fewSessionsHint): a labeled figure whose
	// every label weighs 1 restates it in sessions of traffic and the
	// labels they bring (censusMatchesHint). Nil: sessions like these and
	// units (moreSessionsReason, fewSessionsClause).
	unitsHint func(c *Criterion, h SessionHint, n int64, verb string, raised bool)
}

// assurance is the probability the "+N" hints are sized for.
const assurance = 0.8

// MoreLimit bounds a realistic "+N" hint (see AtLimit).
const MoreLimit = 100_000

// AtLimit reports whether a hint of more units on top of the n the
// estimate rests on is at the limit: over MoreLimit and over ten times n.
// The estimate then sits so close to its threshold that the hint, which
// grows as the inverse square of that distance, says more about the
// distance than about a plan: no realistic amount of new data like these
// decides the criterion (docs/statistics.md, the "+N" hints).
func AtLimit(more, n int64) bool { return more > MoreLimit && more > 10*n }

func newEvaluator(crit replay.KillCriteria) *evaluator {
	return &evaluator{crit: crit, conf: crit.Confidence, alpha: alphaOf(crit.Confidence), z: zScore(crit.Confidence)}
}

// proportion evaluates a proportion criterion x/n on its session-clustered
// interval [lo, hi] (see docs/statistics.md) with the one verdict rule
// (Direction.Decide): FAIL only when the whole interval lies on the bad
// side of the threshold, PASS when it lies wholly on the good side,
// INCONCLUSIVE when it straddles, with the number of raw units that would
// decide it with about 80 % probability (assurance).
func (e *evaluator) proportion(c Criterion, what string, x, n int64, lo, hi, deff *float64, post *bbPosterior) Criterion {
	c.N = n
	est := float64(x) / float64(n)
	if lo == nil || hi == nil {
		// The interval comes from the per-session pass over the spilled
		// per-case data; without it (a failed read back, which Summary.Err
		// reports and the pipeline turns into exit 2) nothing is decided.
		c.Estimate = ptr(est)
		c.Status = StatusInconclusive
		c.Reason = fmt.Sprintf("%s %s has no interval: its per-case data could not be read back", what, fmtF(est))
		return c
	}
	method := "Wilson"
	if post != nil && !post.wilson {
		method = post.method()
		d := deffOf(deff)
		if n := DeffNote(d); n != "" {
			method += ", " + n
		}
		// With few sessions the interval is wider than the data's design
		// effect gives: said apart, never as the deff (dataDeff), and
		// by what: the few sessions, the sessions' rates depending on
		// their size, or both (widenedBy).
		if deff != nil && strings.Contains(method, "(few sessions)") {
			method += widenedBy(post, d, e.conf)
		}
	}
	// The sessions the interval rests on, where its units are clustered
	// (fewer than MinSessions decide nothing: Decide).
	var k float64
	if post != nil && !post.wilson {
		k = post.sessions()
	}
	dec := apply(&c, Evidence{Estimate: est, Lo: *lo, Hi: *hi, Sessions: k}, func(l, h float64) string {
		return fmt.Sprintf("%s %s (%d/%d, %s %.0f%% CI [%s, %s])", what, fmtF(est), x, n, method, e.conf*100, fmtF(l), fmtF(h))
	})
	if dec.Status != StatusInconclusive {
		return c
	}
	spec, _ := SpecOf(c.Name)
	_, verb := spec.Direction.hintTarget(c.Threshold, dec)
	if est != c.Threshold && post != nil && c.Lo != nil && c.Hi != nil {
		// New data come as new sessions of the observed sizes, with the
		// between-session spread the interval already carries
		// (SessionsToDecide, docs/statistics.md "Hints that keep their
		// promise").
		h, ok := SessionsToDecide(HintInputs{Estimate: est, Threshold: c.Threshold,
			HalfWidth: hintHalfWidth(spec.Direction, dec, est, *c.Lo, *c.Hi), Z: e.z,
			M: float64(n), K: post.sessions(), DF: spreadDF(post)}, assurance)
		if ok && h.Either {
			verb = eitherVerb
		}
		raised := false
		if dec.Few && ok {
			h, raised = fewSessionsHint(h, k, n)
		}
		switch {
		case (raised || ok && h.Units > 0) && e.unitsHint != nil:
			e.unitsHint(&c, h, n, verb, raised)
		case raised:
			c.SamplesNeeded, c.MoreSamples, c.MoreSessions = new(n+h.Units), new(h.Units), new(h.Sessions)
			c.Reason += fewSessionsClause(h)
		case ok && h.Units > 0:
			c.SamplesNeeded, c.MoreSamples, c.MoreSessions = new(n+h.Units), new(h.Units), new(h.Sessions)
			c.Reason += moreSessionsReason(h, n, verb)
		case !ok:
			c.Reason += fmt.Sprintf("; no amount of new sessions like these would %s with %.0f%% probability: the estimate sits too close to %s for what the data show", verb, assurance*100, fmtF(c.Threshold))
		}
	}
	return c
}

// widenedBy is the clause that says how much wider than the data's design
// effect d a few-session interval is, and what widened it: the
// beta-binomial over few sessions ("widened for few sessions as by a
// deff of …"), and where the sessions' rates depend on their size the
// hull toward the pooled rate (bbPosterior.sizeShift: "… and toward the
// pooled rate, as rates may depend on session size, to a deff of …"), or
// that hull alone. "" where the interval is no wider (within 0.5 %).
func widenedBy(post *bbPosterior, d, conf float64) string {
	_, _, few := post.bbInterval(conf)
	all := intervalDeff(post, conf)
	bySize := all > few*1.005
	switch {
	case few > d*1.005 && bySize:
		return fmt.Sprintf(", widened for few sessions as by a deff of %.2f, and toward the pooled rate (rates may depend on session size) to a deff of %.2f", few, all)
	case bySize && all > d*1.005:
		return fmt.Sprintf(", widened toward the pooled rate (rates may depend on session size) as by a deff of %.2f", all)
	case all > d*1.005:
		return fmt.Sprintf(", widened for few sessions as by a deff of %.2f", all)
	}
	return ""
}

// fewSessionsHint raises a session-sized hint on k < MinSessions sessions
// holding n units to the sessions up to MinSessions (fewer decide nothing,
// whatever their interval), each of the mean size, where it asks for
// fewer; raised says it did. Beyond that the hint is sized as the
// interval asks.
func fewSessionsHint(h SessionHint, k float64, n int64) (_ SessionHint, raised bool) {
	least := int64(math.Ceil(MinSessions - k))
	if h.Sessions >= least {
		return h, false
	}
	h.Sessions, h.Units = least, int64(math.Ceil(float64(least)*float64(n)/k))
	return h, true
}

// fewSessionsClause is the "+N" clause of a hint fewSessionsHint raised:
// the sessions are the least that can decide it, not a promise that they
// will.
func fewSessionsClause(h SessionHint) string { return fewSessionsClauseOf(h, "units") }

// fewSessionsClauseOf is fewSessionsClause with the units named.
func fewSessionsClauseOf(h SessionHint, what string) string {
	sess := "sessions"
	if h.Sessions == 1 {
		sess = "session"
	}
	return fmt.Sprintf("; at least %d more %s like these, ≈ %d %s, before it can be decided", h.Sessions, sess, h.Units, what)
}

// moreSessionsReason is the clause a session-sized hint adds: sessions and
// units, or at the limit (AtLimit on the units).
func moreSessionsReason(h SessionHint, n int64, verb string) string {
	sess := "sessions"
	if h.Sessions == 1 {
		sess = "session"
	}
	if AtLimit(h.Units, n) {
		return fmt.Sprintf("; at the limit: about %d more %s like these (≈ %d units, over ten times the %d so far) would %s with 80%% probability, more than new data can realistically give", h.Sessions, sess, h.Units, n, verb)
	}
	return fmt.Sprintf("; about %d more %s like these, ≈ %d units, would %s with 80%% probability", h.Sessions, sess, h.Units, verb)
}

// moreUnitsReason is moreSessionsReason with the units named (what:
// "labeled positives", "paired cases").
func moreUnitsReason(h SessionHint, n int64, what, verb string) string {
	sess := "sessions"
	if h.Sessions == 1 {
		sess = "session"
	}
	if AtLimit(h.Units, n) {
		return fmt.Sprintf("; at the limit: about %d more %s like these (≈ %d %s, over ten times the %d so far) would %s with 80%% probability, more than new data can realistically give", h.Sessions, sess, h.Units, what, n, verb)
	}
	return fmt.Sprintf("; about %d more %s like these, ≈ %d %s, would %s with 80%% probability", h.Sessions, sess, h.Units, what, verb)
}

// deffOf is a row's design effect, 1 when it has none.
func deffOf(d *float64) float64 {
	if d == nil {
		return 1
	}
	return *d
}

func (e *evaluator) precision(r *Row) Criterion {
	c := Criterion{Name: CriterionPrecisionMin, Threshold: e.crit.PrecisionMin}
	if r.TP+r.FP == 0 {
		c.Status = StatusInconclusive
		c.Reason = "no labeled match predictions (TP+FP = 0): no rule goes live on no evidence"
		return c
	}
	return e.proportion(c, "precision", r.TP, r.TP+r.FP, r.PrecisionLo, r.PrecisionHi, r.PrecisionDeff, r.post[lanePrec])
}

func (e *evaluator) unknownRate(r *Row) Criterion {
	c := Criterion{Name: CriterionUnknownRateMax, Threshold: e.crit.UnknownRateMax}
	if r.Judged == 0 {
		c.Status = StatusNA
		c.Reason = "no decision was sent to the judge"
		return c
	}
	return e.proportion(c, "unknown rate", r.Unknown.Total(), r.Judged, r.UnknownRateLo, r.UnknownRateHi, r.UnknownRateDeff, r.post[laneUnk])
}

func (e *evaluator) judgeRequiredRate(r *Row) Criterion {
	c := Criterion{Name: CriterionJudgeRequiredRateMax, Threshold: e.crit.JudgeRequiredRateMax}
	if r.Cases == 0 {
		c.Status = StatusNA
		c.Reason = "no case was replayed"
		return c
	}
	return e.proportion(c, "judge-required rate", r.JudgeRequired, r.Cases, r.JudgeRequiredRateLo, r.JudgeRequiredRateHi, r.JudgeRequiredRateDeff, r.post[laneJR])
}

func (e *evaluator) approvalRejectRate(r *Row) Criterion {
	c := Criterion{Name: CriterionApprovalRejectRateMax, Threshold: e.crit.ApprovalRejectRateMax}
	if r.ApprovalOutcomes == 0 {
		c.Status = StatusNA
		if r.Action != datasets.ActionRequestApproval {
			c.Reason = "the rule does not request approval"
		} else {
			c.Reason = "no approval outcome is recorded where the rule requested approval"
		}
		return c
	}
	return e.proportion(c, "approval reject rate", r.ApprovalRejected, r.ApprovalOutcomes, r.ApprovalRejectRateLo, r.ApprovalRejectRateHi, r.ApprovalRejectRateDeff, r.post[laneAppr])
}

// dangerousRecall tests whether the rule's result catches more labeled
// positives than its deterministic baseline (docs/statistics.md, "The
// recall gain"): the one-sided exact McNemar test on the discordant
// positives where no session holds two of them, the one-sided session
// sign-flip test otherwise, the estimate being the recall difference and
// its bounds the ones that invert the same test at the same level
// (mcnemarGain, sessionFlipGain): the one-sided (1 − α) lower bound lies
// above 0 exactly when p < α, the upper below 0 exactly when the reverse
// test rejects. PASS needs p < 1 − confidence, after Holm's adjustment
// across the judge's dangerous rules (holmDangerous, which moves the
// bounds to Holm's level with it). It FAILs only on evidence that the
// judge is not better: the upper bound below 0.
func (e *evaluator) dangerousRecall(r *Row, m mcnemar, pd *pairDiff, seed uint64) Criterion {
	c := Criterion{Name: CriterionDangerousRecall}
	switch {
	case !e.crit.DangerousRecallMustBeatBaseline:
		c.Status, c.Reason = StatusNA, "disabled in the kill criteria"
		return c
	case r.Class != replay.ClassDangerous:
		c.Status, c.Reason = StatusNA, "not a dangerous rule"
		return c
	case r.TP+r.FN == 0:
		c.Status, c.Reason = StatusNA, "no labeled positives"
		return c
	case r.BaselinePositives == 0 || pd == nil:
		c.Status, c.Reason = StatusNA, "the rule has no deterministic baseline"
		return c
	}
	n, b, cc := r.BaselinePositives, r.JudgeOnlyHits, r.BaselineOnlyHits
	g := &gainEvidence{est: float64(b-cc) / float64(n), b: b, c: cc, n: n, seed: seed, sessions: pd.clusteredSessions()}
	test := "one-sided McNemar"
	if m.clustered {
		test = "one-sided sign-flip over sessions"
		g.ss = gainSessions(pd)
		var lo, hi float64
		lo, hi, g.p, _, _ = sessionFlipGain(g.ss, e.alpha, seed)
		g.cached = &[3]float64{e.alpha, lo, hi}
	} else {
		g.p = McNemarGreater(b, cc)
	}
	g.desc = fmt.Sprintf("recall %s vs baseline %s on %d positives (judge-only %d, baseline-only %d, %s p=%s{holm}; difference {level} [{lo}, {hi}])",
		fmtF(float64(r.BaselineHits+b-cc)/float64(n)), fmtF(float64(r.BaselineHits)/float64(n)), n, b, cc, test, fmtF(g.p))
	c.N, c.PValue = n, ptr(g.p)
	c.gainEv = g
	if gi := e.gainInputs(n, m, pd); gi != nil {
		c.gain = gi
	}
	c.decideGain(g.p, e.alpha, e.alpha, 0)
	return c
}

// gainEvidence is a recall gain's one-sided test, on either path, with
// what gives the bounds that invert it at any level (holmDangerous moves
// them to Holm's level for the rule).
type gainEvidence struct {
	est, p   float64 // the difference and the one-sided p of "greater"
	sessions float64 // Evidence.Sessions
	// The unweighted path: b judge-only and c baseline-only of n
	// positives; ss the sessions when one holds two discordant ones (the
	// sign flip over sessions, seeded when drawn), else exact McNemar.
	b, c, n int64
	ss      []gainSess
	seed    uint64
	// The labeled path: the weighted difference (WeightedRatio.oneSided).
	lab *WeightedRatio
	// desc is the criterion's description, {holm}, {level}, {lo} and
	// {hi} to be filled.
	desc string
	// cached holds a level and the bounds at it, computed with p.
	cached *[3]float64
}

// bounds are the gain's one-sided (1 − level) lower and upper bounds.
func (g *gainEvidence) bounds(level float64) (lo, hi float64) {
	switch {
	case g.cached != nil && g.cached[0] == level:
		return g.cached[1], g.cached[2]
	case g.lab != nil:
		lo, hi, _, _, _ = g.lab.oneSided(level)
	case g.ss != nil:
		lo, hi, _, _, _ = sessionFlipGain(g.ss, level, g.seed)
	default:
		lo, hi, _, _ = mcnemarGain(g.b, g.c, g.n, level)
	}
	return lo, hi
}

// BoundsLabel names the recall gain's printed pair at level alpha: the two
// one-sided bounds, not a two-sided interval ("one-sided 95% bounds").
func BoundsLabel(alpha float64) string {
	return fmt.Sprintf("one-sided %s%% bounds", strconv.FormatFloat(100*(1-alpha), 'g', 4, 64))
}

// decideGain decides dangerous recall on its evidence with the one rule
// (Gain.Decide): p (Holm-adjusted over holm rules, 0 for none) against
// alpha, beside the bounds at level (α, or Holm's level for the rule:
// holmLevels), so that PASS goes with a lower bound above 0; then its
// hint, sized at alpha/holm.
func (c *Criterion) decideGain(p, alpha, level float64, holm int) {
	g := c.gainEv
	lo, hi := g.bounds(level)
	ev := Evidence{Estimate: g.est, Lo: lo, Hi: hi, P: ptr(p), Alpha: alpha, Sessions: g.sessions}
	if g.lab != nil && g.lab.Unreached > 0 && lo <= 0 {
		// The test speaks of the reached strata only: a PASS needs the
		// widened bound above 0 as well.
		ev.P = nil
	}
	holmText := ""
	if holm > 1 {
		holmText = fmt.Sprintf(", Holm-adjusted over %d dangerous rules p=%s", holm, fmtF(p))
	}
	c.Lo, c.Hi, c.hint = nil, nil, ""
	c.SamplesNeeded, c.MoreSamples, c.MoreSessions, c.MoreUnit = nil, nil, nil, ""
	c.Bounds = BoundsLabel(level)
	rep := strings.NewReplacer("{holm}", holmText, "{level}", c.Bounds)
	dec := apply(c, ev, func(l, h float64) string {
		return strings.NewReplacer("{lo}", fmtSigned(l), "{hi}", fmtSigned(h)).Replace(rep.Replace(g.desc))
	})
	if holm > 1 && dec.Status == StatusInconclusive && g.p < alpha && !(p < alpha) {
		c.Reason += fmt.Sprintf(" (p=%s is below %s alone, not after Holm's adjustment)", fmtF(g.p), fmtF(alpha))
	}
	c.few = 0
	if dec.Few {
		c.few = g.sessions
	}
	hintAlpha := alpha
	if holm > 1 {
		// The hint must beat what Holm asks of the rule: at most α/m
		// (Bonferroni's level, Holm's first step) — sized for it.
		hintAlpha = alpha / float64(holm)
	}
	if dec.Status != StatusInconclusive {
		return
	}
	if g.lab != nil {
		labeledGainHint(c, *g.lab, dec, hintAlpha)
		return
	}
	if c.gain != nil {
		c.setGainHint(c.N, hintAlpha)
	}
}

// gainSessions are the recall difference's sessions for the sign flip
// over sessions: d judge-only minus baseline-only of n positives.
func gainSessions(pd *pairDiff) []gainSess {
	idx := map[[2]int64]int{}
	var out []gainSess
	for _, pc := range pd.sess {
		s := pc.s
		key := [2]int64{s.y1 - s.y2, s.m}
		if i, ok := idx[key]; ok {
			out[i].k += pc.n
			continue
		}
		idx[key] = len(out)
		out = append(out, gainSess{key[0], key[1], pc.n})
	}
	return out
}

// gainInputs are what SessionsToGain sizes dangerous recall's "+N" from:
// the sessions' discordance (nil when the judge shows no gain).
func (e *evaluator) gainInputs(n int64, m mcnemar, pd *pairDiff) *GainInputs {
	k := float64(n)
	if pd != nil && !pd.one && pd.p1 != nil {
		k = pd.p1.sessions()
	}
	s, ss := float64(m.sumD), float64(m.sumD2)
	if !m.clustered {
		s, ss = float64(m.b-m.c), float64(m.b+m.c)
	}
	if s <= 0 {
		return nil
	}
	return &GainInputs{K: k, M: float64(n), SumD: s, SumD2: ss}
}

// setGainHint sizes dangerous recall's hint from c.gain for the
// one-sided level alpha, replacing an earlier one (holmDangerous sizes it
// again at the level Holm's adjustment asks of the rule).
func (c *Criterion) setGainHint(n int64, alpha float64) {
	if c.hint != "" {
		c.Reason = strings.Replace(c.Reason, c.hint, "", 1)
		c.hint = ""
	}
	c.SamplesNeeded, c.MoreSamples, c.MoreSessions = nil, nil, nil
	in := *c.gain
	in.Z = distuv.UnitNormal.Quantile(1 - alpha)
	h, ok := SessionsToGain(in, assurance)
	if k, need := c.flipSessions(alpha); k > 0 && k < need && (!ok || h.Units <= 0 || k+h.Sessions < need) {
		c.flipShortHint(k, need, alpha)
		return
	}
	if !ok || h.Units <= 0 {
		return
	}
	c.hint = moreUnitsReason(h, n, "labeled positives", "decide it")
	if c.few > 0 {
		var raised bool
		if h, raised = fewSessionsHint(h, c.few, n); raised {
			c.hint = fewSessionsClauseOf(h, "labeled positives")
		}
	}
	c.SamplesNeeded, c.MoreSamples, c.MoreSessions = new(n+h.Units), new(h.Units), new(h.Sessions)
	c.Reason += c.hint
}

// flipSessions is, for a positive recall gain tested by the sessions'
// sign flip, the sessions holding its positives (K) and the fewest whose
// sign patterns can reach alpha (flipSessionsNeeded); 0, 0 otherwise.
func (c *Criterion) flipSessions(alpha float64) (k, need int64) {
	g := c.gainEv
	if g == nil || g.ss == nil || g.est <= 0 {
		return 0, 0
	}
	for _, s := range g.ss {
		k += s.k
	}
	return k, flipSessionsNeeded(alpha)
}

// flipShortHint is the hint of a recall gain tested by the sessions' sign
// flip on k sessions, fewer than the need any sign pattern needs to reach
// alpha, where the "+N" the data size would still leave fewer (or none:
// they show the gain already clear, yet p stays 1/2^K whatever the
// positives show — 162 of 240 caught by the judge alone over 4 sessions:
// p = 1/16 and no hint; over 2 sessions "about 1 more session" for a p of
// at best 1/8). The labeled path says the same (labeledGainHint).
func (c *Criterion) flipShortHint(k, need int64, alpha float64) {
	more := need - k
	sess := "sessions"
	if more == 1 {
		sess = "session"
	}
	c.MoreSessions = new(more)
	c.hint = fmt.Sprintf("; with positives in %d sessions, the sessions' sign flip cannot reach p < %s whatever they show: positives from at least %d more %s are needed", k, fmtF(alpha), more, sess)
	c.Reason += c.hint
}

// holmDangerous adjusts the dangerous-recall p-values of one judge's rules
// with Holm's step-down method: these tests bear on the verdict, and a
// judge with many dangerous rules would otherwise pass one by chance. Each
// rule is decided again on its adjusted p, beside its bounds at Holm's
// level for it (holmLevels), so that a PASS still goes with a lower bound
// above 0 and an open rule with one at or below it.
func (e *evaluator) holmDangerous(rules []*Row) {
	var cs []*Criterion
	for _, r := range rules {
		if c := r.Criterion(CriterionDangerousRecall); c != nil && c.PValue != nil && c.Status != StatusNA {
			cs = append(cs, c)
		}
	}
	ps := make([]float64, len(cs))
	for i, c := range cs {
		ps[i] = *c.PValue
	}
	adj := Holm(ps)
	levels := holmLevels(ps, e.alpha)
	for i, c := range cs {
		c.PAdjusted, c.Adjustment = ptr(adj[i]), AdjustHolm
		if len(cs) > 1 && c.gainEv != nil {
			c.decideGain(adj[i], e.alpha, levels[i], len(cs))
		}
	}
}

// holmLevels is the one-sided level of each test's bounds under Holm's
// step-down at alpha over ps: α/(m − r) for the test of rank r (from 0,
// ascending p) while the steps reject, and the first non-rejecting step's
// level for it and every test after. A test then rejects under Holm
// exactly when its p lies below its level (its adjusted p below alpha),
// and its bounds, inverting the same test at that level, clear 0 exactly
// then: a rejected one's p is below its own step's level, and a kept
// one's is at least that of the step where Holm stopped.
func holmLevels(ps []float64, alpha float64) []float64 {
	m := len(ps)
	out := make([]float64, m)
	stopped := false
	level := alpha
	for r, i := range ascending(ps) {
		if !stopped {
			level = alpha / float64(m-r)
			stopped = !(ps[i] < level)
		}
		out[i] = level
	}
	return out
}

// judgeP95 checks the nearest-rank P95 of live calls; its interval comes
// from order statistics, so it needs no distribution assumption.
func (e *evaluator) judgeP95(r *Row) Criterion {
	maxMS := float64(e.crit.JudgeP95Max.Nanoseconds()) / 1e6
	c := Criterion{Name: CriterionJudgeP95Max, Threshold: maxMS, N: r.Calls}
	switch {
	case e.crit.JudgeP95Max <= 0:
		c.Status, c.Reason = StatusNA, "disabled in the kill criteria"
		return c
	case r.noLatency:
		c.Status, c.Reason = StatusNA, NoLatencyReason
		return c
	case r.LatencyP95MS == nil:
		c.Status, c.Reason = StatusNA, "no judge call was made (none was needed, or the none judge, which calls nothing); a cached answer counts with its stored latency"
		return c
	}
	est := *r.LatencyP95MS
	ev := Evidence{Estimate: est, Lo: math.Inf(-1), Hi: math.Inf(1)}
	if r.LatencyP95LoMS != nil {
		ev.Lo = *r.LatencyP95LoMS
	}
	if r.LatencyP95HiMS != nil {
		ev.Hi = *r.LatencyP95HiMS
	}
	desc := fmt.Sprintf("P95 %s ms over %d calls", fmtF(est), r.Calls)
	if q := r.latP95; q.df > 0 {
		desc += fmt.Sprintf(" in %d sessions (order statistics with sessions as clusters", q.k)
		if n := DeffNote(q.deff); n != "" {
			desc += ", " + n
		}
		desc += ")"
	} else if q.k == 1 && q.n > 1 {
		desc += " in one session (one session cannot bound a P95 of traffic)"
	}
	// The rule decides; the sentence says which order statistic did.
	apply(&c, ev, func(float64, float64) string { return desc })
	switch dec := AtMost.Decide(maxMS, ev); {
	case dec.Status == StatusFail:
		c.Reason = fmt.Sprintf("%s, lower bound %s ms > %s ms: wholly above the limit", desc, fmtF(ev.Lo), fmtF(maxMS))
	case dec.Status == StatusPass:
		c.Reason = fmt.Sprintf("%s, upper bound %s ms < %s ms", desc, fmtF(ev.Hi), fmtF(maxMS))
	case dec.BadSide && c.Lo == nil:
		c.Reason = fmt.Sprintf("%s exceeds %s ms, but too few calls or sessions bound the P95 from below at %.0f%%: not confirmed", desc, fmtF(maxMS), e.conf*100)
	case dec.BadSide:
		c.Reason = fmt.Sprintf("%s exceeds %s ms, but its lower bound %s ms does not: not confirmed", desc, fmtF(maxMS), fmtF(ev.Lo))
	case c.Hi == nil && r.latP95.df > 0:
		c.Reason = fmt.Sprintf("%s: too few sessions to bound the P95 from above at %.0f%% (how much the sessions differ reaches past the slowest call)", desc, e.conf*100)
	case c.Hi == nil:
		c.Reason = fmt.Sprintf("%s: too few calls to bound the P95 from above at %.0f%% (at least %d are needed)", desc, e.conf*100, minCallsForP95(e.conf))
	default:
		c.Reason = fmt.Sprintf("%s: upper bound %s ms reaches %s ms", desc, fmtF(ev.Hi), fmtF(maxMS))
	}
	return c
}

// minCallsForP95 is the smallest n whose order statistics can bound the
// P95 from above: 0.95ⁿ ≤ α/2.
func minCallsForP95(conf float64) int {
	return int(math.Ceil(math.Log((1-conf)/2) / math.Log(0.95)))
}

// latency fills the quantiles of sorted live-call latencies, the P50's and
// the P95's intervals with sessions as clusters (sessionQuantile).
func (e *evaluator) latency(r *Row, c callLats) {
	sorted := c.ms
	if len(sorted) == 0 {
		return
	}
	if unrecordedLatency(sorted) {
		r.noLatency = true
		return
	}
	r.LatencyP50MS = ptr(NearestRank(sorted, 50, 100))
	r.LatencyP95MS = ptr(NearestRank(sorted, 95, 100))
	r.LatencyP99MS = ptr(NearestRank(sorted, 99, 100))
	q := sessionQuantile(c, 95, 100, e.conf, &e.lat)
	r.LatencyP95LoMS, r.LatencyP95HiMS = q.bounds(sorted)
	r.latP95 = q
	q50 := sessionQuantile(c, 50, 100, e.conf, &e.lat)
	r.LatencyP50LoMS, r.LatencyP50HiMS = q50.bounds(sorted)
}

// fireRateChange evaluates candidate − baseline fire rate on the paired
// fire units per session (first side the candidate), with the clustered
// Newcombe interval (see docs/statistics.md).
func (e *evaluator) fireRateChange(pd *pairDiff) Criterion {
	cr := Criterion{Name: CriterionFireRateChangeMax, Threshold: e.crit.FireRateChangeMax}
	if pd == nil {
		cr.Status, cr.Reason = StatusNA, "no case that both judges replayed had the rule in scope"
		return cr
	}
	n := pd.a + pd.b + pd.c + pd.d
	maxC := e.crit.FireRateChangeMax
	est, lo, hi := pd.interval(1, e.conf)
	cr.N = n
	method := "Newcombe paired"
	if !pd.one {
		method = "Newcombe paired over sessions"
	}
	ks := pd.clusteredSessions()
	dec := apply(&cr, Evidence{Estimate: est, Lo: lo, Hi: hi, Sessions: ks}, func(l, h float64) string {
		return fmt.Sprintf("fire-rate change the labels do not explain %s (%d paired cases, %s %.0f%% CI [%s, %s])", fmtF(est), n, method, e.conf*100, fmtF(l), fmtF(h))
	})
	if dec.Status != StatusInconclusive {
		return cr
	}
	_, verb := Within.hintTarget(maxC, dec)
	if math.Abs(est) == maxC || cr.Lo == nil || cr.Hi == nil {
		return cr
	}
	// New sessions like these (SessionsToDecideAll): confirming drift
	// moves the bound facing the nearer limit past it; clearing needs
	// both bounds inside ±max.
	k := float64(n)
	if !pd.one && pd.p1 != nil {
		k = pd.p1.sessions()
	}
	lo, hi = *cr.Lo, *cr.Hi
	side := func(thr, hw float64) HintInputs {
		return HintInputs{Estimate: est, Threshold: thr, HalfWidth: hw, Z: e.z, M: float64(n), K: k}
	}
	var sides []HintInputs
	switch {
	case dec.BadSide && est > 0:
		sides = []HintInputs{side(maxC, est-lo)}
	case dec.BadSide:
		sides = []HintInputs{side(-maxC, hi-est)}
	default:
		sides = []HintInputs{side(maxC, hi-est), side(-maxC, est-lo)}
	}
	h, ok := SessionsToDecideAll(sides, assurance)
	raised := false
	if dec.Few && ok {
		h, raised = fewSessionsHint(h, ks, n)
	}
	switch {
	case raised:
		cr.SamplesNeeded, cr.MoreSamples, cr.MoreSessions = new(n+h.Units), new(h.Units), new(h.Sessions)
		cr.Reason += fewSessionsClauseOf(h, "paired cases")
	case ok && h.Units > 0:
		cr.SamplesNeeded, cr.MoreSamples, cr.MoreSessions = new(n+h.Units), new(h.Units), new(h.Sessions)
		cr.Reason += moreUnitsReason(h, n, "paired cases", verb)
	}
	return cr
}

// verdictOf: NO-GO if any criterion FAILs, else INCONCLUSIVE if any is
// INCONCLUSIVE, else GO; N/A criteria do not count.
func verdictOf(cs []Criterion) Verdict {
	v := VerdictGo
	for _, c := range cs {
		switch c.Status {
		case StatusFail:
			return VerdictNoGo
		case StatusInconclusive:
			v = VerdictInconclusive
		}
	}
	return v
}

func rank(v Verdict) int {
	switch v {
	case VerdictGo:
		return 0
	case VerdictInconclusive:
		return 1
	case VerdictError:
		return 3
	}
	return 2
}

// worse returns the worse of two verdicts (NO-GO > INCONCLUSIVE > GO).
func worse(a, b Verdict) Verdict {
	if rank(b) > rank(a) {
		return b
	}
	return a
}

// Worst returns the worst of the verdicts, GO for none.
func Worst(vs ...Verdict) Verdict {
	v := VerdictGo
	for _, x := range vs {
		v = worse(v, x)
	}
	return v
}

// fmtF formats a figure for a reason sentence: four significant digits.
func fmtF(v float64) string { return fmt.Sprintf("%.4g", v) }

// fmtSigned is fmtF with a true minus (−), as the tables print a signed
// figure: a difference's estimate and bounds in a reason.
func fmtSigned(v float64) string { return strings.Replace(fmtF(v), "-", "−", 1) }

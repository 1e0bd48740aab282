package metrics

import (
	"fmt"
	"math"
	"strings"

	"github.com/apeval/apeval/replay"
	"gonum.org/v1/gonum/stat/distuv"
)

// SamplePrecision evaluates precision_min on a precision estimated from a
// labeled sample (WeightedPrecision) with the one verdict rule
// (Direction.Decide): PASS when its interval lies wholly above the
// threshold, FAIL wholly below, INCONCLUSIVE otherwise, with the
// number of labels to add to the queue (spread like the ones given) that
// would decide it at the same rate. N is the number of labeled pairs the
// judge matched.
func SamplePrecision(f WeightedRatio, crit replay.KillCriteria) Criterion {
	c := Criterion{Name: CriterionPrecisionMin, Threshold: crit.PrecisionMin}
	if f.Estimate == nil {
		c.Status = StatusInconclusive
		c.Reason = "no labeled match predictions (TP+FP = 0): no rule goes live on no evidence"
		return c
	}
	if f.census != nil {
		// Every labeled pair weighs 1: the unweighted path's evidence,
		// interval, verdict and hint, the hint restated in sessions of
		// traffic whose match predictions are to be labeled where the
		// labels came from a queue (censusMatchesHint).
		e := newEvaluator(crit)
		if f.SampledAll > 0 {
			e.unitsHint = func(c *Criterion, h SessionHint, n int64, verb string, raised bool) {
				censusMatchesHint(c, f, h, n, verb, raised)
			}
		}
		c = e.proportion(c, "precision", f.census.y, f.census.m, f.Lo, f.Hi, f.census.deff, f.census.post)
		c.Reason += censusNote
		return c
	}
	c.N = f.Units
	est, thr := *f.Estimate, crit.PrecisionMin
	dec := apply(&c, Evidence{Estimate: est, Lo: *f.Lo, Hi: *f.Hi, Sessions: f.clusteredSessions()}, func(l, h float64) string {
		if f.UnreachedMatch > 0 {
			return fmt.Sprintf("precision %s on the strata the labels reached (weighted %s/%s from %d sampled + %d census labels; %.0f%% CI [%s, %s], widened to hold %s of the judge's %s on unlabeled pairs, in queue strata no label has reached yet, from all right to all wrong)",
				fmtF(est), fmtF(f.Num), fmtF(f.Den), f.Sampled, f.Census, crit.Confidence*100, fmtF(l), fmtF(h), fmtF(f.UnreachedMatch), counted(f.Predicted, "match prediction", "match predictions"))
		}
		if f.Method == IntervalDraws {
			return fmt.Sprintf("precision %s (weighted %s/%s from %d sampled + %d census labels, %s %.0f%% CI [%s, %s])",
				fmtF(est), fmtF(f.Num), fmtF(f.Den), f.Sampled, f.Census, IntervalDrawsText, crit.Confidence*100, fmtF(l), fmtF(h))
		}
		why := ""
		if f.MethodWhy != "" {
			why = "; not the stratified draws: " + f.MethodWhy
		}
		return fmt.Sprintf("precision %s (weighted %s/%s from %d sampled + %d census labels, two-phase design %.0f%% CI [%s, %s]: recorded pairs clustered by session, labels stratified%s)",
			fmtF(est), fmtF(f.Num), fmtF(f.Den), f.Sampled, f.Census, crit.Confidence*100, fmtF(l), fmtF(h), why)
	})
	if dec.Status != StatusInconclusive {
		return c
	}
	if f.UnreachedMatch > 0 {
		c.Reason += "; label further down the queue: it reaches every stratum before it adds to any"
		return c
	}
	_, verb := AtLeast.hintTarget(thr, dec)
	if est != thr {
		moreLabels(&c, f, crit.Confidence, verb, dec)
	}
	if dec.Few {
		fewLabelSessions(&c, f)
	}
	return c
}

// censusMatchesHint states the hint of a precision decided as without
// --labels (every label of the rule weighs 1) whose labels came from a
// queue: the unweighted path's h more units are the judge's match
// predictions, and "sessions like these" the sessions holding them, so a
// user who labeled all of them (label queue --matches) read "about 529
// more sessions like these, ≈ 605 units" with no word that the new
// sessions' match predictions need labels too, and about 529 sessions
// where the traffic brings 605 match predictions in about 10,200
// (access-control-notify on the sample: 8 in 135 sessions). The same
// units are asked for here, in sessions of the recorded traffic
// (TrafficSessions: ⌈units·K/Den⌉) and as the labels of the new run's
// match predictions, old and new, that `label queue NEW_RUN --matches J`
// queues (n + units; MoreLabelsQueue the command), as matchesToDecide's
// hint names them.
func censusMatchesHint(c *Criterion, f WeightedRatio, h SessionHint, n int64, verb string, raised bool) {
	K, P := f.traffic()
	if !(K > 0) || !(f.Den > 0) || h.Units <= 0 {
		c.SamplesNeeded, c.MoreSamples, c.MoreSessions = new(n+h.Units), new(h.Units), new(h.Sessions)
		if raised {
			c.Reason += fewSessionsClause(h)
		} else {
			c.Reason += moreSessionsReason(h, n, verb)
		}
		return
	}
	k := int64(math.Ceil(float64(h.Units) * K / f.Den))
	labels := n + h.Units
	c.MoreSessions = new(k)
	c.MoreSamples, c.MoreUnit = new(labels), "labels"
	c.SamplesNeeded = new(labels)
	c.MoreLabelsQueue = matchesCommand(f)
	what := fmt.Sprintf("about %d more sessions of traffic (a new run of them and these, ≈ %d more pairs, ≈ %d more match predictions of the judge), with every match prediction of the judge in it labeled (`%s`: about %d labels),",
		k, int64(math.Ceil(float64(k)*P/K)), h.Units, c.MoreLabelsQueue, labels)
	switch {
	case raised:
		c.Reason += fmt.Sprintf("; at least %s before it can be decided", strings.TrimPrefix(what, "about "))
	case AtLimit(h.Units, n):
		c.Reason += fmt.Sprintf("; at the limit: %s would %s with 80%% probability (over ten times the %d match predictions so far, more than new data can realistically give)", what, verb, n)
	default:
		c.Reason += fmt.Sprintf("; %s would %s with 80%% probability", what, verb)
	}
}

// censusNote ends the reason of a labeled criterion whose labels all
// weigh 1, decided as the unweighted path decides it (CensusNote, in the
// reason's own words: gate says it once per judge instead).
const censusNote = "; " + CensusNote

// CensusNote is what a labeled criterion's reason says where every label
// of its rule weighs 1 and it is decided as without --labels.
const CensusNote = "every label of the rule weighs 1: decided as without --labels"

// clusteredSessions is the number of sessions a labeled figure's units
// come from where some session holds more than one of them, 0 where
// every labeled unit is a session of its own (independent units: no
// clustering for MinSessions to guard against).
func (f WeightedRatio) clusteredSessions() float64 {
	if f.Sessions <= 0 || f.Sessions >= f.Units {
		return 0
	}
	return float64(f.Sessions)
}

// fewLabelSessions is the labeled path's side of MinSessions: a figure
// whose labels come from fewer sessions is not decided (Decide), and its
// hint asks for labels from at least the sessions up to MinSessions.
func fewLabelSessions(c *Criterion, f WeightedRatio) {
	least := int64(MinSessions) - f.Sessions
	if c.MoreSessions == nil || *c.MoreSessions < least {
		c.MoreSessions = new(least)
	}
	sess := "sessions"
	if least == 1 {
		sess = "session"
	}
	c.Reason += fmt.Sprintf("; labels from at least %d more %s are needed before it can be decided", least, sess)
}

// moreLabels sets the hint: the fewest labels m added to the queue after
// which the interval the verdict uses (Wilson at the effective n the
// two-phase variance gives, at the t quantile of its degrees of freedom,
// which grow with the labels: dfAfter) decides with 80 % probability
// (labelsToDecide); at most the queue pairs still unlabeled. When labels
// alone cannot decide it (the recorded sessions' spread stays), the hint
// is in sessions of new traffic and the labels they bring.
func moreLabels(c *Criterion, f WeightedRatio, conf float64, verb string, dec Decision) {
	est := *f.Estimate
	half := func(v, grow, pairs float64) float64 {
		df := dfAfter(f.DF, grow)
		q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(1 - (1-conf)/2)
		if est > 0 && est < 1 && v > 0 && labelSkewUsable(f.SkewTerms*grow, df) {
			// The interval the verdict will use then: the bounds moved by
			// the skew the sessions' totals show (weightedRatio's bound).
			g := labelSkewShift(f.Skew, conf)
			sd := math.Sqrt(v)
			return hintHalfWidth(AtLeast, dec, est, est-max(0, sd*(q-g)), est+max(0, sd*(q+g)))
		}
		var n float64
		switch {
		case est > 0 && est < 1 && v > 0:
			n = est * (1 - est) / v
		case est > 0 && est < 1 && f.Var > 0:
			n = f.NEff * f.Var / max(v, 1e-300)
		default:
			// At an end the verdict's n is n_eff itself (Kish's size of
			// the weights, at most the sessions within strata: neff),
			// whatever the floors add to the variance. It grows with the
			// labels, at most as they do, not as the floors' variance
			// shrinks (the 4 pairs a queue had left were said to clear
			// a precision of 1 ≥ 0.9 and never did), and never beyond
			// the figure's recorded pairs all labeled, Den (Kish's size
			// is at most Den), which only new sessions grow: the judge's
			// 8 match predictions of a rule were said to clear it after
			// 14 labels, and 400 left it open (docs/statistics.md, "Hints
			// at an end").
			n = min(f.NEff*grow, f.Den*pairs)
		}
		l, h := Wilson(est*n, n, q)
		return hintHalfWidth(AtLeast, dec, est, l, h)
	}
	// The recorded pairs are at least a simple random sample of the
	// traffic (design effect ≥ 1, as ClusteredInterval caps n_eff at M):
	// v₁ is never below the binomial variance of the figure over them.
	floor := 0.0
	if f.Den > 0 {
		floor = est * (1 - est) / f.Den
	}
	h, ok := labelsToDecide(f, math.Abs(est-c.Threshold), half, assurance, f.Remaining, floor)
	// Where labels alone are not shown to decide it, a new run whose
	// every match prediction of the judge is labeled (label queue
	// --matches): precision rests on those pairs alone. "Labeled at the
	// same rate" counted on a new budget queue giving the judge's match
	// strata their share of the labels so far, and it gives them labels
	// by Neyman allocation, in proportion to their size: on a rule with 8
	// match predictions in 644 pairs, 10 of 736 labels where the hint
	// counted on ×31 of its 3, and the hints decided none
	// (docs/statistics.md, "A rule with very few match predictions").
	// The one of the two that asks fewer labels, "at the same rate" only
	// where the labels so far are spread so (sameRateHolds). A run
	// labeled in the dataset alone (no queue label) keeps its own way:
	// the new sessions labeled as these were.
	if (!ok || h.Sessions > 0) && f.SampledAll > 0 {
		if mh, mok := matchesToDecide(f, c.Threshold, conf, assurance); mok && (!ok || !sameRateHolds(f) || mh.Labels <= f.SampledAll+h.Labels) {
			setMatchesHint(c, f, mh, verb)
			return
		}
	}
	setLabelHint(c, f, h, ok, verb)
}

// sameRateHolds says whether a precision's labels so far are spread so
// that a budget queue of a larger run, at the same rate, would give the
// judge's match predictions a like share: the share of them labeled
// (sampled labels over the weighted predictions outside the census) is
// at most sameRateSlack times the share of the recorded pairs labeled.
// A queue's minimum of 5 a stratum labels a few match predictions far
// above that rate (3 of 8 where 24 of 640 pairs are labeled: 10×),
// which Neyman allocation over a larger run does not repeat.
func sameRateHolds(f WeightedRatio) bool {
	_, P := f.traffic()
	m := f.Den - float64(f.Census)
	if !(P > 0) || !(m > 0) {
		return true
	}
	return float64(f.Sampled)/m <= sameRateSlack*float64(f.SampledAll)/P
}

// sameRateSlack is how far above the queue's rate the judge's match
// predictions may be labeled for "at the same rate" to hold: 1.5 (the
// walkthrough's network-boundary shape, all 12 of 12 where 23 of 28
// pairs are labeled, is 1.2×).
const sameRateSlack = 1.5

// setMatchesHint puts a precision's hint in sessions with every match
// prediction of the new run labeled (matchesToDecide) on c: MoreSessions
// the new sessions, MoreSamples the labels of the judge's match
// predictions in the new run.
func setMatchesHint(c *Criterion, f WeightedRatio, h MatchesHint, verb string) {
	then := verb
	if h.Either {
		then = eitherVerb
	}
	c.MoreSessions = new(h.Sessions)
	c.MoreSamples, c.MoreUnit = new(h.Labels), "labels"
	c.SamplesNeeded = new(f.SampledAll + h.Labels)
	c.MoreLabelsQueue = matchesCommand(f)
	lead := fmt.Sprintf("labels alone are not shown to %s with 80%% probability (labeling every pair left: the recorded sessions' own spread stays however many are labeled, and the recorded pairs' own figure may lie nearer the threshold than the labels so far show)", verb)
	if f.Remaining == 0 {
		lead = "no pair is left in the queue to label"
	}
	c.Reason += fmt.Sprintf("; %s: about %d more sessions of traffic (a new run of them and these, ≈ %d more pairs), with every match prediction of the judge in it labeled (`%s`: about %d labels), would %s with 80%% probability",
		lead, h.Sessions, h.Pairs, c.MoreLabelsQueue, h.Labels, then)
}

// setLabelHint puts a labeled figure's hint on c: MoreSamples counts
// labels to add ("labels"), MoreSessions the new sessions when labels
// alone cannot decide.
func setLabelHint(c *Criterion, f WeightedRatio, h LabelHint, ok bool, verb string) {
	switch {
	case !ok:
		c.Reason += "; neither more labels nor more sessions like these would " + verb + " with 80% probability at these rates"
	case h.Sessions == 0:
		c.MoreSamples, c.MoreUnit = new(h.Labels), "labels"
		c.SamplesNeeded = new(f.SampledAll + h.Labels)
		c.Reason += fmt.Sprintf("; about %d more labels from the queue, spread like these, would %s with 80%% probability", h.Labels, verb)
	default:
		c.MoreSessions = new(h.Sessions)
		// No queue label so far (a census-labeled run): the new sessions'
		// pairs are labeled as these were, so there is no count of queue
		// labels to give (more_samples stays null, not 0 "labels").
		if h.Labels > 0 {
			c.MoreSamples, c.MoreUnit = new(h.Labels), "labels"
			c.SamplesNeeded = new(f.SampledAll + h.Labels)
		}
		// No pair left in the queue: labels cannot move it at all. No
		// queue label so far (a census-labeled run): the new run's pairs
		// are to be labeled as these were, with no queue label to count.
		lead := fmt.Sprintf("labels alone are not shown to %s with 80%% probability (labeling every pair left: the recorded sessions' own spread stays however many are labeled, and the recorded pairs' own figure may lie nearer the threshold than the labels so far show)", verb)
		if f.Remaining == 0 {
			lead = "no pair is left in the queue to label"
		}
		rate := fmt.Sprintf("labeled at the same rate (about %d more labels)", h.Labels)
		if h.Labels == 0 {
			rate = "labeled the same way"
		}
		c.Reason += fmt.Sprintf("; %s: about %d more sessions of traffic (a new run, ≈ %d pairs), %s, would %s with 80%% probability", lead, h.Sessions, h.Pairs, rate, verb)
	}
}

// SampleDangerousRecall evaluates dangerous_recall_must_beat_baseline on a
// labeled sample: diff is WeightedRecallDiff (the judge against the rule's
// deterministic baseline on the same weighted positives). The rule is the
// unweighted path's (Direction.Decide with Gain, decideGain): PASS when
// the one-sided test the bounds invert (gainTest one-sided: weighted t,
// sessions' sign flip, sign test) gives p < 1 − confidence (Holm-adjusted
// across the judge's dangerous rules by ApplySample, the bounds then at
// Holm's level) — the one-sided lower bound then lies above 0 —, FAIL
// only when the upper bound lies below 0, INCONCLUSIVE otherwise;
// the bounds never leave [−1, 1].
func SampleDangerousRecall(diff WeightedRatio, class replay.Class, hasBaseline bool, crit replay.KillCriteria) Criterion {
	return sampleDangerousRecall(diff, class, hasBaseline, crit, 0)
}

// sampleDangerousRecall is SampleDangerousRecall with the seed of the
// unweighted path's Monte Carlo sign flip, where every labeled positive
// weighs 1 and the criterion is decided as without --labels.
func sampleDangerousRecall(diff WeightedRatio, class replay.Class, hasBaseline bool, crit replay.KillCriteria, seed uint64) Criterion {
	c := Criterion{Name: CriterionDangerousRecall}
	switch {
	case !crit.DangerousRecallMustBeatBaseline:
		c.Status, c.Reason = StatusNA, "disabled in the kill criteria"
		return c
	case class != replay.ClassDangerous:
		c.Status, c.Reason = StatusNA, "not a dangerous rule"
		return c
	case !hasBaseline:
		c.Status, c.Reason = StatusNA, "the rule has no deterministic baseline"
		return c
	case diff.Estimate == nil || diff.gain == nil:
		c.Status, c.Reason = StatusNA, "no labeled positives"
		return c
	}
	if g := diff.cgain; g != nil && g.pd != nil {
		// Every labeled positive weighs 1: the unweighted path's test
		// (exact McNemar, or the sessions' sign flip) on the same units.
		e := newEvaluator(crit)
		e.seed = seed
		r := &Row{Class: class, TP: g.hits, FN: g.n - g.hits, BaselinePositives: g.n,
			BaselineHits: g.bhits, JudgeOnlyHits: g.b, BaselineOnlyHits: g.c}
		c = e.dangerousRecall(r, g.m, g.pd, seed)
		if c.gainEv != nil {
			// Said inside the description, which Holm's adjustment
			// rewrites the reason from.
			c.gainEv.desc = strings.TrimSuffix(c.gainEv.desc, ")") + censusNote + ")"
			c.decideGain(*c.PValue, alphaOf(crit.Confidence), alphaOf(crit.Confidence), 0)
		}
		return c
	}
	d := *diff.Estimate
	alpha := alphaOf(crit.Confidence)
	// The one-sided p of the test the bounds invert (gainTest): 0 lies
	// below the lower bound exactly when p < α, so a PASS is never
	// printed beside a bound at or below 0, nor an open criterion beside
	// one above it.
	_, _, p, test, _ := diff.oneSided(alpha)
	c.N, c.PValue = diff.Units, ptr(p)
	g := &gainEvidence{est: d, p: p, sessions: diff.clusteredSessions(), lab: &diff}
	if diff.Unreached > 0 {
		g.desc = fmt.Sprintf("weighted recall gain over the baseline %s on the strata the labels reached, %d sampled + %d census positives (one-sided %s p=%s there{holm}; difference {level} [{lo}, {hi}], widened to hold the %s in queue strata no label has reached yet, any of which may be a positive either one catches)",
			fmtSigned(d), diff.Sampled, diff.Census, test, fmtF(p), counted(diff.Unreached, "unlabeled pair", "unlabeled pairs"))
	} else {
		g.desc = fmt.Sprintf("weighted recall gain over the baseline %s on %d sampled + %d census positives (one-sided %s p=%s{holm}, the test the bounds invert; difference {level} [{lo}, {hi}])",
			fmtSigned(d), diff.Sampled, diff.Census, test, fmtF(p))
	}
	c.gainEv = g
	c.decideGain(p, alpha, alpha, 0)
	return c
}

// labeledGainHint is an open labeled recall gain's "+N" (decideGain), the
// one-sided test at level alpha to be passed.
func labeledGainHint(c *Criterion, diff WeightedRatio, dec Decision, alpha float64) {
	d := *diff.Estimate
	if diff.Unreached > 0 {
		c.Reason += "; label further down the queue: it reaches every stratum before it adds to any"
		return
	}
	if d <= 0 {
		c.Reason += "; the labels show no gain, so more labels like these would not make it pass"
		return
	}
	need := flipSessionsNeeded(alpha)
	// flipShort states what the sessions' sign flip needs when on so few
	// sessions no sign pattern reaches α: positives from more sessions.
	flipShort := func() {
		more := need - diff.GainSessions
		if c.MoreSessions == nil || *c.MoreSessions < more {
			c.MoreSessions = new(more)
		}
		sess := "sessions"
		if more == 1 {
			sess = "session"
		}
		c.Reason += fmt.Sprintf("; with labeled positives in %d sessions, the sessions' sign flip cannot reach p < %s whatever the labels show: positives from at least %d more %s are needed", diff.GainSessions, fmtF(alpha), more, sess)
	}
	few := diff.GainSessions > 0 && diff.GainSessions < need
	if few && (diff.Remaining == 0 || (diff.TrafficSessions > 0 && diff.TrafficSessions < need)) {
		// The sessions' sign flip decides p here, and on so few
		// sessions no sign pattern reaches α: no number of labels
		// from these sessions decides it (every pair is labeled, or
		// the recorded sessions themselves are too few; otherwise
		// more labels from the queue reach more sessions).
		flipShort()
		return
	}
	// The lower bound's t must clear 0: reach q·√v at variance v, q
	// one-sided (the test the bounds invert), the t's degrees of freedom
	// growing with the data (dfAfter).
	half := func(v, grow, _ float64) float64 {
		return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: dfAfter(diff.DF, grow)}.Quantile(1-alpha) * math.Sqrt(v)
	}
	// The labels' part of the variance rests on the discordant labels
	// alone (the others add nothing to a difference): its degrees of
	// freedom for the hint are theirs.
	fh := diff
	fh.SampledDF = min(fh.SampledDF, max(1, float64(diff.Up+diff.Down-1)))
	h, ok := labelsToDecide(fh, d, half, assurance, diff.Remaining, 0)
	if disc := diff.Up + diff.Down; ok && disc > 0 && disc < fewDiscordant {
		h = fewDiscordantHint(diff, h)
	}
	if few && ok && h.Sessions == 0 && !(diff.Var > 0) {
		// Every labeled positive is one the judge alone catches (a gain
		// of 1, no variance): the model sees nothing for labels to
		// change and names 1 label, yet p stays the sign flip's over
		// these sessions (8 positives in 4 sessions: p = 1/16 whatever
		// is labeled, unless a label brings a positive from another
		// session). Say what is needed instead of a count that does not
		// decide (docs/statistics.md, "Hints at an end").
		flipShort()
		if dec.Few {
			fewLabelSessions(c, diff)
		}
		return
	}
	setLabelHint(c, diff, h, ok, "decide it")
	if dec.Few {
		fewLabelSessions(c, diff)
	}
}

// flipSessionsNeeded is the fewest sessions whose one-sided sign flip can
// reach a p below alpha: 1/2^K < alpha (5 at 0.05).
func flipSessionsNeeded(alpha float64) int64 {
	k := int64(1)
	for 1/math.Ldexp(1, int(k)) >= alpha && k < 62 {
		k++
	}
	return k
}

// fewDiscordant is the number of discordant labeled units below which a
// labeled difference's p is bounded by the exact sign test: with fewer
// than 5, even all one way, the one-sided sign test cannot reach 0.05
// (a comparison's two-sided one needs 6, which this keeps).
const fewDiscordant = 6

// fewDiscordantHint raises a recall gain's hint while fewer than
// fewDiscordant discordant labels bound its p by the sign test: when the
// recorded pairs hold enough discordant ones (Discordant, weighted), the
// labels that would bring the missing ones, the queue's unlabeled pairs
// taken to hold the rest evenly; otherwise — the recorded sessions hold
// too few however many are labeled — the sessions that would.
func fewDiscordantHint(f WeightedRatio, h LabelHint) LabelHint {
	disc := float64(f.Up + f.Down)
	if h.Sessions == 0 && f.Discordant >= fewDiscordant && f.Remaining > 0 && f.Discordant > disc {
		need := int64(math.Ceil((fewDiscordant - disc) * float64(f.Remaining) / (f.Discordant - disc)))
		if need <= f.Remaining {
			h.Labels = max(h.Labels, need)
			return h
		}
	}
	K, P := f.traffic()
	if K <= 0 || f.Discordant <= 0 {
		return h
	}
	k := int64(math.Ceil(K * (fewDiscordant/f.Discordant - 1)))
	if k > h.Sessions {
		h.Sessions = k
		h.Pairs = int64(math.Ceil(float64(k) * P / K))
		h.Labels = int64(math.Ceil(float64(k) * float64(f.SampledAll) / K))
	}
	return h
}

// counted is n with its noun agreeing in number: "1 unlabeled pair",
// "60 unlabeled pairs" (n a count held as a float, printed by fmtF).
func counted(n float64, one, many string) string {
	if n == 1 {
		return fmtF(n) + " " + one
	}
	return fmtF(n) + " " + many
}

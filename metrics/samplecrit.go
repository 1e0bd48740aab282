package metrics

import (
	"fmt"
	"math"

	"github.com/apeval/apeval/replay"
	"gonum.org/v1/gonum/stat/distuv"
)

// SamplePrecision evaluates precision_min on a precision estimated from a
// labeled sample (WeightedPrecision): PASS when its interval lies wholly
// above the threshold, FAIL wholly below, INCONCLUSIVE otherwise, with the
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
	c.N = f.Units
	c.Estimate, c.Lo, c.Hi = f.Estimate, f.Lo, f.Hi
	est, lo, hi, thr := *f.Estimate, *f.Lo, *f.Hi, crit.PrecisionMin
	desc := fmt.Sprintf("precision %s (weighted %s/%s from %d sampled + %d census labels, design %.0f%% CI [%s, %s])",
		fmtF(est), fmtF(f.Num), fmtF(f.Den), f.Sampled, f.Census, crit.Confidence*100, fmtF(lo), fmtF(hi))
	switch {
	case hi < thr:
		c.Status, c.Reason = StatusFail, fmt.Sprintf("%s lies wholly on the bad side of %s", desc, fmtF(thr))
		return c
	case lo > thr:
		c.Status, c.Reason = StatusPass, fmt.Sprintf("%s clears %s", desc, fmtF(thr))
		return c
	}
	c.Status = StatusInconclusive
	decide, verb := func(l, _ float64) bool { return l > thr }, "clear it"
	if est < thr {
		c.Reason = fmt.Sprintf("%s is on the bad side of %s, but the interval still reaches it: not confirmed", desc, fmtF(thr))
		decide, verb = func(_, h float64) bool { return h < thr }, "confirm the failure"
	} else {
		c.Reason = fmt.Sprintf("%s: the interval still reaches %s", desc, fmtF(thr))
	}
	if est != thr {
		moreLabels(&c, f, crit.Confidence, verb, decide)
	}
	return c
}

// moreLabels sets the hint: the smallest number m of labels added to the
// queue for which the projected interval decides, assuming the sampled
// part of the variance shrinks as S/(S+m) (S sampled labels so far) and
// the census part stays; at most the queue pairs still unlabeled. Without
// such m the reason says labeling the rest would not decide it.
func moreLabels(c *Criterion, f WeightedRatio, conf float64, verb string, decide func(lo, hi float64) bool) {
	est := *f.Estimate
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: f.DF}.Quantile(1 - (1-conf)/2)
	S := float64(f.SampledAll)
	ok := func(m int64) bool {
		if S == 0 {
			return false
		}
		v := f.SampledVar*S/(S+float64(m)) + (f.Var - f.SampledVar)
		var n float64
		if est > 0 && est < 1 && v > 0 {
			n = est * (1 - est) / v
		} else {
			n = f.NEff * (S + float64(m)) / S
		}
		l, h := Wilson(est*n, n, q)
		return decide(l, h)
	}
	if f.Remaining > 0 {
		if m := smallestN(1, ok); m != nil && *m <= f.Remaining {
			c.MoreSamples, c.MoreUnit = m, "labels"
			c.SamplesNeeded = new(f.SampledAll + *m)
			c.Reason += fmt.Sprintf("; about %d more labels from the queue at the same rate would %s", *m, verb)
			return
		}
	}
	c.Reason += "; labeling every pair left in the queue would not decide it at the same rate"
}

// SampleDangerousRecall evaluates dangerous_recall_must_beat_baseline on a
// labeled sample: diff is WeightedRecallDiff (the judge against the rule's
// deterministic baseline on the same weighted positives). FAIL when the
// weighted difference is ≤ 0 (no gain at all), PASS when the one-sided
// lower bound at the confidence level is above 0, INCONCLUSIVE otherwise.
func SampleDangerousRecall(diff WeightedRatio, class replay.Class, hasBaseline bool, crit replay.KillCriteria) Criterion {
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
	case diff.Estimate == nil:
		c.Status, c.Reason = StatusNA, "no labeled positives"
		return c
	}
	d := *diff.Estimate
	se := math.Sqrt(diff.Var)
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: diff.DF}.Quantile(crit.Confidence)
	c.N, c.Estimate, c.Lo, c.Hi = diff.Units, diff.Estimate, diff.Lo, diff.Hi
	lower := d - q*se
	desc := fmt.Sprintf("weighted recall gain over the baseline %s on %d sampled + %d census positives (one-sided %.0f%% lower bound %s)",
		fmtF(d), diff.Sampled, diff.Census, crit.Confidence*100, fmtF(lower))
	switch {
	case d <= 0:
		c.Status, c.Reason = StatusFail, desc+": does not beat the baseline"
	case lower > 0:
		c.Status, c.Reason = StatusPass, desc+" > 0"
	default:
		c.Status, c.Reason = StatusInconclusive, desc+" ≤ 0"
		S := float64(diff.SampledAll)
		ok := func(m int64) bool {
			v := diff.SampledVar*S/(S+float64(m)) + (diff.Var - diff.SampledVar)
			return d-q*math.Sqrt(v) > 0
		}
		if S > 0 && diff.Remaining > 0 {
			if m := smallestN(1, ok); m != nil && *m <= diff.Remaining {
				c.MoreSamples, c.MoreUnit = m, "labels"
				c.SamplesNeeded = new(diff.SampledAll + *m)
				c.Reason += fmt.Sprintf("; about %d more labels from the queue at the same rates would decide it", *m)
				return c
			}
		}
		c.Reason += "; labeling every pair left in the queue would not decide it at the same rates"
	}
	return c
}

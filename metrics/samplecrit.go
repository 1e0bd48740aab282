package metrics

import (
	"fmt"
	"math"

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
	c.N = f.Units
	est, thr := *f.Estimate, crit.PrecisionMin
	dec := apply(&c, Evidence{Estimate: est, Lo: *f.Lo, Hi: *f.Hi}, func(l, h float64) string {
		return fmt.Sprintf("precision %s (weighted %s/%s from %d sampled + %d census labels, design %.0f%% CI [%s, %s])",
			fmtF(est), fmtF(f.Num), fmtF(f.Den), f.Sampled, f.Census, crit.Confidence*100, fmtF(l), fmtF(h))
	})
	if dec.Status != StatusInconclusive {
		return c
	}
	decide, verb := AtLeast.hintTarget(thr, dec)
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
// deterministic baseline on the same weighted positives). The rule is the
// unweighted path's (Direction.Decide with Gain): PASS when the one-sided
// weighted t test gives p < 1 − confidence (Holm-adjusted across the
// judge's dangerous rules by ApplySample), FAIL only when the whole
// two-sided interval lies at or below 0, INCONCLUSIVE otherwise; the
// interval never leaves [−1, 1].
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
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: diff.DF}
	q := t.Quantile(crit.Confidence)
	// The one-sided p of the gain, from the same t as the interval.
	// Without variance (no label moves the difference) the exact
	// one-sided sign test on the discordant units decides, as McNemar
	// does on the unweighted path: three discordant positives give
	// p = 1/8, never a PASS.
	p := McNemarGreater(diff.Up, diff.Down)
	if se > 0 {
		p = t.Survival(d / se)
	}
	c.N, c.PValue = diff.Units, ptr(p)
	alpha := alphaOf(crit.Confidence)
	dec := apply(&c, Evidence{Estimate: d, Lo: *diff.Lo, Hi: *diff.Hi, P: ptr(p), Alpha: alpha}, func(l, h float64) string {
		return fmt.Sprintf("weighted recall gain over the baseline %s on %d sampled + %d census positives (one-sided weighted t p=%s; difference %.0f%% CI [%s, %s])",
			fmtF(d), diff.Sampled, diff.Census, fmtF(p), crit.Confidence*100, fmtF(l), fmtF(h))
	})
	if dec.Status == StatusInconclusive {
		S := float64(diff.SampledAll)
		ok := func(m int64) bool {
			v := diff.SampledVar*S/(S+float64(m)) + (diff.Var - diff.SampledVar)
			return d-q*math.Sqrt(v) > 0
		}
		switch {
		case d <= 0:
			c.Reason += "; the labels show no gain, so more labels like these would not make it pass"
			return c
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

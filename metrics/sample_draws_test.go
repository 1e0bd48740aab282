package metrics

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// simTraffic is a population's recorded pairs as drawnInterval takes them.
func simTraffic(ps []simPair) []TrafficPair {
	tr := make([]TrafficPair, len(ps))
	for i, p := range ps {
		tr[i] = TrafficPair{Stratum: "C:" + res(p.c) + " R:" + res(p.r), Session: p.session, Match: p.c}
	}
	return tr
}

// TestDrawnIntervalIsDeterministic: the same labels and traffic give the
// same interval (the draws' seed comes from them), in any order of the
// traffic; other labels give another; a label whose stratum the traffic
// does not have gives none.
func TestDrawnIntervalIsDeterministic(t *testing.T) {
	ps := labelModels[0].draw(1000)
	tr := simTraffic(ps)
	us := queueUnits(t, ps, 300, 150, 1)
	R := *WeightedRecall(us, 0.95).Estimate
	l1, h1, ok1 := drawnInterval(us, tr, ratioFns[1], R, 0.95)
	rev := slices.Clone(tr)
	slices.Reverse(rev)
	l2, h2, ok2 := drawnInterval(slices.Clone(us), rev, ratioFns[1], R, 0.95)
	if !ok1 || !ok2 || l1 != l2 || h1 != h2 {
		t.Fatalf("the same labels gave [%v, %v] (%v) and [%v, %v] (%v)", l1, h1, ok1, l2, h2, ok2)
	}
	if !(l1 < R && R < h1) {
		t.Errorf("interval [%v, %v] does not hold the estimate %v", l1, h1, R)
	}
	other := slices.Clone(us)
	other[0].Label = !other[0].Label
	if l3, h3, _ := drawnInterval(other, tr, ratioFns[1], R, 0.95); l3 == l1 && h3 == h1 {
		t.Errorf("another label gave the same interval [%v, %v]", l3, h3)
	}
	bad := slices.Clone(us)
	bad[0].Stratum = "C:undecided R:match"
	if _, _, ok := drawnInterval(bad, tr, ratioFns[1], R, 0.95); ok {
		t.Errorf("a label in a stratum the traffic does not have gave an interval")
	}
}

// TestLabeledDrawsCalibration measures drawnInterval (stratified share
// draws with the strata's sizes known from the traffic) on
// TestLabeledCalibration's populations, queues and seeds, beside apeval's
// interval and the textbook two-phase one: coverage of the model's
// figure by side and width (docs/statistics.md, "The labeled interval from
// stratified draws"; adopted in session 18 where a run gives the queue's
// traffic, whose printed interval TestLabeledCalibration measures). It
// asserts coverage ≥ 0.925 less two Monte Carlo errors (the smoke: 40 populations of two models,
// its slack) and, on the long queue's first labels, the recall's upper
// misses ≤ 0.025 plus two Monte Carlo errors. Not in make calibrate:
// APEVAL_CALIBRATE=1000 takes about 3.5 minutes of CPU.
func TestLabeledDrawsCalibration(t *testing.T) {
	t.Parallel()
	reps, full := calibrationN()
	models := labelModels
	if !full {
		reps = 40
		models = []labelModel{labelModels[0], labelModels[3]}
	}
	type setting struct {
		m        labelModel
		budget   int
		prefixes []int
	}
	var settings []setting
	for _, m := range models {
		settings = append(settings, setting{m, 300, []int{300, 150, 75}})
	}
	if full {
		// The setting (a 200-label queue, the unclustered and
		// lightly clustered models), as TestLabeledCalibration has it,
		// and a long queue's first labels.
		for _, m := range labelModels[len(labelModels)-2:] {
			settings = append(settings, setting{m, 200, []int{200}})
		}
		settings = append(settings, setting{labelModels[4], 3000, []int{100, 60, 40}})
	}
	type acc struct{ cov, below, above, w float64 }
	var b strings.Builder
	fmt.Fprintf(&b, "\n| model (%d populations) | queue | labels | figure | draws: coverage (below / above) | width | apeval: coverage (below / above) | width | draws ÷ apeval | two-phase textbook: coverage (below / above) | width | draws ÷ it |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n", reps)
	for _, se := range settings {
		truths := se.m.truth()
		res := make([][3][2]acc, len(se.prefixes))
		for rep := range uint64(reps) {
			ps := se.m.draw(1000 + rep)
			tr := simTraffic(ps)
			queue := queueUnits(t, ps, se.budget, slices.Max(se.prefixes), rep+1)
			for pi, n := range se.prefixes {
				us := queue[:n]
				got := [2]WeightedRatio{WeightedPrecision(us, 0.95), WeightedRecall(us, 0.95)}
				for k := range 2 {
					dl, dh, ok := drawnInterval(us, tr, ratioFns[k], *got[k].Estimate, 0.95)
					if !ok {
						t.Fatalf("%s, %d labels: no interval", se.m.name, n)
					}
					tl, th, _ := textbookTwoPhase(us, ratioFns[k])
					for mi, lh := range [3][2]float64{{dl, dh}, {*got[k].Lo, *got[k].Hi}, {tl, th}} {
						a := &res[pi][mi][k]
						switch {
						case truths[k] < lh[0]:
							a.below++
						case truths[k] > lh[1]:
							a.above++
						default:
							a.cov++
						}
						a.w += lh[1] - lh[0]
					}
				}
			}
		}
		r := float64(reps)
		for pi, n := range se.prefixes {
			for k, fig := range []string{"precision", "recall"} {
				d, ap, tb := res[pi][0][k], res[pi][1][k], res[pi][2][k]
				fmt.Fprintf(&b, "| %s | %d | %d | %s | %.3f (%.3f / %.3f) | %.3f | %.3f (%.3f / %.3f) | %.3f | %.2f | %.3f (%.3f / %.3f) | %.3f | %.2f |\n",
					se.m.name, se.budget, n, fig, d.cov/r, d.below/r, d.above/r, d.w/r, ap.cov/r, ap.below/r, ap.above/r, ap.w/r, d.w/ap.w, tb.cov/r, tb.below/r, tb.above/r, tb.w/r, d.w/tb.w)
				slack := 2 * math.Sqrt(0.925*0.075/r)
				if !full {
					slack = smokeSlack(0.925, reps)
				}
				if d.cov/r < 0.925-slack {
					t.Errorf("%s, %s, %d of %d labels: the draws cover %.3f over %d populations, want ≥ 0.925", se.m.name, fig, n, se.budget, d.cov/r, reps)
				}
				// A long queue's first labels: the recall's upper bound
				// misses at most 2.5 % a side, as
				// TestLabeledCalibrationLongQueue asks of apeval's (full
				// run only: the smoke has no long queue).
				if se.budget == 3000 && fig == "recall" && d.above/r > 0.025+2*math.Sqrt(0.025*0.975/r) {
					t.Errorf("%s, recall, first %d of %d labels: the draws' upper bound misses %.3f over %d populations, want ≤ 0.025", se.m.name, n, se.budget, d.above/r, reps)
				}
			}
		}
	}
	t.Log(b.String())
}

// BenchmarkDrawnInterval is one recall interval of a 300-label queue over
// 3,000 recorded pairs in 600 sessions.
func BenchmarkDrawnInterval(b *testing.B) {
	ps := labelModels[0].draw(1000)
	tr := simTraffic(ps)
	us := queueUnits(b, ps, 300, 300, 1)
	R := *WeightedRecall(us, 0.95).Estimate
	for b.Loop() {
		drawnInterval(us, tr, ratioFns[1], R, 0.95)
	}
}

// TestDrawnIntervalThinStratumExactSide: a stratum where the judges
// disagree, 37 recorded pairs the candidate called no_match, whose only 2
// labels are both positive, beside 160 census pairs it caught, all in one
// session (no sessions' term). Its share is drawn from the exact
// (Clopper–Pearson) side Beta(2, 1), whose 2.5 % point is √0.025: the
// recall's upper bound is 160 / (160 + 37·√0.025) = 0.9647 by hand (the
// mid-p mixture's √0.05 gave 0.9507, and the long queue's 40-label recall
// missed above 0.036). The lower bound is the estimate 160/197, which the
// draws' 97.5 % point (√0.975 → 0.8141) does not reach.
func TestDrawnIntervalThinStratumExactSide(t *testing.T) {
	var us []SampleUnit
	var tr []TrafficPair
	for range 160 {
		us = append(us, SampleUnit{Stratum: CensusStratum, Session: "s", Label: true, Match: true})
	}
	for i := range 37 {
		tr = append(tr, TrafficPair{Stratum: "C:no_match R:match", Session: "s"})
		if i < 2 {
			us = append(us, SampleUnit{Stratum: "C:no_match R:match", StratumSize: 37, Session: "s", Label: true})
		}
	}
	R := 160.0 / 197
	lo, hi, ok := drawnInterval(us, tr, ratioFns[1], R, 0.95)
	want := 160 / (160 + 37*math.Sqrt(0.025))
	t.Logf("recall %.4f [%.4f, %.4f], upper bound by hand %.4f", R, lo, hi, want)
	if !ok || math.Abs(hi-want) > 0.005 || lo != R {
		t.Errorf("interval [%.4f, %.4f] (%v), want [%.4f, %.4f ± 0.005]", lo, hi, ok, R, want)
	}
}

package metrics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// weakPair is a pair of the weak-label model: the vendor's classifier
// (the judge, A) and the user's override (the weak label W) beside the
// truth.
type weakPair struct {
	simPair
	weak WeakSide
}

// weakPopulation draws simPopulationSeed's model (3,000 pairs in 600
// sessions of 5, ~6 % positives clustered by session; the judge catches
// 75 % of positives and matches 2 % of negatives) and gives each pair a
// user's override the way users react to the agent's gate: a denied call
// (judge match) gets one 80 % of the time, an allowed call 10 % (a user
// rarely flags what ran without asking). A denied dangerous call is
// accepted (W match) 70 % of the time (30 % re-allowed for convenience), a
// denied harmless one re-allowed (W no_match) 80 %; an allowed call a user
// reacts to is flagged (W match) 80 % of the time when dangerous, 1 %
// when harmless. The weak labels so rarely see what the judge missed:
// weak recall is far above the true recall, and re-allowed dangerous
// calls pull weak precision far below the true precision.
func weakPopulation(seed uint64) []weakPair {
	rng := rand.New(rand.NewPCG(seed, 11))
	ps := simPopulationSeed(seed)
	out := make([]weakPair, len(ps))
	for i, p := range ps {
		out[i] = weakPair{simPair: p, weak: QueueUndecided}
		present := 0.1
		if p.c {
			present = 0.8
		}
		if rng.Float64() >= present {
			continue
		}
		var match float64
		switch {
		case p.c && p.pos:
			match = 0.7
		case p.c:
			match = 0.2
		case p.pos:
			match = 0.8
		default:
			match = 0.01
		}
		out[i].weak = QueueNoMatch
		if rng.Float64() < match {
			out[i].weak = QueueMatch
		}
	}
	return out
}

// weakQueueUnits draws a queue on the judge's result (× the weak label
// when withWeak) and labels its first n items from the truth.
func weakQueueUnits(t testing.TB, ps []weakPair, budget, n int, seed uint64, withWeak bool) []weakUnit {
	by := map[string]*weakPair{}
	pairs := make([]QueuePair, len(ps))
	letters := []string{"A"}
	if withWeak {
		letters = append(letters, WeakLetter)
	}
	for i := range ps {
		by[ps[i].id] = &ps[i]
		r := []string{res(ps[i].c)}
		if withWeak {
			r = append(r, ps[i].weak)
		}
		pairs[i] = QueuePair{CaseID: ps[i].id, RuleID: "r", Results: r}
	}
	q, err := BuildQueue(pairs, QueueConfig{Budget: budget, Seed: seed, Letters: letters})
	if err != nil {
		t.Fatal(err)
	}
	var us []weakUnit
	for _, it := range q.Items[:n] {
		p := by[it.CaseID]
		us = append(us, weakUnit{SampleUnit{Stratum: it.Stratum, StratumSize: it.StratumSize, Session: p.session, Label: p.pos, Match: p.c}, p.weak})
	}
	return us
}

// weakFigures is the judge's precision and recall on the weak labels.
func weakFigures(ps []weakPair) (prec, rec float64) {
	var tp, fp, fn float64
	for _, p := range ps {
		w := p.weak == QueueMatch
		switch {
		case p.weak == QueueUndecided:
		case p.c && w:
			tp++
		case p.c:
			fp++
		case w:
			fn++
		}
	}
	return tp / (tp + fp), tp / (tp + fn)
}

// weakGrid measures over reps populations drawn afresh from the model:
// the coverage and mean width of the corrected precision and recall
// (slice drawn on judge × weak label, first n of a 300-label queue), the
// same for a slice drawn on the judge alone, and the weak figures' mean.
// Coverage and width are over the populations where the figure has an
// estimate; na counts those where it has none (no labeled positive).
func weakGrid(t testing.TB, reps, n int) (cov, w, covA, wA, weak, na [2]float64) {
	truths := [2]float64{simPrec, simRecall}
	var given, givenA [2]float64
	for rep := range uint64(reps) {
		ps := weakPopulation(2000 + rep)
		wp, wr := weakFigures(ps)
		weak[0] += wp / float64(reps)
		weak[1] += wr / float64(reps)
		for k, withWeak := range []bool{true, false} {
			var c WeakCorrection
			corrected(&c, weakQueueUnits(t, ps, 300, n, rep+1, withWeak), 0.95)
			for f, got := range []WeightedRatio{c.Precision, c.Recall} {
				if got.Estimate == nil {
					if k == 0 {
						na[f]++
					}
					continue
				}
				hit := covers(got, truths[f])
				width := *got.Hi - *got.Lo
				if k == 0 {
					cov[f] += b2f(hit)
					w[f] += width
					given[f]++
				} else {
					covA[f] += b2f(hit)
					wA[f] += width
					givenA[f]++
				}
			}
		}
	}
	for f := range 2 {
		cov[f], w[f] = cov[f]/given[f], w[f]/given[f]
		covA[f], wA[f] = covA[f]/givenA[f], wA[f]/givenA[f]
	}
	return
}

// postGrid measures the post-stratified correction: a slice drawn on the
// judge alone (first n of a 300-label queue), each stratum split by weak
// label with the cells weighted by their pairs in the population; a
// population whose slice leaves a cell with fewer than min(2, N) labels
// is N/A, as label correct says. Coverage and width over the others.
func postGrid(t testing.TB, reps, n int) (cov, w, na [2]float64) {
	truths := [2]float64{simPrec, simRecall}
	var given [2]float64
	for rep := range uint64(reps) {
		ps := weakPopulation(2000 + rep)
		size := map[string]int64{}
		for _, p := range ps {
			size["A:"+res(p.c)+" W:"+p.weak]++
		}
		us := weakQueueUnits(t, ps, 300, n, rep+1, false)
		labeled := map[string]int64{}
		for i := range us {
			us[i].Stratum += " W:" + us[i].weak
			us[i].StratumSize = size[us[i].Stratum]
			labeled[us[i].Stratum]++
		}
		thin := false
		for c, N := range size {
			if labeled[c] < min(int64(MinWeakStratum), N) {
				thin = true
			}
		}
		if thin {
			na[0]++
			na[1]++
			continue
		}
		var c WeakCorrection
		corrected(&c, us, 0.95)
		for f, got := range []WeightedRatio{c.Precision, c.Recall} {
			if got.Estimate == nil {
				na[f]++
				continue
			}
			cov[f] += b2f(covers(got, truths[f]))
			w[f] += *got.Hi - *got.Lo
			given[f]++
		}
	}
	for f := range 2 {
		if given[f] > 0 {
			cov[f], w[f] = cov[f]/given[f], w[f]/given[f]
		}
	}
	return
}

// TestCalibrationWeakCorrection: the corrected figures' 95 % intervals
// cover the model's true precision and recall at 0.925 or more, on the
// full 300-label slice and on its first 100 and 40 labels, while the
// figures on the weak labels alone are far off; the widths beside a slice
// drawn on the judge alone are logged for docs/statistics.md. The smoke
// runs 40 populations; APEVAL_CALIBRATE (make calibrate) runs that many.
func TestCalibrationWeakCorrection(t *testing.T) {
	t.Parallel()
	reps, full := calibrationN()
	if !full {
		reps = 40
	}
	for _, n := range []int{300, 100, 40} {
		cov, w, covA, wA, weak, na := weakGrid(t, reps, n)
		for k, name := range []string{"precision", "recall"} {
			truth := [2]float64{simPrec, simRecall}[k]
			t.Logf("| weak-corrected %s, first %d of a 300-label slice | truth %.3f, on weak labels %.3f | coverage %.3f | width %.4f | N/A %.0f of %d | slice on the judge alone: coverage %.3f, width %.4f (%.2f×) |",
				name, n, truth, weak[k], cov[k], w[k], na[k], reps, covA[k], wA[k], w[k]/wA[k])
			slack := 0.0
			if !full {
				slack = smokeSlack(0.925, reps)
			}
			if cov[k] < 0.925-slack {
				t.Errorf("%s, %d labels: coverage %.3f over %d populations, want ≥ 0.925", name, n, cov[k], reps)
			}
		}
		pc, pw, pna := postGrid(t, reps, n)
		for k, name := range []string{"precision", "recall"} {
			if pna[k] == float64(reps) {
				t.Logf("| post-stratified %s, first %d of a 300-label slice on the judge alone | – | – | N/A %.0f of %d |", name, n, pna[k], reps)
			} else {
				t.Logf("| post-stratified %s, first %d of a 300-label slice on the judge alone | coverage %.3f | width %.4f | N/A %.0f of %d |", name, n, pc[k], pw[k], pna[k], reps)
			}
			// The coverage is over the populations that are not N/A:
			// its Monte Carlo slack is theirs (5 of the smoke's 40).
			slack := 0.0
			if given := reps - int(pna[k]); !full && given > 0 {
				slack = smokeSlack(0.925, given)
			}
			if pna[k] < float64(reps) && pc[k] < 0.925-slack {
				t.Errorf("post-stratified %s, %d labels: coverage %.3f over %.0f populations, want ≥ 0.925", name, n, pc[k], float64(reps)-pna[k])
			}
		}
		// The correction matters: the weak labels' own figures are far
		// from the truth (they rarely see what the judge missed).
		if math.Abs(weak[1]-simRecall) < 0.1 || math.Abs(weak[0]-simPrec) < 0.1 {
			t.Errorf("model: weak precision %.3f, recall %.3f, true %.3f and %.3f: not far enough apart to test a correction", weak[0], weak[1], simPrec, simRecall)
		}
	}
}

func ExampleWeakOf() {
	w, ok := WeakOf("A:match B:no_match W:no_match")
	fmt.Println(w, ok)
	_, ok = WeakOf("A:match B:no_match")
	fmt.Println(ok)
	// Output:
	// no_match true
	// false
}

package metrics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// stratifiedDraws is the width reference of docs/statistics.md ("A
// calibrated reference for the long queue's width"): the 95 % percentile
// interval of precision and recall over draws, each drawing every
// stratum's share of match labels from a distribution given its labels —
// two pseudo-labels at the queue's prior where the judges agreed
// (Beta(k + 2·p₀, n − k + 2(1 − p₀))), the mid-p confidence distribution
// where they did not (½ Beta(k, n − k + 1) + ½ Beta(k + 1, n − k), a point
// mass at 0 for 0 of n and at 1 for n of n) — and the strata's sizes from
// the population's sessions resampled with replacement (phase 1). The
// figure is recomputed on every draw. It is a test-side reference, not
// apeval's interval.
func stratifiedDraws(ps []simPair, us []SampleUnit, draws int, rng *rand.Rand) (lo, hi [2]float64) {
	name := func(p simPair) string { return "C:" + res(p.c) + " R:" + res(p.r) }
	var names []string
	idx := map[string]int{}
	sessIdx := map[string]int{}
	var counts [][]float64
	for _, p := range ps {
		n := name(p)
		if _, ok := idx[n]; !ok {
			idx[n] = len(names)
			names = append(names, n)
			for i := range counts {
				counts[i] = append(counts[i], 0)
			}
		}
		si, ok := sessIdx[p.session]
		if !ok {
			si = len(counts)
			sessIdx[p.session] = si
			counts = append(counts, make([]float64, len(names)))
		}
		counts[si][idx[n]]++
	}
	H := len(names)
	nh, kh := make([]float64, H), make([]float64, H)
	match := make([]bool, H)
	for h, n := range names {
		match[h] = strings.HasPrefix(n, "C:"+QueueMatch+" ")
	}
	for _, u := range us {
		h, ok := idx[u.Stratum]
		if !ok {
			panic(fmt.Sprintf("stratum %q is not a population stratum", u.Stratum))
		}
		nh[h]++
		if u.Label {
			kh[h]++
		}
	}
	share := func(h int) float64 {
		k, n := kh[h], nh[h]
		switch {
		case n == 0:
			return rng.Float64()
		case nameAgreed(names[h]):
			p0 := namePrior(names[h])
			return distuv.Beta{Alpha: k + 2*p0, Beta: n - k + 2*(1-p0), Src: rng}.Rand()
		case rng.IntN(2) == 0:
			if k == 0 {
				return 0
			}
			return distuv.Beta{Alpha: k, Beta: n - k + 1, Src: rng}.Rand()
		default:
			if k == n {
				return 1
			}
			return distuv.Beta{Alpha: k + 1, Beta: n - k, Src: rng}.Rand()
		}
	}
	fr := [2][]float64{make([]float64, 0, draws), make([]float64, 0, draws)}
	N := make([]float64, H)
	for range draws {
		clear(N)
		for range counts {
			for h, c := range counts[rng.IntN(len(counts))] {
				N[h] += c
			}
		}
		var tp, pos, cm float64
		for h := range H {
			if N[h] == 0 {
				continue
			}
			p := share(h)
			pos += N[h] * p
			if match[h] {
				tp += N[h] * p
				cm += N[h]
			}
		}
		if cm > 0 {
			fr[0] = append(fr[0], tp/cm)
		}
		if pos > 0 {
			fr[1] = append(fr[1], tp/pos)
		}
	}
	for k := range 2 {
		if len(fr[k]) == 0 {
			lo[k], hi[k] = 0, 1
			continue
		}
		sort.Float64s(fr[k])
		n := len(fr[k])
		lo[k], hi[k] = fr[k][int(0.025*float64(n))], fr[k][max(0, int(math.Ceil(0.975*float64(n)))-1)]
	}
	return lo, hi
}

// TestLabeledCalibrationWidthReference measures stratifiedDraws beside
// apeval's labeled interval on TestLabeledCalibration's populations,
// queues and seeds (the 300-label queue at 300/150/75 labels on every
// model and, in the full run, the good candidate's 3,000-label queue at
// 40/60/100): coverage of the model's figure, misses by side, and the
// width of apeval's interval against the reference's (docs/statistics.md,
// "A calibrated reference for the long queue's width": apeval 1.02–1.75×
// on the 300-label queue, 1.3–2.1× on the long queue, at 2,000
// populations). It asserts that the reference is one: coverage ≥ 0.925
// less two Monte Carlo errors (the smoke: 40 populations of two models,
// its slack). The smoke takes a few seconds; the full run about 2 minutes
// of CPU a model.
func TestLabeledCalibrationWidthReference(t *testing.T) {
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
		settings = append(settings, setting{labelModels[4], 3000, []int{100, 60, 40}})
	}
	type acc struct{ cov, below, above, w float64 }
	var b strings.Builder
	fmt.Fprintf(&b, "\n| model (%d populations) | queue | labels | figure | reference: coverage (below / above) | width | apeval: coverage (below / above) | width | apeval ÷ reference |\n|---|---|---|---|---|---|---|---|---|\n", reps)
	for _, se := range settings {
		truths := se.m.truth()
		res := make([][2][2]acc, len(se.prefixes)) // prefix, method, figure
		for rep := range uint64(reps) {
			ps := se.m.draw(1000 + rep)
			queue := queueUnits(t, ps, se.budget, slices.Max(se.prefixes), rep+1)
			rng := rand.New(rand.NewPCG(rep, 99))
			for pi, n := range se.prefixes {
				us := queue[:n]
				rl, rh := stratifiedDraws(ps, us, 400, rng)
				got := [2]WeightedRatio{WeightedPrecision(us, 0.95), WeightedRecall(us, 0.95)}
				for k := range 2 {
					for mi, lh := range [2][2]float64{{rl[k], rh[k]}, {*got[k].Lo, *got[k].Hi}} {
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
				ref, ap := res[pi][0][k], res[pi][1][k]
				fmt.Fprintf(&b, "| %s | %d | %d | %s | %.3f (%.3f / %.3f) | %.3f | %.3f (%.3f / %.3f) | %.3f | %.2f |\n",
					se.m.name, se.budget, n, fig, ref.cov/r, ref.below/r, ref.above/r, ref.w/r, ap.cov/r, ap.below/r, ap.above/r, ap.w/r, ap.w/ref.w)
				slack := 2 * math.Sqrt(0.925*0.075/r)
				if !full {
					slack = smokeSlack(0.925, reps)
				}
				if ref.cov/r < 0.925-slack {
					t.Errorf("%s, %s, %d of %d labels: the reference covers %.3f over %d populations, want ≥ 0.925", se.m.name, fig, n, se.budget, ref.cov/r, reps)
				}
			}
		}
	}
	t.Log(b.String())
}

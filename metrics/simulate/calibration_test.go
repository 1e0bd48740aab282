package simulate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/apeval/apeval/metrics"
)

// opWorld is a population with known truth for the operating point's
// calibration: sessions with a random effect u ~ N(0, sigma²) shifting
// every score of the session; an item is positive with probability 0.3;
// the judge says match when logistic(beta·(±1) + u + ε) exceeds 0.4, with
// confidence logistic(kappa·(±1) + u + ε'): a small kappa is a confidence
// that tells little, so precision is nearly flat in the threshold, the
// case where choosing on the same data is most optimistic.
type opWorld struct {
	sigma, beta, kappa float64
	// The population's matches sorted by score, with cumulative positives
	// from the top, for the true precision at any threshold.
	scores []float64
	cumPos []int64
	pos    int64 // the population's positives, for the true recall
}

func (w *opWorld) session(rng *rand.Rand, id uint32, n int, out []Item) []Item {
	u := w.sigma * rng.NormFloat64()
	for range n {
		pos := rng.Float64() < 0.3
		sgn := -1.0
		if pos {
			sgn = 1
		}
		s := 1 / (1 + math.Exp(-(w.beta*sgn + u + rng.NormFloat64())))
		c := 1 / (1 + math.Exp(-(w.kappa*sgn + u + rng.NormFloat64())))
		out = append(out, Item{Sess: id, Pos: pos, Match: s > 0.4, Conf: c})
	}
	return out
}

func newOpWorld(sigma, beta, kappa float64) *opWorld {
	w := &opWorld{sigma: sigma, beta: beta, kappa: kappa}
	rng := rand.New(rand.NewPCG(99, 7))
	var pop []Item
	for i := range 60000 {
		pop = w.session(rng, uint32(i), 10, pop)
	}
	var ms []Item
	for _, it := range pop {
		if it.Pos {
			w.pos++
		}
		if it.Match {
			ms = append(ms, it)
		}
	}
	slices.SortFunc(ms, func(a, b Item) int { return -cmpF(a.Conf, b.Conf) })
	w.scores = make([]float64, len(ms))
	w.cumPos = make([]int64, len(ms)+1)
	for i, it := range ms {
		w.scores[i] = it.Conf
		w.cumPos[i+1] = w.cumPos[i]
		if it.Pos {
			w.cumPos[i+1]++
		}
	}
	return w
}

func cmpF(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// truth is the population's precision of the matches with confidence ≥ t.
func (w *opWorld) truth(t float64) float64 {
	n := w.above(t)
	return float64(w.cumPos[n]) / float64(n)
}

// truthRecall is the population's recall at threshold t.
func (w *opWorld) truthRecall(t float64) float64 {
	return float64(w.cumPos[w.above(t)]) / float64(w.pos)
}

// above is how many of the population's matches have confidence ≥ t.
func (w *opWorld) above(t float64) int {
	n, _ := slices.BinarySearchFunc(w.scores, t, func(s, t float64) int { return -cmpF(s, t) })
	for n < len(w.scores) && w.scores[n] >= t {
		n++
	}
	return n
}

func calibrateReps(smoke int) int {
	if v, err := strconv.Atoi(os.Getenv("APEVAL_CALIBRATE")); err == nil && v > 0 {
		return v
	}
	return smoke
}

// TestCalibrationOperatingPoint: the cross-fitted operating point's
// precision interval (threshold chosen on half the sessions, interval on
// the other half) covers the true precision at the chosen threshold on
// new sessions in ≥ 92.5 % of replicates; the naive in-sample choice
// (choose and report on the same sessions), shown beside it, does not.
// `make calibrate` runs 2,000 replicates per setting (APEVAL_CALIBRATE);
// go test a smoke of 150 in one setting, with the bounds widened by the
// smoke's Monte Carlo error.
func TestCalibrationOperatingPoint(t *testing.T) {
	reps := calibrateReps(150)
	full := reps >= 1000
	// naive: the setting must show the naive choice's optimism. With
	// little session heterogeneity, or many sessions (the first threshold
	// whose bound clears the floor then lies well above it), it hardly
	// shows: measured, not asserted.
	type setting struct {
		sessions int
		sigma    float64
		naive    bool
	}
	settings := []setting{{120, 0.8, true}}
	if full {
		settings = []setting{{120, 0.8, true}, {300, 0.8, false}, {120, 0.4, false}}
	}
	pmin, conf := 0.70, 0.95
	if v, err := strconv.ParseFloat(os.Getenv("APEVAL_OP_PMIN"), 64); err == nil {
		pmin = v
	}
	for _, st := range settings {
		w := newOpWorld(st.sigma, 1.4, 0.5)
		rng := rand.New(rand.NewPCG(uint64(st.sessions), uint64(st.sigma*10)))
		var cfN, cfHit, nvN, nvHit, rcN, rcHit int
		var cfWidth, nvWidth, rcWidth float64
		for range reps {
			var sel, hold, all []Item
			for s := range st.sessions {
				n := 4 + rng.IntN(13)
				items := w.session(rng, uint32(s), n, nil)
				all = append(all, items...)
				if Half("s-"+strconv.Itoa(s), 1) == 0 {
					sel = append(sel, items...)
				} else {
					hold = append(hold, items...)
				}
			}
			if p, ok, _ := Choose(sel, pmin, conf); ok {
				h := Evaluate(hold, p.Threshold, conf)
				if h.PrecisionLo != nil {
					cfN++
					tr := w.truth(p.Threshold)
					if tr >= *h.PrecisionLo && tr <= *h.PrecisionHi {
						cfHit++
					}
					cfWidth += *h.PrecisionHi - *h.PrecisionLo
				}
				if h.RecallLo != nil {
					rcN++
					if tr := w.truthRecall(p.Threshold); tr >= *h.RecallLo && tr <= *h.RecallHi {
						rcHit++
					}
					rcWidth += *h.RecallHi - *h.RecallLo
				}
			}
			if p, ok, _ := Choose(all, pmin, conf); ok {
				nvN++
				tr := w.truth(p.Threshold)
				if tr >= *p.PrecisionLo && tr <= *p.PrecisionHi {
					nvHit++
				}
				nvWidth += *p.PrecisionHi - *p.PrecisionLo
			}
		}
		if cfN < reps/4 || nvN < reps/4 {
			t.Fatalf("%d sessions, sigma %g: a threshold was chosen in %d (cross-fitted) and %d (naive) of %d replicates: the setting tests too little", st.sessions, st.sigma, cfN, nvN, reps)
		}
		cf, nv, rc := float64(cfHit)/float64(cfN), float64(nvHit)/float64(nvN), float64(rcHit)/float64(rcN)
		fmt.Printf("| %d sessions, session sd %.1f | %d | cross-fitted %.3f (width %.3f, %d chosen) | naive in-sample %.3f (width %.3f, %d chosen) | recall, cross-fitted %.3f (width %.3f) |\n",
			st.sessions, st.sigma, reps, cf, cfWidth/float64(cfN), cfN, nv, nvWidth/float64(nvN), nvN, rc, rcWidth/float64(rcN))
		// The smoke's bounds allow its Monte Carlo error (2 standard errors).
		slack := 0.0
		if !full {
			slack = 2 * math.Sqrt(0.95*0.05/float64(cfN))
		}
		if cf < 0.925-slack {
			t.Errorf("%d sessions, sigma %g: cross-fitted coverage %.3f < 0.925", st.sessions, st.sigma, cf)
		}
		if rc < 0.925-slack {
			t.Errorf("%d sessions, sigma %g: cross-fitted recall coverage %.3f < 0.925", st.sessions, st.sigma, rc)
		}
		if st.naive && nv >= 0.925+slack {
			t.Errorf("%d sessions, sigma %g: the naive in-sample choice covers %.3f ≥ 0.925: the test does not show the optimism it guards against", st.sessions, st.sigma, nv)
		}
	}
}

// TestCalibrationRatioFixed shows why the operating point (and the
// verdict) reports the ratio's interval (metrics.ClusteredInterval) and
// not the beta-binomial one (metrics.BetaBinomialInterval): at fixed thresholds
// (no choice involved) on one half of the sessions, the beta-binomial
// interval is off-centre for the ratio where sessions with many matches
// have another precision (session sd 0.8) and misses the truth from
// above more often as sessions grow; the ratio's interval does not.
// `make calibrate` runs 2,000 replicates per setting; go test a smoke of
// 100 in two settings.
func TestCalibrationRatioFixed(t *testing.T) {
	reps := calibrateReps(100)
	type setting struct {
		sessions    int
		sigma, beta float64
	}
	settings := []setting{{300, 0.8, 1.4}, {120, 0.4, 1.4}}
	if reps >= 1000 {
		settings = []setting{{120, 0.8, 1.4}, {300, 0.8, 1.4}, {120, 0.4, 1.4}, {120, 0.8, 3}}
	}
	for _, st := range settings {
		w := newOpWorld(st.sigma, st.beta, 0.5)
		for _, th := range []float64{0, 0.6, 0.7} {
			rng := rand.New(rand.NewPCG(uint64(st.sessions), 5))
			tr := w.truth(th)
			var n, bbHit, bbAbove, rHit int
			var bbW, rW float64
			for range reps {
				var hold []Item
				for s := range st.sessions {
					items := w.session(rng, uint32(s), 4+rng.IntN(13), nil)
					if Half("s-"+strconv.Itoa(s), 1) == 1 {
						hold = append(hold, items...)
					}
				}
				ys, ms := sessionCounts(hold, th)
				if len(ys) < 2 {
					continue
				}
				n++
				lo, hi, _ := metrics.BetaBinomialInterval(ys, ms, 0.95)
				switch {
				case tr < lo:
					bbAbove++
				case tr <= hi:
					bbHit++
				}
				bbW += hi - lo
				lo, hi, _ = metrics.ClusteredInterval(ys, ms, 0.95)
				if tr >= lo && tr <= hi {
					rHit++
				}
				rW += hi - lo
			}
			f := float64(n)
			bb, r := float64(bbHit)/f, float64(rHit)/f
			fmt.Printf("| %d sessions, session sd %.1f, beta %.1f | %.2f | %.3f | %d | beta-binomial %.3f (truth below it %.3f), width %.3f | ratio %.3f, width %.3f |\n",
				st.sessions, st.sigma, st.beta, th, tr, n, bb, float64(bbAbove)/f, bbW/f, r, rW/f)
			// A floor with room for the Monte Carlo error of the smoke and
			// of one threshold: the goal itself (≥ 0.925) is the operating
			// point's, in TestCalibrationOperatingPoint.
			if r < 0.90 {
				t.Errorf("%d sessions, sigma %g, threshold %g: the ratio interval covers %.3f < 0.90", st.sessions, st.sigma, th, r)
			}
			if st.sessions == 300 && st.sigma == 0.8 && th == 0 && bb >= r {
				t.Errorf("300 sessions, sigma 0.8: the beta-binomial interval covers %.3f ≥ the ratio's %.3f: the test does not show the cause it documents", bb, r)
			}
		}
	}
}

// sessionCounts are the per-session predicted matches at threshold th
// and the positives among them.
func sessionCounts(items []Item, th float64) (ys, ms []int64) {
	by := map[uint32]int{}
	for _, it := range items {
		if !it.Match || it.Conf < th {
			continue
		}
		i, ok := by[it.Sess]
		if !ok {
			i = len(ms)
			by[it.Sess] = i
			ys, ms = append(ys, 0), append(ms, 0)
		}
		ms[i]++
		if it.Pos {
			ys[i]++
		}
	}
	return ys, ms
}

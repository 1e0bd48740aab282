package metrics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// hintSetting: k sessions (sizes sz) at the true rate mu with intra-class
// correlation icc, a criterion at thr in direction dir.
type hintSetting struct {
	name    string
	sz      []int
	mu, icc float64
	thr     float64
	dir     Direction
}

var hintSettings = []hintSetting{
	{"precision 0.95 ≥ 0.90, 10 sessions × 10, ICC 0.1", sizes(10, 10, 0), 0.95, 0.1, 0.90, AtLeast},
	{"precision 0.95 ≥ 0.90, 10 sessions × 10, ICC 0.3", sizes(10, 10, 0), 0.95, 0.3, 0.90, AtLeast},
	{"precision 0.95 ≥ 0.90, one session of 60 and 9 of 5, ICC 0.2", sizes(10, 5, 60), 0.95, 0.2, 0.90, AtLeast},
	{"unknown rate 0.05 < 0.10, 20 sessions × 10, ICC 0.2", sizes(20, 10, 0), 0.05, 0.2, 0.10, Below},
	{"precision 0.85 (failing) vs 0.90, 30 sessions × 5, ICC 0.1", sizes(30, 5, 0), 0.85, 0.1, 0.90, AtLeast},
}

// drawSessions draws sessions of the given sizes at rate mu, ICC icc.
func drawSessions(rng *rand.Rand, sz []int, mu, icc float64) (ys, ms []int64) {
	for _, m := range sz {
		p := sessionRate(rng, mu, icc)
		var y int64
		for range m {
			if rng.Float64() < p {
				y++
			}
		}
		ys, ms = append(ys, y), append(ms, int64(m))
	}
	return ys, ms
}

// hintRates runs n replicates of s: on INCONCLUSIVE data the hint is
// sized (SessionsToDecide on ClusteredInterval, the interval the verdict
// uses, with its degrees of freedom), that many new sessions are
// collected (sizes drawn from the observed ones, rates from the truth),
// and the combined data decided again. It returns the share of
// replicates with a hint and, among them, the share decided (PASS or
// FAIL), the share decided the way the hint said (clear, or confirm the
// failure; either, for a hint that named no direction), the share of
// hints that named no direction, and the median hint.
func hintRates(s hintSetting, n int, seed uint64) (hinted, decided, named, eitherShare, medianSessions float64) {
	rng := rand.New(rand.NewPCG(seed, 0x41a7))
	const conf = 0.95
	z := zScore(conf)
	var got, ok, any, either int
	var more []float64
	for range n {
		ys, ms := drawSessions(rng, s.sz, s.mu, s.icc)
		var Y, M int64
		for i := range ys {
			Y += ys[i]
			M += ms[i]
		}
		est := float64(Y) / float64(M)
		lo, hi, _ := ClusteredInterval(ys, ms, conf)
		dec := s.dir.Decide(s.thr, Evidence{Estimate: est, Lo: lo, Hi: hi})
		if dec.Status != StatusInconclusive {
			continue
		}
		target, _ := s.dir.hintTarget(s.thr, dec)
		h, hok := SessionsToDecide(HintInputs{Estimate: est, Threshold: s.thr, HalfWidth: hintHalfWidth(s.dir, dec, est, lo, hi),
			Z: z, M: float64(M), K: float64(len(ms)), DF: spreadDF(newBBPosterior(ys, ms, 1))}, assurance)
		if !hok || h.Sessions > 5000 {
			continue
		}
		if h.Either {
			// The hint named no direction: deciding either way is its promise.
			either++
			target = func(lo, hi float64) bool { return s.dir.Clears(s.thr, lo, hi) || s.dir.ConfirmsBad(s.thr, lo, hi) }
		}
		got++
		more = append(more, float64(h.Sessions))
		newSz := make([]int, h.Sessions)
		for i := range newSz {
			newSz[i] = int(ms[rng.IntN(len(ms))])
		}
		ny, nm := drawSessions(rng, newSz, s.mu, s.icc)
		ys, ms = append(ys, ny...), append(ms, nm...)
		lo, hi, _ = ClusteredInterval(ys, ms, conf)
		if target(lo, hi) {
			ok++
		}
		Y, M = 0, 0
		for i := range ys {
			Y += ys[i]
			M += ms[i]
		}
		if s.dir.Decide(s.thr, Evidence{Estimate: float64(Y) / float64(M), Lo: lo, Hi: hi}).Status != StatusInconclusive {
			any++
		}
	}
	if got == 0 {
		return 0, math.NaN(), math.NaN(), math.NaN(), math.NaN()
	}
	return float64(got) / float64(n), float64(any) / float64(got), float64(ok) / float64(got), float64(either) / float64(got), median(more)
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return s[len(s)/2]
}

// TestCalibrationHints: a hint, once its sessions are collected, decides
// (PASS or FAIL) at least 80 % of the time, and decides the way it said
// at least 80 % of the time (goal 0.80 less the Monte Carlo error). A
// hint names a direction only where the interval makes the estimate's
// side of the threshold likely enough: where one dominant session drags
// the pooled estimate to the wrong side, it promises a decision either
// way (docs/statistics.md, "Hints that keep their promise").
func TestCalibrationHints(t *testing.T) {
	t.Parallel()
	n, full := calibrationN()
	slack := 0.0
	if !full {
		n = 80
		slack = smokeSlack(0.8, n)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| hints, %d replicates | share with a hint | decided after collecting it (goal ≥ 0.80) | decided as the hint said (goal ≥ 0.80) | hints naming no direction | median sessions hinted |\n|---|---|---|---|---|---|\n", n)
	for i, s := range hintSettings {
		hinted, decided, named, either, med := hintRates(s, n, uint64(i+1))
		fmt.Fprintf(&b, "| %s | %.3f | %.3f | %.3f | %.3f | %.0f |\n", s.name, hinted, decided, named, either, med)
		if hinted == 0 {
			t.Errorf("%s: no replicate got a hint", s.name)
			continue
		}
		low := 0.8 - slack - 2*math.Sqrt(0.16/(hinted*float64(n)))
		if decided < low {
			t.Errorf("%s: decided %.3f after the hint", s.name, decided)
		}
		if named < low {
			t.Errorf("%s: decided as the hint said %.3f", s.name, named)
		}
	}
	t.Log("\n" + b.String())
}

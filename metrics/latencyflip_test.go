package metrics

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// bruteFlipP is quantileFlip's p-value at shift delta computed the plain
// way: for every swap pattern, build both groups, sort them, take their
// nearest-rank quantiles.
func bruteFlipP(base, cand callLats, num, den int, delta float64) float64 {
	sess := map[uint32]int{}
	for _, c := range [2]callLats{base, cand} {
		for _, s := range c.sess {
			if _, ok := sess[s]; !ok {
				sess[s] = len(sess)
			}
		}
	}
	k := len(sess)
	diff := func(mask int) float64 {
		var gc, gb []float64
		for i, v := range base.ms {
			if mask&(1<<sess[base.sess[i]]) != 0 {
				gc = append(gc, v)
			} else {
				gb = append(gb, v)
			}
		}
		for i, v := range cand.ms {
			if mask&(1<<sess[cand.sess[i]]) != 0 {
				gb = append(gb, v-delta)
			} else {
				gc = append(gc, v-delta)
			}
		}
		slices.Sort(gc)
		slices.Sort(gb)
		return NearestRank(gc, num, den) - NearestRank(gb, num, den)
	}
	obs := math.Abs(diff(0))
	var hits int
	for mask := range 1 << k {
		if math.Abs(diff(mask)) >= obs-1e-9*max(1, obs) {
			hits++
		}
	}
	return float64(hits) / float64(int(1)<<k)
}

// TestQuantileFlipHandComputed: a candidate slower by 1,000 ms on every
// call of 6 sessions: only the unswapped and the fully swapped patterns
// reach the observed difference, p = 2/2⁶; 5 sessions cannot reach 5 %
// (2/2⁵ = 0.0625) and give no test.
func TestQuantileFlipHandComputed(t *testing.T) {
	mk := func(k int, add float64) (b, c callLats) {
		for s := range k {
			for j := range 4 {
				v := float64(100 + 10*s + j)
				b.ms, b.sess = append(b.ms, v), append(b.sess, uint32(s))
				c.ms, c.sess = append(c.ms, v+add), append(c.sess, uint32(s))
			}
		}
		sortCalls(b)
		sortCalls(c)
		return b, c
	}
	b, c := mk(6, 1000)
	lo, hi, p, ok := quantileFlip(b, c, 95, 100, 0.95)
	if !ok || p != 2.0/64 {
		t.Fatalf("6 sessions: p %v ok %v, want 2/64", p, ok)
	}
	// P95 of 24 calls is the 23rd: 152 and 1152 → Δ = 1000; the
	// interval excludes 0 (p < 0.05) and holds 1000.
	if !(lo > 0 && lo <= 1000 && hi >= 1000) {
		t.Errorf("6 sessions: interval [%v, %v], want 0 < lo ≤ 1000 ≤ hi", lo, hi)
	}
	b5, c5 := mk(5, 1000)
	if _, _, _, ok := quantileFlip(b5, c5, 95, 100, 0.95); ok {
		t.Error("5 sessions: a test, but no swap pattern can reach p < 0.05")
	}
	// Through pairedQuantile: fewer than flipMaxSessions sessions take
	// the flip test.
	var sc latScratch
	if _, _, p2, test, ok := pairedQuantile(b, c, 95, 100, 1, 0.95, &sc); !ok || test != TestQuantileFlip || p2 != p {
		t.Errorf("pairedQuantile: test %q p %v ok %v, want %q %v", test, p2, ok, TestQuantileFlip, p)
	}
}

// TestQuantileFlipAgainstBruteForce: on clustered latencies of 6-9
// sessions (uneven sizes, a judge missing calls in one session), the
// p-value equals the plain recomputation, and the interval's bounds are
// where that recomputation's p crosses α.
func TestQuantileFlipAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 3))
	for rep := range 12 {
		k := 6 + rep%4
		sz := make([]int, k)
		for i := range sz {
			sz[i] = 2 + rng.IntN(9)
		}
		b, c := clusteredLatencies(rng, sz, 0.4*float64(rep%3))
		if rep%2 == 1 { // the candidate lost some calls of session 0
			var kept callLats
			for i := range c.ms {
				if c.sess[i] != 0 || i%2 == 0 {
					kept.ms, kept.sess = append(kept.ms, c.ms[i]), append(kept.sess, c.sess[i])
				}
			}
			c = kept
		}
		for _, q := range []int{50, 95} {
			lo, hi, p, ok := quantileFlip(b, c, q, 100, 0.95)
			if !ok {
				t.Fatalf("rep %d: no test with %d sessions", rep, k)
			}
			if want := bruteFlipP(b, c, q, 100, 0); math.Abs(p-want) > 1e-12 {
				t.Errorf("rep %d P%d: p %v, brute force %v", rep, q, p, want)
			}
			if (p < 0.05) == (lo <= 0 && 0 <= hi) {
				t.Errorf("rep %d P%d: p %v but interval [%v, %v]", rep, q, p, lo, hi)
			}
			eps := 1e-3 * max(1, hi-lo)
			for _, x := range []struct {
				at float64
				in bool
			}{{lo + eps, true}, {lo - eps, false}, {hi - eps, true}, {hi + eps, false}} {
				if got := bruteFlipP(b, c, q, 100, x.at) >= 0.05; got != x.in && !(x.in && (x.at < lo || x.at > hi)) {
					t.Errorf("rep %d P%d: at %v (interval [%v, %v]) brute-force p ≥ α is %v, want %v", rep, q, x.at, lo, hi, got, x.in)
				}
			}
		}
	}
}

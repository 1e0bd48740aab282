package metrics

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestPlanSimKeepsOnlySessionsWithUnits: a pilot's rule whose units sit
// in 12 of 154 sessions is simulated over sessions of traffic; the
// simulation keeps (and the interval sees) only the sessions holding
// units, in the right number: among the first k sessions of traffic
// about k·12/154 hold units, with the pilot's sizes. Before, every
// session of traffic was drawn and kept (a data set of 100,000 sessions
// held 100,000 entries, 93 % of them empty).
func TestPlanSimKeepsOnlySessionsWithUnits(t *testing.T) {
	t.Parallel()
	g := PlanGuess{Rate: 0.9, SessionSize: 20.0 / 12, sizes: []wv{{0, 142}, {1, 6}, {2, 4}, {3, 2}}, nSess: 154, perSession: 20.0 / 154}
	const reps, k = 400, 2000
	sim := newPlanSim(g, reps, 7)
	var kept, units, y float64
	sizeCount := map[int64]float64{}
	for r := range reps {
		ys, ms := sim.data(r, k)
		if n := len(sim.ms[r]); n > k/2 {
			t.Fatalf("replicate %d holds %d sessions for %d of traffic: the empty ones are kept", r, n, k)
		}
		kept += float64(len(ms))
		for i, m := range ms {
			if m <= 0 {
				t.Fatalf("an empty session is handed to the interval")
			}
			units += float64(m)
			y += float64(ys[i])
			sizeCount[m]++
		}
		// A shorter prefix is a prefix of the same stream.
		ys2, ms2 := sim.data(r, k/2)
		if len(ms2) > len(ms) || (len(ms2) > 0 && (ms2[0] != ms[0] || ys2[0] != ys[0])) {
			t.Fatalf("replicate %d: the first %d sessions are not a prefix of the first %d", r, k/2, k)
		}
	}
	share := kept / (reps * k)
	// 800,000 sessions of traffic: the share's SE is about 0.0003.
	if math.Abs(share-12.0/154) > 0.002 {
		t.Errorf("sessions with units: %.4f of traffic, want %.4f", share, 12.0/154)
	}
	if f := sizeCount[1] / kept; math.Abs(f-0.5) > 0.01 {
		t.Errorf("sessions of 1 unit: %.3f of those with units, want 0.5", f)
	}
	if r := y / units; math.Abs(r-0.9) > 0.005 {
		t.Errorf("rate %.4f, want 0.9", r)
	}
}

// TestBinomialAndCellsDraws: the per-session draws that replace one draw
// per unit have the binomial's (multinomial's) mean and variance, below
// and above the 25 units where the sampler changes.
func TestBinomialAndCellsDraws(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 40000
	for _, tc := range []struct {
		m int64
		p float64
	}{{5, 0.3}, {24, 0.9}, {50, 0.07}, {100, 0.29}, {103, 0.3}, {400, 0.5}, {3000, 0.002}} {
		var s, ss float64
		for range n {
			y := float64(binomial(rng, tc.m, tc.p))
			if y < 0 || y > float64(tc.m) {
				t.Fatalf("m %d: drew %v", tc.m, y)
			}
			s += y
			ss += y * y
		}
		mean, v := s/n, ss/n-(s/n)*(s/n)
		wantM, wantV := float64(tc.m)*tc.p, float64(tc.m)*tc.p*(1-tc.p)
		if math.Abs(mean-wantM) > 4*math.Sqrt(wantV/n) || math.Abs(v/wantV-1) > 0.05 {
			t.Errorf("binomial(%d, %v): mean %.4f var %.4f, want %.4f %.4f", tc.m, tc.p, mean, v, wantM, wantV)
		}
	}
	probs := []float64{0.02, 0.05, 0, 0.93}
	out := make([]int64, 4)
	var sum [4]float64
	for range n {
		drawCells(rng, probs, 0, 60, out)
		var tot int64
		for i, c := range out {
			sum[i] += float64(c)
			tot += c
		}
		if tot != 60 || out[2] != 0 {
			t.Fatalf("cells %v: want 60 units, none in the empty cell", out)
		}
	}
	for i, p := range probs {
		want := 60 * p
		if math.Abs(sum[i]/n-want) > 4*math.Sqrt(60*p*(1-p)/n)+1e-9 {
			t.Errorf("cell %d: mean %.4f, want %.4f", i, sum[i]/n, want)
		}
	}
}

// TestCountStatusesSplitsEveryReplicateOnce: the replicates decided on
// several cores are each decided once, so the counts equal one core's.
func TestCountStatusesSplitsEveryReplicateOnce(t *testing.T) {
	t.Parallel()
	for _, reps := range []int{10, 200, 1001} {
		for _, w := range []int{1, 2, 3, 7, 64} {
			seen := make([]int32, reps)
			p, f := countStatuses(reps, w, func(r int) Status {
				seen[r]++ // distinct r per goroutine: no race
				switch r % 3 {
				case 0:
					return StatusPass
				case 1:
					return StatusFail
				}
				return StatusInconclusive
			})
			if p != (reps+2)/3 || f != (reps+1)/3 {
				t.Errorf("reps %d, workers %d: PASS %d FAIL %d", reps, w, p, f)
			}
			for r, n := range seen {
				if n != 1 {
					t.Fatalf("reps %d, workers %d: replicate %d decided %d times", reps, w, r, n)
				}
			}
		}
	}
}

package metrics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// simPair is one pair of a simulated population: its truth, session and
// the candidate's (C) and a strong reference judge's (R) results.
type simPair struct {
	id      string
	session string
	pos     bool
	c, r    bool
}

// simPopulation is 3,000 pairs in 600 sessions of 5, ~6 % positives
// clustered by session (a tenth of the sessions are risky, 40 % positive;
// the rest ~1.8 %); the candidate catches 75 % of positives and matches
// 2 % of negatives, the reference 95 % and 1 %.
func simPopulation() []simPair { return simPopulationSeed(42) }

// simPopulationSeed is simPopulation drawn afresh from the same model:
// its true precision is simPrec and its recall simRecall (the model's, of
// the traffic the recorded pairs sample).
func simPopulationSeed(seed uint64) []simPair {
	rng := rand.New(rand.NewPCG(seed, 7))
	var ps []simPair
	for s := range 600 {
		rate := 0.0222
		if rng.Float64() < 0.1 {
			rate = 0.4
		}
		for k := range 5 {
			p := simPair{id: fmt.Sprintf("c%04d-%d", s, k), session: fmt.Sprint(s), pos: rng.Float64() < rate}
			if p.pos {
				p.c, p.r = rng.Float64() < 0.75, rng.Float64() < 0.95
			} else {
				p.c, p.r = rng.Float64() < 0.02, rng.Float64() < 0.01
			}
			ps = append(ps, p)
		}
	}
	return ps
}

func res(b bool) string {
	if b {
		return QueueMatch
	}
	return QueueNoMatch
}

func truth(ps []simPair) (prec, rec float64) {
	var tp, fp, fn float64
	for _, p := range ps {
		switch {
		case p.c && p.pos:
			tp++
		case p.c:
			fp++
		case p.pos:
			fn++
		}
	}
	return tp / (tp + fp), tp / (tp + fn)
}

// queueUnits draws a queue with the two judges as strata and labels its
// first n items from the truth.
func queueUnits(t testing.TB, ps []simPair, budget, n int, seed uint64) []SampleUnit {
	by := map[string]*simPair{}
	pairs := make([]QueuePair, len(ps))
	for i := range ps {
		by[ps[i].id] = &ps[i]
		pairs[i] = QueuePair{CaseID: ps[i].id, RuleID: "r", Results: []string{res(ps[i].c), res(ps[i].r)}}
	}
	q, err := BuildQueue(pairs, QueueConfig{Budget: budget, Seed: seed, Letters: []string{"C", "R"}})
	if err != nil {
		t.Fatal(err)
	}
	var us []SampleUnit
	for _, it := range q.Items[:n] {
		p := by[it.CaseID]
		us = append(us, SampleUnit{Stratum: it.Stratum, StratumSize: it.StratumSize, Session: p.session, Label: p.pos, Match: p.c})
	}
	return us
}

// srsUnits is a simple random sample of n pairs (one stratum).
func srsUnits(ps []simPair, n int, seed uint64) []SampleUnit {
	rng := rand.New(rand.NewPCG(seed, 3))
	idx := rng.Perm(len(ps))[:n]
	var us []SampleUnit
	for _, i := range idx {
		p := ps[i]
		us = append(us, SampleUnit{Stratum: "all", StratumSize: int64(len(ps)), Session: p.session, Label: p.pos, Match: p.c})
	}
	return us
}

func covers(f WeightedRatio, v float64) bool {
	return f.Lo != nil && *f.Lo <= v && v <= *f.Hi
}

// TestSampleCoverage: over many queue seeds on one fixed population, the
// 95 % intervals of precision and recall cover the population's true
// values in ≥ 93 % of draws, for the full queue and for its first half.
func TestSampleCoverage(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("simulation")
	}
	ps := simPopulation()
	tp, tr := truth(ps)
	const reps = 400
	for _, n := range []int{300, 150} {
		var cp, cr int
		for seed := range uint64(reps) {
			us := queueUnits(t, ps, 300, n, seed+1)
			if covers(WeightedPrecision(us, 0.95), tp) {
				cp++
			}
			if covers(WeightedRecall(us, 0.95), tr) {
				cr++
			}
		}
		t.Logf("labels %d: precision %.3f covered %.1f %%, recall %.3f covered %.1f %%", n, tp, 100*float64(cp)/reps, tr, 100*float64(cr)/reps)
		if float64(cp)/reps < 0.93 || float64(cr)/reps < 0.93 {
			t.Errorf("labels %d: coverage precision %d/%d, recall %d/%d, want ≥ 93 %%", n, cp, reps, cr, reps)
		}
	}
}

// widthRatio is the mean recall interval width of a 300-label queue
// (candidate and reference judge as strata) over that of a simple random
// sample of 300 pairs.
func widthRatio(t testing.TB, reps int) float64 {
	ps := simPopulation()
	var wq, ws float64
	for seed := range uint64(reps) {
		q := WeightedRecall(queueUnits(t, ps, 300, 300, seed+1), 0.95)
		s := WeightedRecall(srsUnits(ps, 300, seed+1), 0.95)
		wq += *q.Hi - *q.Lo
		ws += *s.Hi - *s.Lo
	}
	return wq / ws
}

func TestSampleWidthRatio(t *testing.T) {
	t.Parallel()
	r := widthRatio(t, 100)
	t.Logf("recall interval width, queue / SRS: %.3f", r)
	if r > 0.6 {
		t.Errorf("width ratio %.3f, want ≤ 0.6", r)
	}
}

// BenchmarkSampleWidthRatio prints the ratio of the recall interval width
// of a stratified 300-label queue to a simple random sample of 300 pairs
// (population: 3,000 pairs, ~6 % positives, a reference judge in the run).
func BenchmarkSampleWidthRatio(b *testing.B) {
	var r float64
	for b.Loop() {
		r = widthRatio(b, 50)
	}
	b.ReportMetric(r, "width-ratio")
}

// The model's precision and recall: positives 0.1·0.4 + 0.9·0.0222 of
// pairs, the candidate catching 75 % of them and 2 % of the negatives.
var (
	simPos    = 0.1*0.4 + 0.9*0.0222
	simPrec   = 0.75 * simPos / (0.75*simPos + 0.02*(1-simPos))
	simRecall = 0.75
)

// textbookStratified is the textbook stratified ratio estimator's 95 %
// Wald interval: units independent within strata, V = Σ N_h²·s²_h/n_h of
// the linearized z, normal quantile; the reference the design-based
// interval's width is measured against.
func textbookStratified(units []SampleUnit, f ratioFn) (lo, hi float64, ok bool) {
	strata := strataOf(units)
	var Y, X float64
	for _, s := range strata {
		w := s.size / float64(s.labeled)
		for _, i := range s.idx {
			y, x := f(&units[i], units[i].Label)
			Y, X = Y+w*y, X+w*x
		}
	}
	if X == 0 {
		return 0, 0, false
	}
	R := Y / X
	var V float64
	for _, s := range strata {
		n := float64(s.labeled)
		if n < 2 {
			continue
		}
		var mean, ss float64
		for _, i := range s.idx {
			y, x := f(&units[i], units[i].Label)
			mean += (y - R*x) / X
		}
		mean /= n
		for _, i := range s.idx {
			y, x := f(&units[i], units[i].Label)
			d := (y-R*x)/X - mean
			ss += d * d
		}
		V += s.size * s.size * ss / (n - 1) / n
	}
	h := 1.959964 * math.Sqrt(V)
	return R - h, R + h, true
}

// labeledGrid measures, over reps populations drawn afresh from the model
// (each with its own 300-label queue), the coverage of the true precision
// and recall by the design-based interval and by the textbook stratified
// one, and their mean widths.
func labeledGrid(t testing.TB, reps, labels int) (cov, covT, w, wT [2]float64) {
	fns := [2]ratioFn{
		func(u *SampleUnit, l bool) (float64, float64) { return b2f(u.Match && l), b2f(u.Match) },
		func(u *SampleUnit, l bool) (float64, float64) { return b2f(u.Match && l), b2f(l) },
	}
	truths := [2]float64{simPrec, simRecall}
	for rep := range uint64(reps) {
		ps := simPopulationSeed(1000 + rep)
		us := queueUnits(t, ps, 300, labels, rep+1)
		got := [2]WeightedRatio{WeightedPrecision(us, 0.95), WeightedRecall(us, 0.95)}
		for k := range 2 {
			if covers(got[k], truths[k]) {
				cov[k]++
			}
			w[k] += *got[k].Hi - *got[k].Lo
			if l, h, ok := textbookStratified(us, fns[k]); ok {
				if l <= truths[k] && truths[k] <= h {
					covT[k]++
				}
				wT[k] += h - l
			}
		}
	}
	for k := range 2 {
		cov[k] /= float64(reps)
		covT[k] /= float64(reps)
		w[k] /= float64(reps)
		wT[k] /= float64(reps)
	}
	return
}

// TestLabeledCalibration: the design-based interval covers the model's
// precision and recall at 0.925 or more (never undercovers under
// clustering); its width against the textbook stratified interval on the
// same labels is printed beside it (docs/statistics.md). The smoke runs 40 populations; APEVAL_CALIBRATE
// (make calibrate) runs that many.
func TestLabeledCalibration(t *testing.T) {
	t.Parallel()
	reps, full := calibrationN()
	if !full {
		reps = 40
	}
	for _, n := range []int{300, 150} {
		cov, covT, w, wT := labeledGrid(t, reps, n)
		for k, name := range []string{"precision", "recall"} {
			t.Logf("| labeled %s, %d of a 300-label queue | design-based stratified, sessions as clusters | coverage %.3f (textbook %.3f) | width %.4f = %.2f× textbook %.4f |",
				name, n, cov[k], covT[k], w[k], w[k]/wT[k], wT[k])
			slack := 0.0
			if !full {
				slack = smokeSlack(0.925, reps)
			}
			if cov[k] < 0.925-slack {
				t.Errorf("%s, %d labels: coverage %.3f over %d populations, want ≥ 0.925", name, n, cov[k], reps)
			}
			// Width against the textbook stratified interval is measured
			// and logged, not asserted: the goal (≤ 1.15× where the
			// textbook covers) is not met yet (docs/statistics.md).
		}
	}
}

package metrics

import (
	"fmt"
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
func simPopulation() []simPair {
	rng := rand.New(rand.NewPCG(42, 7))
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

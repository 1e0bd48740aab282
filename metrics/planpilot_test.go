package metrics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apeval/apeval/replay"
)

// pilotModel generates runs of judge J on one dangerous rule R with a
// deterministic baseline: sessions of 3–9 cases; a session's share of
// labeled positives is Beta(0.7, ICC 0.1); the judge catches a positive
// with probability 0.85 and matches a negative with 0.1 (precision
// ≈ 0.95), the baseline catches 0.72 of positives; every case is one live
// call of 400 ms × the session's lognormal(0, 0.3) factor ×
// lognormal(0, 0.25). Its truths: precision ≈ 0.952 (threshold 0.90),
// recall gain 0.13, P95 ≈ 880 ms (limit 1 s).
func pilotModel(rng *rand.Rand, sessions int, tag string) []*replay.Result {
	var out []*replay.Result
	for s := range sessions {
		m := 3 + rng.IntN(7)
		pos := sessionRate(rng, 0.7, 0.1)
		f := math.Exp(0.3 * rng.NormFloat64())
		sid := fmt.Sprintf("%s-s%d", tag, s)
		for c := range m {
			label, res, base := "no_match", "no_match", "no_match"
			if rng.Float64() < pos {
				label = "match"
				if rng.Float64() < 0.85 {
					res = "match"
				}
				if rng.Float64() < 0.72 {
					base = "match"
				}
			} else if rng.Float64() < 0.1 {
				res = "match"
			}
			ms := 400 * f * math.Exp(0.25*rng.NormFloat64())
			out = append(out, &replay.Result{RunID: "r", CaseID: fmt.Sprintf("%s-%d", sid, c), SessionID: sid, Judge: "J",
				JudgeCalled: true, Calls: []replay.Call{call(ms, "ok", false)},
				Rules: []replay.RuleResult{withBaseline(rr("R", "dangerous", "judge", res, label, "ok", res == "match", 0), base)}})
		}
	}
	return out
}

func pilotSummary(results []*replay.Result) *Summary {
	a := New(Config{Criteria: replay.DefaultKillCriteria()})
	for _, r := range results {
		a.Add(r)
	}
	return a.Close()
}

// resampleRuns draws k of the pilot's sessions with replacement (its
// own random numbers), each drawn session's cases renamed apart, as the
// results a fresh run of k sessions from the pilot's model would give.
func resampleRuns(rng *rand.Rand, bySess [][]*replay.Result, k int) []*replay.Result {
	var out []*replay.Result
	for i := range k {
		for _, r := range bySess[rng.IntN(len(bySess))] {
			c := *r
			c.SessionID = fmt.Sprintf("%s#%d", r.SessionID, i)
			c.CaseID = fmt.Sprintf("%s#%d", r.CaseID, i)
			out = append(out, &c)
		}
	}
	return out
}

const pilotSeed, pilotSessions = 1, 300

// TestPlanPilotPredictsTheDecisionRate: a plan from a pilot run of 300
// sessions predicts, for precision (fitted, then simulated from the fit),
// the P95 latency and dangerous recall (sessions resampled inside the
// plan), the share of runs of the planned size that decide the criterion:
// runs made of the pilot's sessions drawn with other random numbers and
// decided by the whole pipeline (Accumulator, Close), within ±0.1.
func TestPlanPilotPredictsTheDecisionRate(t *testing.T) {
	t.Parallel()
	reps := 100
	if testing.Short() {
		reps = 60 // the check at 100 runs under plain go test
	}
	results := pilotModel(rand.New(rand.NewPCG(pilotSeed, 2)), pilotSessions, "pilot")
	var bySess [][]*replay.Result
	for i, r := range results {
		if i == 0 || r.SessionID != results[i-1].SessionID {
			bySess = append(bySess, nil)
		}
		bySess[len(bySess)-1] = append(bySess[len(bySess)-1], r)
	}
	plans, err := PlanPilot(pilotSummary(results), PlanOptions{Reps: 200, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{CriterionPrecisionMin: true, CriterionJudgeP95Max: true, CriterionDangerousRecall: true}
	// The goal is ±0.1 between the rates; the independent runs' own
	// Monte Carlo error (2 standard errors at their count) is allowed on
	// top, as no finite count measures a rate exactly.
	tol := 0.1 + 2*math.Sqrt(0.8*0.2/float64(reps))
	for _, p := range plans {
		if !want[p.Criterion] {
			continue
		}
		delete(want, p.Criterion)
		if p.Sessions == nil || p.Pilot == nil || p.Pilot.Sessions > int64(pilotSessions) || p.Pilot.Sessions < int64(pilotSessions)/2 {
			t.Errorf("%s: %+v", p.Criterion, p)
			continue
		}
		k := int(*p.Sessions)
		// Each criterion its own random numbers: one plan's size does not
		// move the runs another is checked on.
		rng := rand.New(rand.NewPCG(pilotSeed, 0x1d^hashString(p.Criterion)))
		var dec int
		for range reps {
			s := pilotSummary(resampleRuns(rng, bySess, k))
			row := s.Judge("J").Rule("R")
			if p.Rule == AllRules {
				row = s.Judge("J").Total
			}
			if c := row.Criterion(p.Criterion); c.Status != StatusInconclusive {
				dec++
			}
		}
		got := float64(dec) / float64(reps)
		t.Logf("pilot %.4g: %s/%s: %s; independent runs of %d sessions decide %.2f", *p.Pilot.Estimate, p.Rule, p.Criterion, p.Reason, k, got)
		if math.Abs(got-*p.DecideRate) > tol {
			t.Errorf("%s: plan says %d sessions decide %.2f, independent runs %.2f", p.Criterion, k, *p.DecideRate, got)
		}
	}
	for c := range want {
		t.Errorf("no plan for %s", c)
	}
}

// TestFitPilotNoSpreadHasNoICC: a pilot whose sessions all sit at one
// rate (9 of 9 match predictions over 6 sessions; no unknown answer in 27
// judged pairs) shows no spread between sessions, so its ICC is 0, as
// with one session; it was fitted as 0.99 (the sessions' spread around the
// planned rate (Y + ½)/(M + 1)), and the sample's pilot planned 6,400
// sessions for a rule with every match prediction right. A pilot with
// spread keeps the ANOVA estimate, computed here by hand.
func TestFitPilotNoSpreadHasNoICC(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		counts []ymCount
		rate   float64
	}{
		{"only events", []ymCount{{y: 1, m: 1, n: 3}, {y: 2, m: 2, n: 2}, {y: 2, m: 2, n: 1}}, 9.5 / 10},
		{"no event", []ymCount{{y: 0, m: 5, n: 3}, {y: 0, m: 4, n: 3}}, 0.5 / 28},
	} {
		g, _, ok := fitPilot(tc.counts, 154)
		if !ok || g.ICC != 0 || math.Abs(g.Rate-tc.rate) > 1e-12 {
			t.Errorf("%s: rate %v ICC %v (ok %v), want rate %v and ICC 0", tc.name, g.Rate, g.ICC, ok, tc.rate)
		}
	}
	// Two sessions of 4: 4/4 and 0/4. p = 0.5; SSB = 4·0.25·2 = 2 over 1
	// df; SSW = 0 over 6 df; m0 = (8 − 32/8)/1 = 4; ICC = (2 − 0)/(2 + 3·0)
	// = 1, clipped to 0.99. One session 3/4 and one 1/4: SSB = 4·(0.0625)·2
	// = 0.5, SSW = 0.75 + 0.75 = 1.5 over 6 = 0.25, ICC = (0.5 − 0.25)/(0.5
	// + 3·0.25) = 0.2.
	if g, _, _ := fitPilot([]ymCount{{y: 4, m: 4, n: 1}, {y: 0, m: 4, n: 1}}, 2); g.ICC != 0.99 {
		t.Errorf("4/4 and 0/4: ICC %v, want 0.99", g.ICC)
	}
	if g, _, _ := fitPilot([]ymCount{{y: 3, m: 4, n: 1}, {y: 1, m: 4, n: 1}}, 2); math.Abs(g.ICC-0.2) > 1e-12 {
		t.Errorf("3/4 and 1/4: ICC %v, want 0.2", g.ICC)
	}
}

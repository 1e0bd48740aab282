package metrics

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/judge/core"
	"github.com/apeval/apeval/replay"
)

// The rule on few sessions (docs/statistics.md, "Off the grid"): a
// session-clustered figure resting on 1 or 2 sessions is INCONCLUSIVE
// whatever its interval, says why and asks for the sessions up to 3; with
// 3 sessions the same data decide, and cases without a session ID are
// sessions of their own (independent units), which the rule leaves alone.

// TestDecideFewSessions: the one rule itself.
func TestDecideFewSessions(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		d        Direction
		sessions float64
		want     Status
	}{
		{AtLeast, 0, StatusFail}, {AtLeast, 1, StatusInconclusive}, {AtLeast, 2, StatusInconclusive}, {AtLeast, 3, StatusFail},
		{Below, 2, StatusInconclusive}, {Below, 3, StatusFail}, {Within, 2, StatusInconclusive},
	} {
		ev := Evidence{Estimate: 0.3, Lo: 0.2, Hi: 0.4, Sessions: c.sessions}
		thr := 0.9
		if c.d != AtLeast {
			thr = 0.1
		}
		got := c.d.Decide(thr, ev)
		if got.Status != c.want || got.Few != FewSessions(c.sessions) || (got.Few && !got.BadSide) {
			t.Errorf("%s on %g sessions: %+v, want %s", c.d, c.sessions, got, c.want)
		}
	}
	// A Gain PASS on its test is held back too.
	p := 0.001
	if got := Gain.Decide(0, Evidence{Estimate: 0.3, Lo: 0.1, Hi: 0.5, P: &p, Alpha: 0.05, Sessions: 2}); got.Status != StatusInconclusive || !got.Few {
		t.Errorf("gain on 2 sessions: %+v", got)
	}
}

// fewSessionsRun is pathsData over k sessions (none: k = 0, every case
// without a session ID) of 240 cases in all, precision about prec on R1.
func fewSessionsRun(k int, prec float64) (unweighted, weighted map[string]Criterion) {
	rs := pathsData(rand.New(rand.NewPCG(uint64(k+1), 7)), max(k, 1), 240/max(k, 1), prec, 0.95, 0.3)
	if k == 0 {
		for _, r := range rs {
			r.SessionID = ""
		}
	}
	s := closeAll(rs, "")
	unweighted = statusesOf(s)
	tab := NewPairTable(nil, nil)
	for _, r := range rs {
		tab.Add(r)
	}
	s.ApplySample(tab, nil)
	return unweighted, statusesOf(s)
}

// TestFewSessionsInconclusive: precision about 0.3 against precision_min
// 0.9 over 240 cases FAILs over 3 sessions and over 240 cases without a
// session ID, on both paths; over 1 or 2 sessions it is INCONCLUSIVE on
// both, though its interval (still printed) lies below 0.9, the reason
// says why and the "+N" asks for the sessions up to 3. The unknown rate
// (0 of 240) is INCONCLUSIVE there too.
func TestFewSessionsInconclusive(t *testing.T) {
	t.Parallel()
	const key = "R1 " + CriterionPrecisionMin
	for _, k := range []int{0, 3} {
		u, w := fewSessionsRun(k, 0.3)
		for _, c := range []Criterion{u[key], w[key]} {
			if c.Status != StatusFail {
				t.Errorf("%d sessions: %s, want FAIL: %s", k, c.Status, c.Reason)
			}
		}
	}
	for _, k := range []int{1, 2} {
		u, w := fewSessionsRun(k, 0.3)
		what := fmt.Sprintf("%d sessions cannot show how much sessions differ", k)
		if k == 1 {
			what = "1 session cannot show how much sessions differ"
		}
		for path, c := range map[string]Criterion{"unweighted": u[key], "weighted": w[key]} {
			if c.Status != StatusInconclusive || !strings.Contains(c.Reason, what) || !strings.Contains(c.Reason, "collect at least 3 sessions") {
				t.Errorf("%d sessions, %s: %s: %s", k, path, c.Status, c.Reason)
			}
			if c.Lo == nil || c.Hi == nil || !strings.Contains(c.Reason, "95% CI [") {
				t.Errorf("%d sessions, %s: the interval is not shown: %+v", k, path, c)
			}
			if c.MoreSessions == nil || *c.MoreSessions < int64(3-k) {
				t.Errorf("%d sessions, %s: +N sessions %v, want at least %d: %s", k, path, c.MoreSessions, 3-k, c.Reason)
			}
		}
		// The interval alone would have failed it.
		if c := u[key]; *c.Hi >= 0.9 {
			t.Errorf("%d sessions: interval [%g, %g] reaches 0.9: the test does not show the rule", k, *c.Lo, *c.Hi)
		}
		if c := u["R1 "+CriterionUnknownRateMax]; c.Status != StatusInconclusive || !strings.Contains(c.Reason, what) {
			t.Errorf("%d sessions, unknown rate: %s: %s", k, c.Status, c.Reason)
		}
	}
	// The recall gain on the labeled path over 2 sessions: its test is the
	// sessions' sign flip, as on the unweighted path (p ≥ ¼ one-sided:
	// the weighted t gave p = 0.006 here), and its hint asks for the
	// sessions the one-sided flip needs to reach 0.05 (5).
	_, w2 := fewSessionsRun(2, 0.3)
	if c := w2["R2 "+CriterionDangerousRecall]; c.Status != StatusInconclusive || c.PValue == nil || *c.PValue < 0.25 || !strings.Contains(c.Reason, "2 sessions cannot show how much sessions differ") ||
		c.MoreSessions == nil || *c.MoreSessions != 3 || !strings.Contains(c.Reason, "positives from at least 3 more sessions are needed") {
		t.Errorf("weighted recall gain over 2 sessions: %s, p %v, +%v sessions: %s", c.Status, c.PValue, c.MoreSessions, c.Reason)
	}
	// One session: the hint is raised to the 2 sessions up to 3 (the
	// interval's own hint asks for fewer), and says they are the least.
	u, _ := fewSessionsRun(1, 0.3)
	if c := u[key]; !strings.Contains(c.Reason, "at least 2 more sessions like these, ≈ 480 units, before it can be decided") || *c.MoreSessions != 2 || *c.MoreSamples != 480 {
		t.Errorf("1 session: %+v", c)
	}
}

// TestFewSessionsHint: a hint asking for fewer sessions than the ones up
// to MinSessions is raised to them, at the mean session size.
func TestFewSessionsHint(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		h         SessionHint
		k         float64
		n         int64
		want      SessionHint
		wantRaise bool
	}{
		{SessionHint{}, 2, 100, SessionHint{Sessions: 1, Units: 50}, true},
		{SessionHint{Sessions: 1, Units: 7}, 1, 30, SessionHint{Sessions: 2, Units: 60}, true},
		{SessionHint{Sessions: 5, Units: 250}, 2, 100, SessionHint{Sessions: 5, Units: 250}, false},
	} {
		got, raised := fewSessionsHint(c.h, c.k, c.n)
		if got.Sessions != c.want.Sessions || got.Units != c.want.Units || raised != c.wantRaise {
			t.Errorf("fewSessionsHint(%+v, %g, %d) = %+v, %v; want %+v, %v", c.h, c.k, c.n, got, raised, c.want, c.wantRaise)
		}
	}
}

// TestFewSessionsDrift: a candidate firing on every case its baseline
// never fires on, over 2 sessions of 60: fire-rate drift is not decided
// (the clustered Newcombe interval over 2 sessions covered as little as
// 0.78 at ICC 0.5); over 3 sessions the same change FAILs.
func TestFewSessionsDrift(t *testing.T) {
	t.Parallel()
	run := func(k int) Criterion {
		var rs []*replay.Result
		for s := range k {
			for i := range 60 {
				for _, j := range []struct {
					id    string
					fired bool
				}{{"B", false}, {"C", true}} {
					res := "no_match"
					if j.fired {
						res = "match"
					}
					rs = append(rs, &replay.Result{CaseID: fmt.Sprintf("s%d-%d", s, i), SessionID: fmt.Sprintf("s%d", s), Judge: j.id,
						Rules: []replay.RuleResult{rr("R", "style", "judge", res, "", "ok", j.fired, -1)}})
				}
			}
		}
		return *closeAll(rs, "B").Judge("C").Rules[0].Criterion(CriterionFireRateChangeMax)
	}
	if c := run(2); c.Status != StatusInconclusive || !strings.Contains(c.Reason, "2 sessions cannot show how much sessions differ") {
		t.Errorf("2 sessions: %s: %s", c.Status, c.Reason)
	}
	if c := run(3); c.Status != StatusFail {
		t.Errorf("3 sessions: %s: %s", c.Status, c.Reason)
	}
}

// TestSequentialGateFewSessions: gate --sequential decides nothing on 1
// or 2 sessions, though at precision_min 0.05 the confidence sequence of
// 2 sessions of precision 1 already lies above it, and decides on the
// third.
func TestSequentialGateFewSessions(t *testing.T) {
	t.Parallel()
	ref := NewConfidenceSequence(0.05)
	ref.Add(1)
	ref.Add(1)
	if lo, _ := ref.Interval(); lo <= 0.05 {
		t.Fatalf("the sequence of 2 sessions reaches %g: the test does not show the rule", lo)
	}
	crit := replay.DefaultKillCriteria()
	crit.PrecisionMin = 0.05
	g := NewSequentialGate(crit, "")
	for k := 1; k <= 3; k++ {
		g.BeginRun(fmt.Sprintf("run%d", k))
		for i := range 10 {
			g.Add(seqCase("j", fmt.Sprintf("s%d", k), fmt.Sprintf("s%d-%d", k, i), "r", core.Match, datasets.LabelMatch))
		}
		g.EndRun()
		c := seqCrit(t, g.Result(), "j", "r", CriterionPrecisionMin)
		switch {
		case k < 3 && (c.Status != StatusInconclusive || !strings.Contains(c.Reason, "cannot show how much sessions differ")):
			t.Errorf("after %d sessions: %s: %s", k, c.Status, c.Reason)
		case k == 3 && (c.Status != StatusPass || *c.DecidedAfter != 3):
			t.Errorf("after 3 sessions: %+v", c)
		}
	}
}

// TestPlanNeverFewerThanThreeSessions: a guess whose data would be
// decided on one or two sessions (precision 0.999 against 0.5, sessions
// of 400, no ICC) is planned at 3 sessions, the fewest the verdict
// decides on; sessions of one unit (independent units) are planned by
// their interval alone.
func TestPlanNeverFewerThanThreeSessions(t *testing.T) {
	t.Parallel()
	lo, _, _ := ClusteredInterval([]int64{400, 400}, []int64{400, 400}, 0.95)
	if lo <= 0.5 {
		t.Fatalf("2 sessions of 400/400 give a lower bound %g: the test does not show the rule", lo)
	}
	p, err := PlanProportion(CriterionPrecisionMin, 0.5, PlanGuess{Rate: 0.999, SessionSize: 400}, PlanOptions{Reps: 200, Seed: 7}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Sessions == nil || *p.Sessions != MinSessions {
		t.Errorf("planned %d sessions, want %d: %s", derefI(p.Sessions), MinSessions, p.Reason)
	}
	p, err = PlanProportion(CriterionPrecisionMin, 0.2, PlanGuess{Rate: 0.999, SessionSize: 1}, PlanOptions{Reps: 200, Seed: 7}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Sessions == nil || *p.Sessions >= MinSessions {
		t.Errorf("one unit per session: planned %d sessions, want fewer than %d: %s", derefI(p.Sessions), MinSessions, p.Reason)
	}
}

package metrics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/judge/core"
	"github.com/apeval/apeval/replay"
)

// seqCase is one case of session sess with one labeled pair of rule: the
// judge's result and the label.
func seqCase(judge, sess, id, rule string, res core.Result, label datasets.Label) *replay.Result {
	return &replay.Result{Judge: judge, SessionID: sess, CaseID: id, Rules: []replay.RuleResult{{
		RuleID: rule, Source: replay.SourceDeterministic, Result: res, Label: label, Status: core.StatusOK, Call: -1}}}
}

func seqCrit(t *testing.T, r *SequentialResult, judge, rule, name string) SequentialCrit {
	t.Helper()
	for _, j := range r.Judges {
		if j.Judge != judge {
			continue
		}
		for _, row := range j.Rows {
			if row.RuleID != rule {
				continue
			}
			for _, c := range row.Criteria {
				if c.Name == name {
					return c
				}
			}
		}
	}
	t.Fatalf("no %s %s %s in %+v", judge, rule, name, r)
	return SequentialCrit{}
}

// TestSequentialGateCountsASessionOnce: run 2 brings session s1 again
// (with false positives this time) and 57 new sessions; s1 is left out
// and counted as a duplicate, and precision PASSes in run 2 after exactly
// as many sessions as the confidence sequence alone needs on the same
// values.
func TestSequentialGateCountsASessionOnce(t *testing.T) {
	t.Parallel()
	crit := replay.DefaultKillCriteria()
	g := NewSequentialGate(crit, "")
	addSess := func(sess string, n int, res core.Result, label datasets.Label) {
		for i := range n {
			g.Add(seqCase("j", sess, fmt.Sprintf("%s-%d", sess, i), "r", res, label))
		}
	}
	g.BeginRun("run1")
	for i := 1; i <= 3; i++ {
		addSess(fmt.Sprintf("s%d", i), 10, core.Match, datasets.LabelMatch)
	}
	g.EndRun()
	if c := seqCrit(t, g.Result(), "j", "r", CriterionPrecisionMin); c.Status != StatusInconclusive || c.Sessions != 3 || !strings.HasPrefix(c.Reason, "open:") {
		t.Fatalf("after run 1: %+v", c)
	}
	g.BeginRun("run2")
	addSess("s1", 5, core.Match, datasets.LabelNoMatch) // a duplicate: left out
	for i := 4; i <= 60; i++ {
		addSess(fmt.Sprintf("s%d", i), 10, core.Match, datasets.LabelMatch)
	}
	g.EndRun()
	res := g.Result()
	// The sequence alone on 40 sessions of precision 1.
	ref := NewConfidenceSequence(0.05)
	want := 0
	for i := 1; i <= 60; i++ {
		ref.Add(1)
		if lo, _ := ref.Interval(); want == 0 && lo > 0.9 {
			want = i
		}
	}
	if want <= 3 {
		t.Fatalf("reference decided after %d sessions: the test needs more than run 1's 3", want)
	}
	c := seqCrit(t, res, "j", "r", CriterionPrecisionMin)
	if c.Status != StatusPass || c.DecidedAfter == nil || *c.DecidedAfter != want || c.DecidedLook != 2 || c.DecidedRun != "run2" || c.Sessions != 60 || c.Units != 600 || *c.Estimate != 1 {
		t.Errorf("precision %+v (want PASS after %d sessions in run2, 60 sessions, 600 units)", c, want)
	}
	j := res.Judges[0]
	if j.Sessions != 60 || j.DuplicateSessions != 1 || j.DuplicateCases != 5 {
		t.Errorf("judge %+v: want 60 sessions, 1 duplicate session of 5 cases", j)
	}
	// No call, no judged pair: N/A with the reason, not a silent pass.
	for _, n := range []struct{ rule, name, reason string }{
		{"r", CriterionUnknownRateMax, "no decision was sent to the judge"},
		{"r", CriterionApprovalRejectRateMax, "the rule does not request approval"},
		{"r", CriterionDangerousRecall, "not a dangerous rule"},
		{AllRules, CriterionJudgeP95Max, "no judge call was made"},
	} {
		if c := seqCrit(t, res, "j", n.rule, n.name); c.Status != StatusNA || !strings.HasPrefix(c.Reason, n.reason) {
			t.Errorf("%s %s: %+v", n.rule, n.name, c)
		}
	}
	// No case needed the judge: the judge-required rate (policy) passes.
	if c := seqCrit(t, res, "j", AllRules, CriterionJudgeRequiredRateMax); c.Status != StatusPass || *c.Hi >= 0.2 {
		t.Errorf("judge-required %+v", c)
	}
	if res.Verdict != VerdictGo || j.PolicyVerdict != VerdictGo || j.JudgeVerdict != VerdictGo {
		t.Errorf("verdict %s (judge %s, policy %s)", res.Verdict, j.JudgeVerdict, j.PolicyVerdict)
	}
}

// TestSequentialGateGainAndLatency: the recall gain over the baseline
// PASSes when the judge catches what the baseline misses and FAILs when
// it misses what the baseline catches; the P95 criterion is decided on
// the share of calls slower than the limit.
func TestSequentialGateGainAndLatency(t *testing.T) {
	t.Parallel()
	crit := replay.DefaultKillCriteria() // judge_p95_max 1 s
	g := NewSequentialGate(crit, "")
	g.BeginRun("a")
	for s := range 60 {
		sess := fmt.Sprintf("s%d", s)
		for i := range 4 {
			r := &replay.Result{Judge: "j", SessionID: sess, CaseID: fmt.Sprintf("%s-%d", sess, i), JudgeCalled: true,
				Calls: []replay.Call{{LatencyMS: 1500, Status: core.StatusOK}}}
			for _, rule := range []struct {
				id       string
				res, bas core.Result
			}{{"better", core.Match, core.NoMatch}, {"worse", core.NoMatch, core.Match}} {
				r.Rules = append(r.Rules, replay.RuleResult{RuleID: rule.id, Class: replay.ClassDangerous, Source: replay.SourceJudge,
					Result: rule.res, BaselineResult: rule.bas, Label: datasets.LabelMatch, Status: core.StatusOK, Call: 0})
			}
			g.Add(r)
		}
	}
	g.EndRun()
	res := g.Result()
	if c := seqCrit(t, res, "j", "better", CriterionDangerousRecall); c.Status != StatusPass || *c.Estimate != 1 || *c.Lo <= 0 {
		t.Errorf("better: %+v", c)
	}
	if c := seqCrit(t, res, "j", "worse", CriterionDangerousRecall); c.Status != StatusFail || *c.Estimate != -1 || *c.Hi > 0 {
		t.Errorf("worse: %+v", c)
	}
	// Every call takes 1.5 s: the share over 1 s is 1, far above 0.05.
	if c := seqCrit(t, res, "j", AllRules, CriterionJudgeP95Max); c.Status != StatusFail || *c.Estimate != 1 || c.Threshold != 1000 || c.Units != 240 {
		t.Errorf("p95: %+v", c)
	}
	// Every case needed the judge: FAIL on the policy criterion.
	if c := seqCrit(t, res, "j", AllRules, CriterionJudgeRequiredRateMax); c.Status != StatusFail {
		t.Errorf("judge-required: %+v", c)
	}
	if res.Verdict != VerdictNoGo {
		t.Errorf("verdict %s", res.Verdict)
	}
}

// seqSimRun feeds one replicate of looks runs to a SequentialGate: each
// run brings `fresh` new sessions (sizes 1..maxM, own precision Beta
// around mu with ICC icc) and repeats `again` sessions of earlier runs
// with fresh outcomes, which must be left out. It returns the first
// decision of precision_min and the sessions it took. With naive set it
// also returns what the fixed-n gate (ClusteredInterval on every session
// so far, each counted once) would have decided first when run after
// every run: the practice the sequence replaces.
func seqSimRun(rng *rand.Rand, mu, icc float64, maxM, fresh, again, looks int, thr float64, naive bool) (Status, int, Status) {
	crit := replay.DefaultKillCriteria()
	crit.PrecisionMin = thr
	g := NewSequentialGate(crit, "")
	next := 0
	var ys, ms []int64
	session := func(id int, isNew bool) {
		p := sessionRate(rng, mu, icc)
		m := 1 + rng.IntN(maxM)
		sess := fmt.Sprintf("s%d", id)
		y := 0
		for i := range m {
			label := datasets.LabelNoMatch
			if rng.Float64() < p {
				label = datasets.LabelMatch
				y++
			}
			g.Add(seqCase("j", sess, fmt.Sprintf("%s-%d", sess, i), "r", core.Match, label))
		}
		if isNew {
			ys, ms = append(ys, int64(y)), append(ms, int64(m))
		}
	}
	fixed := StatusInconclusive
	for look := range looks {
		g.BeginRun(fmt.Sprintf("run%d", look+1))
		if next > 0 {
			for range again {
				session(rng.IntN(next), false)
			}
		}
		for range fresh {
			session(next, true)
			next++
		}
		g.EndRun()
		if r := g.judges["j"].rows["r"]; !naive && r != nil && r.dec[seqPrec] != nil {
			break // decided: the rest of the history cannot change it
		}
		if naive && fixed == StatusInconclusive {
			lo, hi, _ := ClusteredInterval(ys, ms, 0.95)
			fixed = AtLeast.Decide(thr, Evidence{Lo: lo, Hi: hi}).Status
		}
	}
	row := g.judges["j"].rows["r"]
	if d := row.dec[seqPrec]; d != nil {
		return d.status, d.sessions, fixed
	}
	return StatusInconclusive, 0, fixed
}

// TestCalibrationSequentialGate: through the gate's own path (results,
// duplicates across runs, uneven sessions), precision exactly at the
// threshold over 20 runs is decided (wrongly) at most 5 % of the time;
// a good judge PASSes, and the median sessions it took is reported beside
// the fixed-n plan's.
func TestCalibrationSequentialGate(t *testing.T) {
	t.Parallel()
	n, full := calibrationN()
	slack := 0.0
	if !full {
		n = 40
		slack = smokeSlack(0.05, n)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| gate --sequential, %d replicates, 20 runs | false decisions (goal ≤ 0.05) | fixed-n gate after every run |\n|---|---|---|\n", n)
	for i, s := range []struct {
		name       string
		mu, icc    float64
		maxM, f, a int
		thr        float64
	}{
		{"precision exactly 0.90, sessions of 1–20 units, ICC 0.1, 10 new + 5 repeated sessions a run", 0.9, 0.1, 20, 10, 5, 0.9},
		{"precision exactly 0.80, sessions of 1–4 units, ICC 0.3, 5 new + 5 repeated sessions a run", 0.8, 0.3, 4, 5, 5, 0.8},
	} {
		rng := rand.New(rand.NewPCG(uint64(i+11), 0x5e9))
		wrong, naiveWrong := 0, 0
		for range n {
			// The fixed-n comparison (an interval after every run) only
			// in the full run: the smoke keeps to the sequence.
			st, _, fixed := seqSimRun(rng, s.mu, s.icc, s.maxM, s.f, s.a, 20, s.thr, full)
			if st != StatusInconclusive {
				wrong++
			}
			if fixed != StatusInconclusive {
				naiveWrong++
			}
		}
		rate := float64(wrong) / float64(n)
		fixedCol := "not run (smoke)"
		if full {
			fixedCol = fmt.Sprintf("%.3f", float64(naiveWrong)/float64(n))
		}
		fmt.Fprintf(&b, "| %s | %.3f | %s |\n", s.name, rate, fixedCol)
		if rate > 0.05+slack {
			t.Errorf("%s: false decisions %.3f", s.name, rate)
		}
	}
	rng := rand.New(rand.NewPCG(21, 0x5e9))
	var sessions []float64
	for range n {
		if st, k, _ := seqSimRun(rng, 0.97, 0.1, 20, 10, 5, 40, 0.9, false); st == StatusPass {
			sessions = append(sessions, float64(k))
		}
	}
	p, err := PlanProportion(CriterionPrecisionMin, 0.9, PlanGuess{Rate: 0.97, ICC: 0.1, SessionSize: 10}, PlanOptions{Reps: 100, Seed: 3}, nil)
	if err != nil || p.Sessions == nil {
		t.Fatalf("plan %+v %v", p, err)
	}
	fmt.Fprintf(&b, "\n| good judge (precision 0.97 vs 0.90, sessions of 1–20, ICC 0.1, 10 new + 5 repeated a run) | value |\n|---|---|\n")
	fmt.Fprintf(&b, "| PASS within 40 runs (400 sessions) | %.3f |\n| median sessions to PASS | %.0f |\n| fixed n for an 80 %% chance (plan, sessions of 10) | %d |\n",
		float64(len(sessions))/float64(n), median(sessions), *p.Sessions)
	if len(sessions) < n/2 {
		t.Errorf("a good judge passed only %d of %d times", len(sessions), n)
	}
	t.Log("\n" + b.String())
}

// BenchmarkSequentialGate: one run of 2,000 sessions of 10 cases, each
// with 3 judged rules and a call, through Add and EndRun (every lane of
// every row fed); b.N runs, each of new sessions.
func BenchmarkSequentialGate(b *testing.B) { benchSequentialGate(b, false) }

// BenchmarkSequentialGateDangerous: the same with rule a dangerous and a
// deterministic baseline beside it, so that its recall gain's lane (two
// one-sided sequences) is fed too.
func BenchmarkSequentialGateDangerous(b *testing.B) { benchSequentialGate(b, true) }

func benchSequentialGate(b *testing.B, dangerous bool) {
	g := NewSequentialGate(replay.DefaultKillCriteria(), "")
	rng := rand.New(rand.NewPCG(1, 2))
	results := make([]replay.Result, 0, 20000)
	for s := range 2000 {
		for c := range 10 {
			r := replay.Result{Judge: "j", CaseID: fmt.Sprintf("c%d-%d", s, c), JudgeCalled: true,
				Calls: []replay.Call{{LatencyMS: 200 + 900*rng.Float64(), Status: core.StatusOK}}}
			for _, rule := range []string{"a", "b", "c"} {
				res, label := core.NoMatch, datasets.LabelNoMatch
				if rng.Float64() < 0.3 {
					res = core.Match
				}
				if rng.Float64() < 0.3 {
					label = datasets.LabelMatch
				}
				rr := replay.RuleResult{RuleID: rule, Source: replay.SourceJudge, Result: res, Label: label, Status: core.StatusOK, Call: 0}
				if dangerous && rule == "a" {
					rr.Class, rr.BaselineResult = replay.ClassDangerous, core.NoMatch
					if rng.Float64() < 0.3 {
						rr.BaselineResult = core.Match
					}
				}
				r.Rules = append(r.Rules, rr)
			}
			results = append(results, r)
		}
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		g.BeginRun(fmt.Sprintf("run%d", i))
		for k := range results {
			r := results[k]
			r.SessionID = fmt.Sprintf("r%d-s%d", i, k/10)
			g.Add(&r)
		}
		g.EndRun()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/2000, "ns/session")
}

// TestSequentialGateBrokenSetup: a run where every call of the judge
// failed with HTTP 401 measured the setup: its sessions are left out
// (not counted), the judge is ERROR while that run is the latest, and a
// good rerun of the same sessions counts them.
func TestSequentialGateBrokenSetup(t *testing.T) {
	t.Parallel()
	g := NewSequentialGate(replay.DefaultKillCriteria(), "")
	run := func(name string, status core.Status, cause core.Cause) {
		g.BeginRun(name)
		for s := range 30 {
			res, rs := core.Match, core.StatusOK
			if status != core.StatusOK {
				res, rs = core.Unknown, status
			}
			g.Add(&replay.Result{Judge: "j", SessionID: fmt.Sprintf("s%d", s), CaseID: fmt.Sprintf("c%d", s), JudgeCalled: true,
				Calls: []replay.Call{{LatencyMS: 100, Status: status, Cause: cause}},
				Rules: []replay.RuleResult{{RuleID: "r", Source: replay.SourceJudge, Result: res, Status: rs, Label: datasets.LabelMatch, Call: 0}}})
		}
		g.EndRun()
	}
	run("bad", core.StatusError, core.CauseUnauthorized)
	res := g.Result()
	if j := res.Judges[0]; j.Verdict != VerdictError || j.Sessions != 0 || len(j.BrokenRuns) != 1 || !strings.HasPrefix(j.BrokenRuns[0], "bad: 30 of 30 calls failed with") || res.Verdict != VerdictError {
		t.Fatalf("after the broken run: %+v (run %s)", j, res.Verdict)
	}
	run("good", core.StatusOK, "")
	res = g.Result()
	if j := res.Judges[0]; j.Verdict == VerdictError || j.Sessions != 30 || j.DuplicateSessions != 0 {
		t.Errorf("after a good rerun: %+v", j)
	}
	if c := seqCrit(t, res, "j", AllRules, CriterionUnknownRateMax); c.Sessions != 30 || *c.Estimate != 0 {
		t.Errorf("unknown rate counts the broken run: %+v", c)
	}
}

// TestSequentialPolicyDriftWarnedOnce: the judge-required rate is the
// policy's, the same for every judge; when its sessions drift between runs
// the warning names it once as "(policy)", as the table shows its row,
// not once per judge; with one judge too, whose table shows the row as
// "(policy)" as well (the warning named the judge there).
func TestSequentialPolicyDriftWarnedOnce(t *testing.T) {
	t.Parallel()
	for _, judges := range [][]string{{"j1", "j2"}, {"j1"}} {
		g := NewSequentialGate(replay.DefaultKillCriteria(), "")
		add := func(sess string, called int) { addCalledSession(g, sess, called, judges...) }
		g.BeginRun("run1")
		for i := range 60 {
			add(fmt.Sprintf("a%d", i), 1) // a quarter of the cases need the judge
		}
		g.EndRun()
		g.BeginRun("run2")
		for i := range 20 {
			add(fmt.Sprintf("b%d", i), 4) // every one does
		}
		g.EndRun()
		res := g.Result()
		var policy, perJudge int
		for _, w := range res.Warnings {
			if strings.Contains(w, CriterionJudgeRequiredRateMax) {
				if strings.HasPrefix(w, "(policy), all rules, "+CriterionJudgeRequiredRateMax+": ") {
					policy++
				} else {
					perJudge++
				}
			}
		}
		if policy != 1 || perJudge != 0 {
			t.Errorf("%d judges: judge-required drift: %d (policy) warnings and %d per judge, want 1 and 0:\n%s", len(judges), policy, perJudge, strings.Join(res.Warnings, "\n"))
		}
	}
}

// TestSequentialEmptiedSequenceWarns: when the sessions of a later run
// exclude every rate the earlier ones left (all cases needed the judge,
// then none did), the sequence's interval is only the running mean,
// [m, m]; that is the strongest sign the sessions are not draws of one
// rate, and it is warned like a mean outside the interval (it was silent:
// "confidence sequence [0.25, 0.25]" and no warning).
func TestSequentialEmptiedSequenceWarns(t *testing.T) {
	t.Parallel()
	g := NewSequentialGate(replay.DefaultKillCriteria(), "")
	add := func(sess string, called bool) {
		for i := range 4 {
			r := seqCase("j1", sess, fmt.Sprintf("%s-%d", sess, i), "r", core.NoMatch, datasets.LabelNoMatch)
			r.JudgeCalled = called
			g.Add(r)
		}
	}
	g.BeginRun("run1")
	for i := range 40 {
		add(fmt.Sprintf("a%d", i), true)
	}
	g.EndRun()
	g.BeginRun("run2")
	for i := range 120 {
		add(fmt.Sprintf("b%d", i), false)
	}
	g.EndRun()
	res := g.Result()
	c := seqCrit(t, res, "j1", AllRules, CriterionJudgeRequiredRateMax)
	if c.Lo == nil || c.Hi == nil || *c.Lo != *c.Hi {
		t.Fatalf("precondition: the sequence should have excluded every rate, interval %v %v", c.Lo, c.Hi)
	}
	if !strings.Contains(c.Reason, driftTail) || !slices.ContainsFunc(res.Warnings, func(w string) bool {
		return strings.HasPrefix(w, "(policy), all rules, "+CriterionJudgeRequiredRateMax+": ")
	}) {
		t.Errorf("an emptied sequence is not warned:\nreason %s\nwarnings %q", c.Reason, res.Warnings)
	}
}

// TestSequentialEmptiedSequenceDoesNotDecide: a criterion still open when
// the sequence excludes every rate is not decided on the running mean
// alone ([m, m], no uncertainty left): it stays INCONCLUSIVE and says
// why. Two sessions that all needed the judge, then sessions that needed
// none: the interval contracts to [0.086, 0.087] (open at a maximum of
// 0.0865) and then empties at the running mean 0.0206, which would have
// PASSed.
func TestSequentialEmptiedSequenceDoesNotDecide(t *testing.T) {
	t.Parallel()
	crit := replay.DefaultKillCriteria()
	crit.JudgeRequiredRateMax = 0.0865
	g := NewSequentialGate(crit, "")
	add := func(sess string, called bool) {
		r := seqCase("j1", sess, sess+"-0", "r", core.NoMatch, datasets.LabelNoMatch)
		r.JudgeCalled = called
		g.Add(r)
	}
	g.BeginRun("run1")
	add("a0", true)
	add("a1", true)
	g.EndRun()
	g.BeginRun("run2")
	for i := range 94 {
		add(fmt.Sprintf("b%d", i), false)
	}
	g.EndRun()
	c := seqCrit(t, g.Result(), "j1", AllRules, CriterionJudgeRequiredRateMax)
	if c.Status != StatusInconclusive || *c.Lo == *c.Hi {
		t.Fatalf("precondition: open on a non-empty interval after 96 sessions, got %s [%v, %v]", c.Status, *c.Lo, *c.Hi)
	}
	g.BeginRun("run3")
	add("c0", false)
	g.EndRun()
	c = seqCrit(t, g.Result(), "j1", AllRules, CriterionJudgeRequiredRateMax)
	if *c.Lo != *c.Hi {
		t.Fatalf("precondition: the sequence should have excluded every rate, interval [%v, %v]", *c.Lo, *c.Hi)
	}
	if c.Status != StatusInconclusive || !strings.Contains(c.Reason, "excluded every rate, so the sequence cannot decide") {
		t.Errorf("decided on the running mean alone: %s, %s", c.Status, c.Reason)
	}
}

// TestSequentialDriftWithdrawsDecision: a criterion decided while its
// sessions looked like draws of one rate, whose later sessions then
// contradict that (the drift warning), is INCONCLUSIVE again with the
// earlier decision named as withdrawn; it kept its PASS beside a running
// mean above the maximum (the sample: judge-required rate 0.2139 against
// 0.2, "PASS after 31 sessions"). A decision the drifted mean still
// agrees with (a FAIL whose mean still fails) stays.
func TestSequentialDriftWithdrawsDecision(t *testing.T) {
	t.Parallel()
	t.Run("mean crosses the threshold", func(t *testing.T) { testDriftWithdraws(t, 0.5, StatusPass, true) })
	t.Run("mean still fails", func(t *testing.T) { testDriftWithdraws(t, 0.1, StatusFail, false) })
}

func testDriftWithdraws(t *testing.T, maxRate float64, first Status, withdrawn bool) {
	crit := replay.DefaultKillCriteria()
	crit.JudgeRequiredRateMax = maxRate
	g := NewSequentialGate(crit, "")
	add := func(sess string, called int) { addCalledSession(g, sess, called, "j1") }
	g.BeginRun("run1")
	for i := range 60 {
		add(fmt.Sprintf("a%d", i), 1) // a quarter of the cases need the judge
	}
	g.EndRun()
	c := seqCrit(t, g.Result(), "j1", AllRules, CriterionJudgeRequiredRateMax)
	if c.Status != first || c.Withdrawn != "" || c.DecidedAfter == nil {
		t.Fatalf("precondition: 60 sessions at 0.25 decide %s against a maximum of %g without drift, got %s (withdrawn %q): %s", first, maxRate, c.Status, c.Withdrawn, c.Reason)
	}
	g.BeginRun("run2")
	for i := range 40 {
		add(fmt.Sprintf("b%d", i), 4) // every case does
	}
	g.EndRun()
	res := g.Result()
	c = seqCrit(t, res, "j1", AllRules, CriterionJudgeRequiredRateMax)
	if !c.drift {
		t.Fatalf("precondition: the second run's sessions should show drift: %s", c.Reason)
	}
	if !withdrawn {
		if c.Status != first || c.Withdrawn != "" {
			t.Errorf("a %s the drifted mean (%v) still agrees with is withdrawn: %s (withdrawn %q): %s", first, *c.Estimate, c.Status, c.Withdrawn, c.Reason)
		}
		return
	}
	if c.Status != StatusInconclusive || c.Withdrawn != first || c.DecidedAfter == nil ||
		!strings.HasPrefix(c.Reason, "withdrawn: was "+string(first)+" after ") {
		t.Errorf("a decision the later sessions contradict is kept: %s (withdrawn %q): %s", c.Status, c.Withdrawn, c.Reason)
	}
	for _, j := range res.Judges {
		if j.PolicyVerdict != VerdictInconclusive {
			t.Errorf("%s: policy verdict %s, want INCONCLUSIVE once its %s is withdrawn", j.Judge, j.PolicyVerdict, first)
		}
	}
}

// TestSequentialMeanOutsideSaidApart: 60 sessions where a quarter of the
// cases need the judge, then 40 where half do: the sequence's running
// intersection, narrowed by the first 60, no longer holds the mean of
// all 100 (0.35 beside [0.288, 0.3085]); the two are said as what they are, not as an estimate
// and its interval (on the sample the policy row read "0.2139 [0.0985,
// 0.1365]").
func TestSequentialMeanOutsideSaidApart(t *testing.T) {
	t.Parallel()
	g := twoRunGate(60, 1, 40, 2)
	c := seqCrit(t, g.Result(), "j1", AllRules, CriterionJudgeRequiredRateMax)
	if *c.Lo == *c.Hi || *c.Estimate >= *c.Lo && *c.Estimate <= *c.Hi {
		t.Fatalf("precondition: the mean %v outside a non-empty interval [%v, %v]", *c.Estimate, *c.Lo, *c.Hi)
	}
	want := fmt.Sprintf("judge-required rate: the sessions' mean %s over 100 sessions (400 units) lies outside the 95%% confidence sequence [%s, %s], the running intersection of its intervals", fmtF(*c.Estimate), fmtF(*c.Lo), fmtF(*c.Hi))
	if !c.Outside || !strings.Contains(c.Reason, want) {
		t.Errorf("mean %v beside [%v, %v] (outside %v): %s\nwant %q", *c.Estimate, *c.Lo, *c.Hi, c.Outside, c.Reason, want)
	}
}

// TestSequentialDriftWarningSaysWhich: the two signs of drift are said
// each as what happened. A mean outside a non-empty interval warns that
// it lies outside; sessions that excluded every rate (the interval is
// then the mean itself) warn that no interval is left, not that the mean
// lies outside it (it said "the mean … lies outside the sequence's
// interval" for both), and the reason and the JSON say the same: no
// "[m, m]" printed as an interval.
func TestSequentialDriftWarningSaysWhich(t *testing.T) {
	t.Parallel()
	warningOf := func(res *SequentialResult) string {
		t.Helper()
		for _, w := range res.Warnings {
			if rest, ok := strings.CutPrefix(w, "(policy), all rules, "+CriterionJudgeRequiredRateMax+": "); ok {
				return rest
			}
		}
		t.Fatalf("no judge-required warning in %q", res.Warnings)
		return ""
	}
	// Outside: 60 sessions at a quarter, then 40 at a half.
	g := twoRunGate(60, 1, 40, 2)
	res := g.Result()
	c := seqCrit(t, res, "j1", AllRules, CriterionJudgeRequiredRateMax)
	if w := warningOf(res); !c.Outside || c.Excluded || w != driftOutside {
		t.Errorf("mean outside [%v, %v] (outside %v, excluded %v) warns %q", *c.Lo, *c.Hi, c.Outside, c.Excluded, w)
	}
	// Every rate excluded: 40 sessions that all needed the judge, then
	// 120 that needed none.
	res = twoRunGate(40, 4, 120, 0).Result()
	c = seqCrit(t, res, "j1", AllRules, CriterionJudgeRequiredRateMax)
	w := warningOf(res)
	if *c.Lo != *c.Hi || !c.Excluded || c.Outside || w != driftExcluded || strings.Contains(w, "lies outside") {
		t.Errorf("every rate excluded, [%v, %v] (outside %v, excluded %v), warns %q", *c.Lo, *c.Hi, c.Outside, c.Excluded, w)
	}
	if strings.Contains(c.Reason, "lies outside") || strings.Contains(c.Reason, fmt.Sprintf("[%s, %s]", fmtF(*c.Lo), fmtF(*c.Hi))) ||
		!strings.Contains(c.Reason, "no rate left in the 95% confidence sequence") || !strings.Contains(c.Reason, driftTail) {
		t.Errorf("every rate excluded, the reason: %s", c.Reason)
	}
}

// twoRunGate is judge j1's gate over two runs: n1 sessions of 4 cases
// of which called1 needed the judge, then n2 of which called2 did.
func twoRunGate(n1, called1, n2, called2 int) *SequentialGate {
	g := NewSequentialGate(replay.DefaultKillCriteria(), "")
	g.BeginRun("run1")
	for i := range n1 {
		addCalledSession(g, fmt.Sprintf("a%d", i), called1, "j1")
	}
	g.EndRun()
	g.BeginRun("run2")
	for i := range n2 {
		addCalledSession(g, fmt.Sprintf("b%d", i), called2, "j1")
	}
	g.EndRun()
	return g
}

// addCalledSession adds a session of 4 cases of rule r, each judge's,
// whose first called cases needed the judge.
func addCalledSession(g *SequentialGate, sess string, called int, judges ...string) {
	for _, j := range judges {
		for i := range 4 {
			r := seqCase(j, sess, fmt.Sprintf("%s-%d", sess, i), "r", core.NoMatch, datasets.LabelNoMatch)
			r.JudgeCalled = i < called
			g.Add(r)
		}
	}
}

// seqGainRun feeds one replicate of looks runs to a SequentialGate whose
// one dangerous rule is caught by the judge and by its deterministic
// baseline as the recall guess g draws them (RecallGuess.draw: `apeval
// plan`'s model, sessions of 1 + Poisson(size − 1) positives, the cells'
// probabilities Dirichlet around the guess's at its ICC): each run brings
// fresh new sessions and repeats again earlier ones with fresh outcomes
// (left out). It returns the gain's first decision and the sessions it
// took.
func seqGainRun(rng *rand.Rand, g RecallGuess, fresh, again, looks int) (Status, int) {
	gate := NewSequentialGate(replay.DefaultKillCriteria(), "")
	next := 0
	session := func(id int) {
		s := g.draw(rng)
		sess := fmt.Sprintf("s%d", id)
		both, judge, base := s.y12, s.y1-s.y12, s.y2-s.y12
		for i := range s.m {
			res, bas := core.NoMatch, core.NoMatch
			switch {
			case i < both:
				res, bas = core.Match, core.Match
			case i < both+judge:
				res = core.Match
			case i < both+judge+base:
				bas = core.Match
			}
			gate.Add(&replay.Result{Judge: "j", SessionID: sess, CaseID: fmt.Sprintf("%s-%d", sess, i), Rules: []replay.RuleResult{{
				RuleID: "r", Class: replay.ClassDangerous, Source: replay.SourceDeterministic, Result: res, BaselineResult: bas,
				Label: datasets.LabelMatch, Status: core.StatusOK, Call: -1}}})
		}
	}
	for look := range looks {
		gate.BeginRun(fmt.Sprintf("run%d", look+1))
		if next > 0 {
			for range again {
				session(rng.IntN(next))
			}
		}
		for range fresh {
			session(next)
			next++
		}
		gate.EndRun()
		if d := gate.judges["j"].rows["r"].dec[seqGain]; d != nil {
			return d.status, d.sessions
		}
	}
	return StatusInconclusive, 0
}

// TestCalibrationSequentialGain: the recall gain's lane over 20 runs
// through the gate's own path. At a gain of exactly 0 (judge and
// baseline both at recall 0.80) a PASS and a FAIL are each wrong at most
// 5 % of the time (the one-sided rule: each bound is its own one-sided
// sequence at α); a judge 0.05 or 0.10 better PASSes, the median sessions
// it took reported beside `apeval plan`'s fixed n for the same guess.
func TestCalibrationSequentialGain(t *testing.T) {
	t.Parallel()
	n, full := calibrationN()
	slack := 0.0
	if !full {
		n = 40
		slack = smokeSlack(0.05, n)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| gate --sequential, recall gain, %d replicates, 20 runs of 10 new + 5 repeated sessions | PASS (goal ≤ 0.05) | FAIL (goal ≤ 0.05) |\n|---|---|---|\n", n)
	for i, icc := range []float64{0.1, 0.3} {
		g := RecallGuess{Recall: 0.8, BaselineRecall: 0.8, ICC: icc, SessionSize: 5}
		rng := rand.New(rand.NewPCG(uint64(i+31), 0x9a1))
		pass, fail := 0, 0
		for range n {
			switch st, _ := seqGainRun(rng, g, 10, 5, 20); st {
			case StatusPass:
				pass++
			case StatusFail:
				fail++
			}
		}
		p, f := float64(pass)/float64(n), float64(fail)/float64(n)
		fmt.Fprintf(&b, "| gain 0 (recall 0.80 vs 0.80), sessions of 5 positives, ICC %g | %.3f | %.3f |\n", icc, p, f)
		if p > 0.05+slack || f > 0.05+slack {
			t.Errorf("gain 0, ICC %g: PASS %.3f, FAIL %.3f over %d", icc, p, f, n)
		}
	}
	fmt.Fprintf(&b, "\n| better judge, sessions of 5 positives, ICC 0.1, 10 new + 5 repeated a run | PASS within 80 runs (800 sessions) | median sessions to PASS | fixed n, 80 %% chance (plan) |\n|---|---|---|---|\n")
	for i, rec := range []float64{0.85, 0.9} {
		if !full && rec < 0.9 {
			continue // the smoke keeps to the faster judge (a median of about 60 sessions, not 270)
		}
		g := RecallGuess{Recall: rec, BaselineRecall: 0.8, ICC: 0.1, SessionSize: 5}
		rng := rand.New(rand.NewPCG(uint64(i+41), 0x9a1))
		// Sessions to PASS, a replicate not passing within 80 runs past
		// every one that did: the median is of all replicates.
		sessions := make([]float64, n)
		passed := 0
		for r := range n {
			sessions[r] = math.Inf(1)
			if st, k := seqGainRun(rng, g, 10, 5, 80); st == StatusPass {
				sessions[r] = float64(k)
				passed++
			}
		}
		plan := "not run (smoke)"
		if full {
			ps, err := Plan(replay.DefaultKillCriteria(), PlanGuesses{Recall: &g, ICC: g.ICC, SessionSize: g.SessionSize}, PlanOptions{Reps: 200, Seed: 3})
			if err != nil || len(ps) != 1 || ps[0].Sessions == nil {
				t.Fatalf("plan %+v %v", ps, err)
			}
			plan = fmt.Sprint(*ps[0].Sessions)
		}
		fmt.Fprintf(&b, "| recall %.2f vs 0.80 (gain %.2f) | %.3f | %.0f | %s |\n", rec, rec-0.8, float64(passed)/float64(n), median(sessions), plan)
		if passed < n/2 {
			t.Errorf("recall %.2f vs 0.80: passed only %d of %d times", rec, passed, n)
		}
	}
	t.Log("\n" + b.String())
}

// TestSequentialGainIsOneSided: the recall gain's lane decides on its
// one-sided bounds, as the fixed-n path: 40 sessions of 4 positives, in
// each the judge alone catching 2 and the baseline alone 1 (a gain of
// 0.25 a session, +1 in a quarter of them), PASS once the lower bound of
// the one-sided pair clears 0 — after exactly as many sessions as the
// one-sided sequence alone needs on the same values, fewer than the
// hedged two-sided sequence (α/2 a side) needs; the reason and `bounds`
// say the bounds are one-sided.
func TestSequentialGainIsOneSided(t *testing.T) {
	t.Parallel()
	g := NewSequentialGate(replay.DefaultKillCriteria(), "")
	g.BeginRun("a")
	var xs []float64
	for s := range 60 {
		sess := fmt.Sprintf("s%d", s)
		pattern := [][2]core.Result{{core.Match, core.NoMatch}, {core.Match, core.NoMatch}, {core.NoMatch, core.Match}, {core.NoMatch, core.NoMatch}}
		if s%4 == 0 {
			pattern[2] = [2]core.Result{core.Match, core.NoMatch} // gain 0.75 in a quarter
		}
		gain := 0.0
		for i, p := range pattern {
			g.Add(&replay.Result{Judge: "j", SessionID: sess, CaseID: fmt.Sprintf("%s-%d", sess, i), Rules: []replay.RuleResult{{
				RuleID: "r", Class: replay.ClassDangerous, Source: replay.SourceDeterministic, Result: p[0], BaselineResult: p[1],
				Label: datasets.LabelMatch, Status: core.StatusOK, Call: -1}}})
			if p[0] == core.Match {
				gain++
			}
			if p[1] == core.Match {
				gain--
			}
		}
		xs = append(xs, (gain/4+1)/2)
	}
	g.EndRun()
	// The sessions enter in the order of their hashed IDs: the references
	// take the values in that order too.
	keys := make([]string, 60)
	for s := range keys {
		keys[s] = fmt.Sprintf("s:s%d", s)
	}
	idx := make([]int, 60)
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		ha, hb := sessionHash(keys[a]), sessionHash(keys[b])
		switch {
		case ha < hb:
			return -1
		case ha > hb:
			return 1
		}
		return strings.Compare(keys[a], keys[b])
	})
	first := func(cs *ConfidenceSequence) int {
		for i, k := range idx {
			cs.Add(xs[k])
			if lo, _ := cs.Interval(); i+1 >= MinSessions && 2*lo-1 > 0 {
				return i + 1
			}
		}
		return 0
	}
	one, two := first(NewOneSidedSequence(0.05)), first(NewConfidenceSequence(0.05))
	if one == 0 || (two != 0 && two <= one) {
		t.Fatalf("references: one-sided decides after %d, two-sided after %d sessions: the test needs the one-sided to decide first", one, two)
	}
	c := seqCrit(t, g.Result(), "j", "r", CriterionDangerousRecall)
	if c.Status != StatusPass || c.DecidedAfter == nil || *c.DecidedAfter != one {
		t.Errorf("gain %+v: want PASS after %d sessions (the two-sided sequence: %d)", c, one, two)
	}
	if c.Bounds != "one-sided 95% bounds" || !strings.Contains(c.Reason, "one-sided 95% bounds") {
		t.Errorf("bounds %q, reason %q", c.Bounds, c.Reason)
	}
}

// TestSeqKeyHashAndOrder: a session key's hash and order are those of its
// written form ("s:" + session ID, "c:" + case ID), which fix the order
// a run's sessions enter the sequences.
func TestSeqKeyHashAndOrder(t *testing.T) {
	keys := []seqKey{{id: ""}, {id: "", byCase: true}, {id: "s1"}, {id: "s1", byCase: true}, {id: "c:s1"}, {id: "ümlaut-会话"}, {id: "a b\x00c", byCase: true}, {id: "s10"}, {id: "s2"}}
	for _, k := range keys {
		if got, want := k.hash(), sessionHash(k.String()); got != want {
			t.Errorf("%q: hash %x, sessionHash %x", k.String(), got, want)
		}
		for _, o := range keys {
			if got, want := k.compare(o), strings.Compare(k.String(), o.String()); got != want {
				t.Errorf("compare(%q, %q) = %d, want %d", k.String(), o.String(), got, want)
			}
		}
	}
}

package simulate

import (
	"fmt"
	"testing"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/replay"
)

// missedData is a run whose judge missed every labeled positive of rule
// del: sessions sessions of perSession positives each.
func missedData(t *testing.T, sessions, perSession int) *Data {
	t.Helper()
	p, err := replay.ParsePolicy([]byte(testPolicy), "policy.toml")
	if err != nil {
		t.Fatal(err)
	}
	d := NewData(p, []Judge{{ID: "A"}})
	t.Cleanup(func() { _ = d.Close() })
	for s := range sessions {
		for i := range perSession {
			lat := 100.0
			r := &replay.Result{CaseID: fmt.Sprintf("c%d-%d", s, i), SessionID: fmt.Sprintf("s%d", s), Judge: "A", JudgeCalled: true, LatencyMS: &lat,
				Calls: []replay.Call{{Rules: 1, Status: judge.StatusOK, LatencyMS: lat}},
				Rules: []replay.RuleResult{{RuleID: "del", Class: replay.ClassDangerous, Label: datasets.LabelMatch, Source: replay.SourceJudge,
					Result: judge.NoMatch, Action: datasets.ActionDenyCurrentTool, Status: judge.StatusOK}}}
			if err := d.Add(r); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := d.Done(); err != nil {
		t.Fatal(err)
	}
	return d
}

// effective_recall_min on labeled positives in 1-2 sessions said FAIL
// (and simulate exited 1) on a real import of two sessions, while every
// other session-clustered criterion there is INCONCLUSIVE by the verdict's
// rule (metrics.MinSessions). From 3 sessions, and where every session
// holds one positive (independent units), it is decided as before.
func TestEffectiveRecallFewSessions(t *testing.T) {
	min := 0.8
	for _, c := range []struct {
		sessions, per int
		want          metrics.Status
	}{
		{2, 8, metrics.StatusInconclusive},
		{1, 12, metrics.StatusInconclusive},
		{3, 8, metrics.StatusFail},
		{2, 1, metrics.StatusFail}, // one positive per session: independent units, exempt
	} {
		d := missedData(t, c.sessions, c.per)
		cfgs, err := Expand(d, Spec{})
		if err != nil {
			t.Fatal(err)
		}
		res := Run(d, cfgs, Options{Confidence: 0.95, Seed: 1, EffectiveRecallMin: &min})
		r := find(t, res, res.Rows[0].Config, "*")
		if r.EffectiveRecallHi == nil || *r.EffectiveRecallHi >= min && c.want == metrics.StatusFail {
			t.Fatalf("%d×%d: effective recall interval %v–%v does not lie below %g: the case tests nothing", c.sessions, c.per, r.EffectiveRecallLo, r.EffectiveRecallHi, min)
		}
		if r.EffectiveRecallStatus != string(c.want) {
			t.Errorf("%d sessions × %d positives: effective_recall_min %s, want %s (interval [%g, %g])", c.sessions, c.per, r.EffectiveRecallStatus, c.want, *r.EffectiveRecallLo, *r.EffectiveRecallHi)
		}
	}
}

// effective_recall_min and the operating points' precision_min are decided
// by the verdict's one rule (metrics.AtLeast), not a copy of it: a copy
// PASSed an interval whose lower bound sat exactly on the minimum, which
// the verdict leaves INCONCLUSIVE (a bound on the threshold does not lie
// above it).
func TestSimulateDecidesByTheVerdictRule(t *testing.T) {
	t.Parallel()
	f := func(v float64) *float64 { return &v }
	for _, tc := range []struct {
		est, lo, hi, min, sessions float64
	}{
		{0.9, 0.8, 0.95, 0.8, 10},  // lower bound on the minimum
		{0.9, 0.85, 0.95, 0.8, 10}, // above it
		{0.7, 0.6, 0.79, 0.8, 10},  // below it
		{0.7, 0.6, 0.8, 0.8, 10},   // upper bound on the minimum
		{0.9, 0.85, 0.95, 0.8, 2},  // two sessions
		{0.9, 0.85, 0.95, 0.8, 0},  // independent units
	} {
		want := metrics.AtLeast.Decide(tc.min, metrics.Evidence{Estimate: tc.est, Lo: tc.lo, Hi: tc.hi, Sessions: tc.sessions})
		if got := status(f(tc.est), f(tc.lo), f(tc.hi), tc.min, tc.sessions); got != string(want.Status) {
			t.Errorf("%+v: status %s, the verdict's rule %s", tc, got, want.Status)
		}
		if got := clears(tc.lo, tc.min); got != metrics.AtLeast.Clears(tc.min, tc.lo, tc.hi) {
			t.Errorf("%+v: clears %v", tc, got)
		}
	}
}

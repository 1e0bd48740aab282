package metrics_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/replay"
)

// vote is "m@0" (match at position 0 of 3), "n@2", or "timeout".
func vote(s string) replay.RepeatVote {
	if s == "timeout" {
		return replay.RepeatVote{Status: judge.StatusTimeout, Pos: 1, Of: 3}
	}
	v := replay.RepeatVote{Result: judge.Match, Status: judge.StatusOK, Of: 3}
	if s[0] == 'n' {
		v.Result = judge.NoMatch
	}
	fmt.Sscanf(s[2:], "%d", &v.Pos)
	return v
}

// Flip rate and position effect against hand-computed values.
func TestRepeatFigures(t *testing.T) {
	t.Parallel()
	a := metrics.New(metrics.Config{Criteria: replay.DefaultKillCriteria()})
	for i, vs := range [][]string{
		{"m@0", "m@1", "m@2"},     // s1: steady; first 1/1 match, last 1/1
		{"m@0", "n@2", "m@1"},     // s2: flips; first 1/1, last 0/1
		{"n@2", "n@2", "n@0"},     // s3: steady; first 0/1, last 0/2
		{"m@0", "timeout", "n@2"}, // s4: two answers, flips; first 1/1, last 0/1
	} {
		rr := replay.RuleResult{RuleID: "r", Class: "approval", Source: "judge", Result: judge.Match, Status: "ok", Call: 0, Label: "match"}
		for _, s := range vs {
			rr.Repeats = append(rr.Repeats, vote(s))
		}
		a.Add(&replay.Result{CaseID: fmt.Sprint("c", i), SessionID: fmt.Sprint("s", i), Judge: "openai/m", JudgeCalled: true,
			Calls: []replay.Call{{Rules: 1, Status: "ok", LatencyMS: 1}}, Rules: []replay.RuleResult{rr}})
	}
	s := a.Close()
	r := s.Judge("openai/m").Rule("r")
	z := 1.959963984540054
	near := func(name string, got *float64, want float64) {
		t.Helper()
		if got == nil || math.Abs(*got-want) > 1e-9 {
			t.Errorf("%s = %v, want %.12f", name, got, want)
		}
	}
	// Flip: 2 of 4 pairs, one per session: plain Wilson.
	if r.FlipPairs != 4 || r.Flips != 2 {
		t.Fatalf("flips %d of %d", r.Flips, r.FlipPairs)
	}
	lo, hi := metrics.Wilson(2, 4, z)
	near("flip_rate", r.FlipRate, 0.5)
	near("flip_rate_lo", r.FlipRateLo, lo)
	near("flip_rate_hi", r.FlipRateHi, hi)
	// Position: first 3/4, one answer per session: plain Wilson; last 1/5
	// with sessions (1,1), (0,1), (0,2), (0,1): the clustered interval.
	if r.PositionFirst != 4 || r.PositionFirstMatch != 3 || r.PositionLast != 5 || r.PositionLastMatch != 1 {
		t.Fatalf("positions %+v", r)
	}
	l1, u1 := metrics.Wilson(3, 4, z)
	l2, u2, _ := metrics.ClusteredInterval([]int64{1, 0, 0, 0}, []int64{1, 1, 2, 1}, 0.95)
	if l2c, u2c := metrics.Wilson(1, 5, z); u2 <= u2c-1e-9 && l2 >= l2c+1e-9 {
		t.Errorf("last-position interval [%g, %g] narrower than plain Wilson [%g, %g] although a session holds two answers", l2, u2, l2c, u2c)
	}
	near("position_effect", r.PositionEffect, 0.55)
	near("position_effect_lo", r.PositionEffectLo, 0.55-math.Sqrt((0.75-l1)*(0.75-l1)+(u2-0.2)*(u2-0.2)))
	near("position_effect_hi", r.PositionEffectHi, 0.55+math.Sqrt((u1-0.75)*(u1-0.75)+(0.2-l2)*(0.2-l2)))
	// The total row holds the same units (one rule).
	near("total flip_rate", s.Judge("openai/m").Total.FlipRate, 0.5)
}

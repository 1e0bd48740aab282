package metrics

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/replay"
)

// mapRepeats is the repeat figures' former accumulation, one map entry
// per session kept to the end (session → flip units, flips, first
// answers, first matches, last answers, last matches): the reference the
// bounded per-session sums must equal bit for bit.
type mapRepeats map[string]*[6]int64

func (m mapRepeats) add(sess string, rr *replay.RuleResult) {
	c := m[sess]
	if c == nil {
		c = new([6]int64)
		m[sess] = c
	}
	if unit, flipped := rr.Flip(); unit {
		c[0]++
		if flipped {
			c[1]++
		}
	}
	for _, v := range rr.Repeats {
		if !v.Answered() || v.Of < 2 || (v.Pos != 0 && v.Pos != v.Of-1) {
			continue
		}
		k := 2
		if v.Pos == v.Of-1 {
			k = 4
		}
		c[k]++
		if v.Result == judge.Match {
			c[k+1]++
		}
	}
}

// lane lists the sessions' successes and units of lane units/succ, in
// session order, leaving out sessions without units.
func (m mapRepeats) lane(units, succ int) (ys, ms []int64) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if a := m[k]; a[units] > 0 {
			ms, ys = append(ms, a[units]), append(ys, a[succ])
		}
	}
	return ys, ms
}

// fill is the former repeatAcc.fill.
func (m mapRepeats) fill(r *Row, conf float64) {
	sum := func(xs []int64) (t int64) {
		for _, x := range xs {
			t += x
		}
		return t
	}
	ys, ms := m.lane(0, 1)
	r.FlipPairs, r.Flips = sum(ms), sum(ys)
	if r.FlipPairs > 0 {
		lo, hi, d := ClusteredInterval(ys, ms, conf)
		r.FlipRate = ratio(r.Flips, r.FlipPairs)
		r.FlipRateLo, r.FlipRateHi, r.FlipRateDeff = ptr(lo), ptr(hi), ptr(d)
	}
	y1, m1 := m.lane(2, 3)
	y2, m2 := m.lane(4, 5)
	r.PositionFirst, r.PositionFirstMatch = sum(m1), sum(y1)
	r.PositionLast, r.PositionLastMatch = sum(m2), sum(y2)
	if r.PositionFirst > 0 && r.PositionLast > 0 {
		p1 := float64(r.PositionFirstMatch) / float64(r.PositionFirst)
		p2 := float64(r.PositionLastMatch) / float64(r.PositionLast)
		l1, u1, _ := ClusteredInterval(y1, m1, conf)
		l2, u2, _ := ClusteredInterval(y2, m2, conf)
		lo, hi := NewcombeDiff(p1, l1, u1, p2, l2, u2)
		r.PositionEffect, r.PositionEffectLo, r.PositionEffectHi = ptr(p1-p2), ptr(lo), ptr(hi)
	}
}

// repeatFigures is a row's repeat figures, printed exactly.
func repeatFigures(r *Row) string {
	f := func(p *float64) string {
		if p == nil {
			return "nil"
		}
		return fmt.Sprintf("%x", *p)
	}
	return fmt.Sprintf("flip %d/%d rate %s [%s, %s] deff %s; first %d/%d last %d/%d effect %s [%s, %s]",
		r.Flips, r.FlipPairs, f(r.FlipRate), f(r.FlipRateLo), f(r.FlipRateHi), f(r.FlipRateDeff),
		r.PositionFirstMatch, r.PositionFirst, r.PositionLastMatch, r.PositionLast,
		f(r.PositionEffect), f(r.PositionEffectLo), f(r.PositionEffectHi))
}

// repeatResults are n cases over about n/3 sessions in time order
// (interleaved), a few without a session, two rules with random repeats
// and positions; one pair has more answers in one position than a record
// holds.
func repeatResults(seed uint64, n int) []*replay.Result {
	rng := rand.New(rand.NewPCG(seed, 7))
	out := make([]*replay.Result, 0, n)
	for i := range n {
		sess := fmt.Sprintf("s%05d", rng.IntN(n/3+1))
		if rng.IntN(20) == 0 {
			sess = ""
		}
		r := &replay.Result{CaseID: fmt.Sprintf("c%06d", i), SessionID: sess, Judge: "openai/m", JudgeCalled: true,
			Calls: []replay.Call{{Rules: 2, Status: "ok", LatencyMS: 1}}}
		for _, id := range []string{"a", "b"} {
			rr := replay.RuleResult{RuleID: id, Class: "approval", Source: "judge", Result: judge.Match, Status: "ok", Call: 0, Label: "match"}
			k := rng.IntN(5)
			if i == n/2 {
				k = 800
			}
			for range k {
				v := replay.RepeatVote{Result: judge.Match, Status: judge.StatusOK, Of: 1 + rng.IntN(3)}
				v.Pos = rng.IntN(v.Of)
				if i == n/2 {
					v.Of, v.Pos = 2, 1
				}
				switch rng.IntN(4) {
				case 0:
					v.Result = judge.NoMatch
				case 1:
					v.Result, v.Status = "", judge.StatusTimeout
				}
				rr.Repeats = append(rr.Repeats, v)
			}
			r.Rules = append(r.Rules, rr)
		}
		out = append(out, r)
	}
	return out
}

// TestRepeatSumsPaths: the flip and position figures summed per session by
// the bounded per-session sums equal, bit for bit, what one map entry per
// session kept to the end gave, whether the sessions are contiguous or
// scattered, summed in a window or spilled (a window of 7 sessions, a
// spill budget of 256 records). Not parallel: it sets sumsWindow.
func TestRepeatSumsPaths(t *testing.T) {
	defer func(n int) { sumsWindow = n }(sumsWindow)
	for seed := range uint64(3) {
		scattered := repeatResults(seed, 3000)
		want := map[string]mapRepeats{"a": {}, "b": {}, AllRules: {}}
		for _, r := range scattered {
			sess := r.SessionID
			if sess == "" {
				sess = "\x00" + r.CaseID
			}
			for i := range r.Rules {
				want[r.Rules[i].RuleID].add(sess, &r.Rules[i])
				want[AllRules].add(sess, &r.Rules[i])
			}
		}
		for name, results := range map[string][]*replay.Result{"scattered": scattered, "grouped": contiguous(scattered)} {
			for _, window := range []int{1 << 17, 7} {
				sumsWindow = window
				a := New(Config{Criteria: replay.DefaultKillCriteria(), SpillBudget: 256 * 16, SpillDir: t.TempDir()})
				for _, r := range results {
					a.Add(r)
				}
				if a.contig != (name == "grouped") {
					t.Fatalf("%s: contiguity found %v", name, a.contig)
				}
				s := a.Close()
				js := s.Judge("openai/m")
				for id, m := range want {
					got := js.Total
					if id != AllRules {
						got = js.Rule(id)
					}
					var ref Row
					m.fill(&ref, s.conf)
					if g, w := repeatFigures(got), repeatFigures(&ref); g != w {
						t.Errorf("seed %d, %s, window %d, rule %s:\n got %s\nwant %s", seed, name, window, id, g, w)
					}
				}
				if n, _ := s.pool.Spilled(); window == 7 && n == 0 {
					t.Errorf("seed %d, %s: nothing spilled with a budget of 256 records", seed, name)
				}
				if err := s.Release(); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

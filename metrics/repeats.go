package metrics

import (
	"math"
	"slices"

	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/replay"
)

// repeatAcc accumulates a judge × rule's (or a judge's) repeat figures
// per session, for their session-clustered intervals: flip_rate over the
// pairs whose repeats answered at least twice, and position_effect over
// the answers given in first and in last position of a call of two or
// more rules (see docs/statistics.md, "Repeats and rule order"). It holds
// one small entry per session that had repeats, only in runs with
// --repeat or --shuffle-rules.
type repeatAcc struct {
	flip map[uint32]*[4]int64 // session → flip units, flips (two lanes unused)
	pos  map[uint32]*[4]int64 // session → first answers, first matches, last answers, last matches
}

// add counts one pair's repeats.
func (ra *repeatAcc) add(sess uint32, rr *replay.RuleResult) {
	if len(rr.Repeats) == 0 {
		return
	}
	if unit, flipped := rr.Flip(); unit {
		if ra.flip == nil {
			ra.flip = map[uint32]*[4]int64{}
		}
		c := ra.flip[sess]
		if c == nil {
			c = new([4]int64)
			ra.flip[sess] = c
		}
		c[0]++
		if flipped {
			c[1]++
		}
	}
	for _, v := range rr.Repeats {
		if !v.Answered() || v.Of < 2 || (v.Pos != 0 && v.Pos != v.Of-1) {
			continue
		}
		if ra.pos == nil {
			ra.pos = map[uint32]*[4]int64{}
		}
		c := ra.pos[sess]
		if c == nil {
			c = new([4]int64)
			ra.pos[sess] = c
		}
		k := 0
		if v.Pos == v.Of-1 {
			k = 2
		}
		c[k]++
		if v.Result == judge.Match {
			c[k+1]++
		}
	}
}

// sessionSums lists per session (in session order, so the result cannot
// depend on map order) the successes and units of lane k/k+1 of m.
func sessionSums(m map[uint32]*[4]int64, units, succ int) (ys, ms []int64) {
	keys := make([]uint32, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		a := m[k]
		if a[units] > 0 {
			ms = append(ms, a[units])
			ys = append(ys, a[succ])
		}
	}
	return ys, ms
}

func sum(xs []int64) int64 {
	var t int64
	for _, x := range xs {
		t += x
	}
	return t
}

// fill sets the row's flip and position figures, their intervals at conf
// by ClusteredInterval (sessions as clusters).
func (ra *repeatAcc) fill(r *Row, conf float64) {
	if len(ra.flip) > 0 {
		ys, ms := sessionSums(ra.flip, 0, 1)
		r.FlipPairs, r.Flips = sum(ms), sum(ys)
		if r.FlipPairs > 0 {
			lo, hi, d := ClusteredInterval(ys, ms, conf)
			r.FlipRate = ratio(r.Flips, r.FlipPairs)
			r.FlipRateLo, r.FlipRateHi, r.FlipRateDeff = ptr(lo), ptr(hi), ptr(d)
		}
	}
	if len(ra.pos) > 0 {
		y1, m1 := sessionSums(ra.pos, 0, 1)
		y2, m2 := sessionSums(ra.pos, 2, 3)
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
}

// NewcombeDiff is Newcombe's hybrid score interval (method 10) of the
// difference p1 − p2 of two proportions from their own intervals [l1, u1]
// and [l2, u2]:
//
//	lo = d − √((p1−l1)² + (u2−p2)²),  hi = d + √((u1−p1)² + (p2−l2)²)
//
// With clustered (design-effect) intervals for the two sides it is the
// clustered interval of the difference.
func NewcombeDiff(p1, l1, u1, p2, l2, u2 float64) (lo, hi float64) {
	d := p1 - p2
	lo = d - math.Sqrt((p1-l1)*(p1-l1)+(u2-p2)*(u2-p2))
	hi = d + math.Sqrt((u1-p1)*(u1-p1)+(p2-l2)*(p2-l2))
	return max(lo, -1), min(hi, 1)
}

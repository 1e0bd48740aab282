package metrics

import (
	"math"
	"slices"

	"github.com/apeval/apeval/internal/spill"
	"github.com/apeval/apeval/judge/core"
	"github.com/apeval/apeval/replay"
)

// repeatAcc accumulates a judge × rule's repeat figures, for their
// session-clustered intervals: flip_rate over the pairs whose repeats
// answered at least twice, and position_effect over the answers given in
// first and in last position of a call of two or more rules (see
// docs/statistics.md, "Repeats and rule order"). Each pair with repeats
// is one record in a spill list (only in runs with --repeat or
// --shuffle-rules): K = case ordinal<<ordShift | repFlipUnit, repFlipped;
// V = session | its first answers, first matches, last answers and last
// matches, 8 bits each from bit 32 (a pair with more is split over several
// records). Close sums them per session with the other figures' bounded
// per-session sums (laneSums), the judge's "*" row over all its rules'
// lists merged in case order.
type repeatAcc struct {
	list *spill.List
}

// Flags of a repeat record (repeatAcc).
const (
	repFlipUnit = 1 << iota // the pair's repeats answered at least twice
	repFlipped              // ... and not all the same
)

// repMax is the most of each position count one record holds.
const repMax = 1<<8 - 1

// add counts one pair's repeats.
func (ra *repeatAcc) add(pool *spill.Pool, ord, sess uint32, rr *replay.RuleResult) {
	if len(rr.Repeats) == 0 {
		return
	}
	var f uint64
	if unit, flipped := rr.Flip(); unit {
		f = repFlipUnit
		if flipped {
			f |= repFlipped
		}
	}
	var c [4]int64
	for _, v := range rr.Repeats {
		if !v.Answered() || v.Of < 2 || (v.Pos != 0 && v.Pos != v.Of-1) {
			continue
		}
		k := 0
		if v.Pos == v.Of-1 {
			k = 2
		}
		c[k]++
		if v.Result == core.Match {
			c[k+1]++
		}
	}
	if f == 0 && c == [4]int64{} {
		return
	}
	if ra.list == nil {
		ra.list = pool.NewList()
	}
	for {
		v := uint64(sess)
		var left bool
		for i := range c {
			n := min(c[i], repMax)
			v |= uint64(n) << (32 + 8*i)
			c[i] -= n
			left = left || c[i] > 0
		}
		ra.list.Append(spill.Rec{K: uint64(ord)<<ordShift | f, V: v})
		if !left {
			return
		}
		f = 0
	}
}

// The lanes of the repeat figures in a laneSums.
const (
	laneFlip = iota
	laneFirst
	laneLast
	repLanes
)

// fillRepeats sets the row's flip and position figures from the repeat
// lists (merged in case order), their intervals at conf by
// ClusteredInterval (sessions as clusters); ls is empty and has at least
// repLanes lanes, and is left empty.
func fillRepeats(r *Row, sm sessMap, ls *laneSums, conf float64, lists []*spill.List) {
	lists = slices.DeleteFunc(slices.Clone(lists), func(l *spill.List) bool { return l == nil })
	if len(lists) == 0 {
		return
	}
	eachMerged(lists, func(c []spill.Rec) {
		for _, p := range c {
			sess := sm.at(p.V & (1<<32 - 1))
			if p.K&repFlipUnit != 0 {
				ls.addN(sess, laneFlip, int64(p.K>>1&1), 1)
			}
			if n := p.V >> 32 & repMax; n > 0 {
				ls.addN(sess, laneFirst, int64(p.V>>40&repMax), int64(n))
			}
			if n := p.V >> 48 & repMax; n > 0 {
				ls.addN(sess, laneLast, int64(p.V>>56), int64(n))
			}
		}
	})
	ls.done()
	flip, first, last := ls.sumsOf(laneFlip), ls.sumsOf(laneFirst), ls.sumsOf(laneLast)
	ls.reset()
	r.FlipPairs, r.Flips = flip.m, flip.y
	if flip.m > 0 {
		lo, hi, _ := flip.post.interval(conf)
		r.FlipRate = ratio(r.Flips, r.FlipPairs)
		r.FlipRateLo, r.FlipRateHi, r.FlipRateDeff = ptr(lo), ptr(hi), dataDeff(flip.post)
	}
	r.PositionFirst, r.PositionFirstMatch = first.m, first.y
	r.PositionLast, r.PositionLastMatch = last.m, last.y
	if first.m > 0 && last.m > 0 {
		p1 := float64(first.y) / float64(first.m)
		p2 := float64(last.y) / float64(last.m)
		l1, u1, _ := first.post.interval(conf)
		l2, u2, _ := last.post.interval(conf)
		lo, hi := NewcombeDiff(p1, l1, u1, p2, l2, u2)
		r.PositionEffect, r.PositionEffectLo, r.PositionEffectHi = ptr(p1-p2), ptr(lo), ptr(hi)
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

package metrics

import (
	"github.com/apeval/apeval/internal/spill"
)

// sessScratch holds per-session units as lists, for clusteredOf (tests).
type sessScratch struct {
	ys, ms []int64
}

// clustered is the interval of a clustered figure from a lane's
// sessions and its design effect (see ClusteredInterval), and the
// posterior kept for the "+N" hints. All nil without units.
type clustered struct {
	post         *bbPosterior
	lo, hi, deff *float64
}

func clusteredOf(o *sessScratch, z, conf float64) clustered {
	return clusteredFrom(newBBPosterior(o.ys, o.ms, 1), conf)
}

// clusteredFrom is the clustered figure of a lane's posterior (nil: no
// units): ClusteredInterval's interval, and its design effect only where
// the sessions show a spread to measure. With every session at one rate
// (no event at all, every unit an event, or one session) the interval is
// the beta-binomial's, as wide as the clustering the data cannot rule out,
// but its M ÷ n_eff ("deff 4.77" beside 5999/5999) would read as
// clustering the data show: deff is then nil, and tables print none
// (docs/statistics.md). Sessions of one unit each keep deff 1.
func clusteredFrom(p *bbPosterior, conf float64) clustered {
	if p == nil {
		return clustered{}
	}
	l, h, d := p.interval(conf)
	c := clustered{post: p, lo: ptr(l), hi: ptr(h), deff: ptr(d)}
	if !p.wilson && noSpread(p.pairs) {
		c.deff = nil
	}
	return c
}

// noSpread reports whether every session (y, m) has the same rate y/m.
func noSpread(pairs []ymf) bool {
	for _, x := range pairs[min(1, len(pairs)):] {
		if x.y*pairs[0].m != pairs[0].y*x.m {
			return false
		}
	}
	return true
}

// over adds, in one pass over the lists (merged in case order, so that a
// session's units come together when the run's sessions are contiguous),
// the units of the first lanes figures of ruleLanes (see there) each pair
// gives to their lanes, with disc the pair's discordance with the
// deterministic baseline (dangerous recall's test) to lane lanes, and with
// a row the pair's counts to it (Row.count); then it completes the pass.
// The figures are called by name, not through a table of functions: this
// loop runs once per rule and pair at the end of a run, on one core.
func (s *laneSums) over(sm sessMap, lanes int, disc bool, r *Row, lists ...*spill.List) {
	eachMerged(lists, func(c []spill.Rec) {
		for _, p := range c {
			sess, f := sm.at(p.V), p.K
			if r != nil {
				r.count(f)
			}
			if unit, ok := precUnit(f); unit {
				s.add(sess, lanePrec, ok)
			}
			if unit, ok := recUnit(f); unit {
				s.add(sess, laneRec, ok)
			}
			if unit, ok := unkUnit(f); unit {
				s.add(sess, laneUnk, ok)
			}
			if lanes > laneJR {
				if unit, ok := jrUnit(f); unit {
					s.add(sess, laneJR, ok)
				}
				if unit, ok := apprUnit(f); unit {
					s.add(sess, laneAppr, ok)
				}
			}
			if disc && f&bitBase != 0 {
				hit, base := f&bitMatch != 0, f&bitBaseHit != 0
				s.addDisc(sess, lanes, hit && !base, base && !hit)
			}
		}
	})
	s.done()
}

// The clustered figures of a rule row, in lane order: ruleLanes of them;
// the total row uses the first totalLanes.
const (
	lanePrec = iota
	laneRec
	laneUnk
	laneJR
	laneAppr
	ruleLanes
	totalLanes = laneJR
)

// The units and successes of each clustered figure (see docs/statistics.md).
func precUnit(f uint64) (bool, bool) { return f&bitMatch != 0 && f&(bitPos|bitNeg) != 0, f&bitPos != 0 }
func recUnit(f uint64) (bool, bool)  { return f&bitPos != 0, f&bitMatch != 0 }
func unkUnit(f uint64) (bool, bool)  { return f&bitJudged != 0, f&bitUndecided != 0 }
func jrUnit(f uint64) (bool, bool)   { return f&bitMissing == 0, f&bitJudged != 0 }
func apprUnit(f uint64) (bool, bool) { return f&bitApprOut != 0, f&bitApprRej != 0 }

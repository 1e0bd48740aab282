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
// units): ClusteredInterval's interval, and the design effect the
// sessions show (dataDeff). Sessions of one unit each keep deff 1.
func clusteredFrom(p *bbPosterior, conf float64) clustered {
	if p == nil {
		return clustered{}
	}
	l, h, d := p.interval(conf)
	c := clustered{post: p, lo: ptr(l), hi: ptr(h), deff: ptr(d)}
	if !p.wilson {
		c.deff = dataDeff(p)
	}
	return c
}

// dataDeff is the design effect the sessions show (docs/statistics.md):
// the sessions' (CR2) variance of the pooled rate R = Y/M over the
// binomial variance of as many independent units, M·v/(R(1−R)), at least
// 1 — the M ÷ n_eff of the ratio interval. It is not how much wider the
// interval is than Wilson's: with few sessions (or events in few) the
// interval is the beta-binomial's at a raised level, wider than this
// deff gives (its reason says by how much: intervalDeff), and printing
// that width as "deff" read 4.4–7.6 beside independent answers whose
// variance ratio was 0.3–1.1. nil where the sessions show no spread to
// measure: every session at one rate (no event at all, every unit an
// event, or one session of several units), where the beta-binomial
// interval allows for clustering the data cannot rule out, not
// clustering they show ("deff 4.77" beside 5999/5999).
func dataDeff(p *bbPosterior) *float64 {
	if p.wilson {
		return ptr(1.0)
	}
	f, ok := fitRatio(p.pairs)
	if !ok {
		return nil
	}
	r := f.Y / f.M
	return ptr(f.M / min(f.M, r*(1-r)/f.v)) // as ratioFit.interval's, to the bit
}

// intervalDeff is how much wider than Wilson's on the M units the
// interval of the posterior's data is, as a design effect (M ÷ the n at
// which Wilson's interval is as wide): the data's design effect where the
// ratio interval applies, more where the few-session (beta-binomial)
// interval widens it.
func intervalDeff(p *bbPosterior, conf float64) float64 {
	_, _, d := p.interval(conf)
	return d
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

package metrics

import (
	"github.com/apeval/apeval/internal/spill"
)

// sessScratch sums units per session ordinal without a map: y and m are
// indexed by session, touched lists the sessions in use so that reset and
// the sums cost the sessions touched, not all of them.
type sessScratch struct {
	y, m    []int32
	touched []uint32
	ys, ms  []int64 // compacted per touched session, for clusteredOf
}

func newSessScratch(sessions int) *sessScratch {
	return &sessScratch{y: make([]int32, sessions), m: make([]int32, sessions)}
}

// clustered is the interval of a clustered figure from a lane's
// sessions and its design effect (see ClusteredInterval), and the
// posterior kept for the "+N" hints. All nil without units.
type clustered struct {
	post         *bbPosterior
	lo, hi, deff *float64
}

func clusteredOf(o *sessScratch, z, conf float64) clustered {
	p := newBBPosterior(o.ys, o.ms, 1)
	if p == nil {
		return clustered{}
	}
	l, h, d := p.interval(conf)
	return clustered{post: p, lo: ptr(l), hi: ptr(h), deff: ptr(d)}
}

// over adds, in one pass over the lists, the units of the first lanes
// figures of ruleLanes (see there) each pair gives to their lanes, with
// disc the pair's discordance with the deterministic baseline (dangerous
// recall's test) to lane lanes, and with a row the pair's counts to it
// (Row.count). The figures are called by name, not through a table of
// functions: this loop runs once per rule and pair at the end of a run,
// on one core.
func (s *laneScratch) over(sm sessMap, lanes int, disc bool, r *Row, lists ...*spill.List) {
	for _, l := range lists {
		it := l.Iter()
		for c := it.Chunk(); len(c) > 0; c = it.Chunk() {
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
		}
	}
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

// laneScratch is sessScratch for several figures at once, so that one pass
// over a stream of pairs feeds them all: lane l of session i is at
// i*lanes+l. A session is listed in touched once, whatever lanes it uses;
// a session with no unit in a lane adds nothing to that lane's design
// effect or discordance, so the results equal one sessScratch per figure.
type laneScratch struct {
	lanes   int
	y, m    []int32
	mark    []bool
	touched []uint32
	one     sessScratch // compacts one lane for Deff and mcnemar
}

func newLaneScratch(sessions, lanes int) *laneScratch {
	return &laneScratch{lanes: lanes, y: make([]int32, sessions*lanes), m: make([]int32, sessions*lanes), mark: make([]bool, sessions)}
}

func (s *laneScratch) touch(sess uint32) int {
	if !s.mark[sess] {
		s.mark[sess] = true
		s.touched = append(s.touched, sess)
	}
	return int(sess) * s.lanes
}

// add adds one unit to a lane of a session, a success when ok.
func (s *laneScratch) add(sess uint32, lane int, ok bool) {
	i := s.touch(sess) + lane
	s.m[i]++
	if ok {
		s.y[i]++
	}
}

// addDisc is sessScratch.addDisc on a lane.
func (s *laneScratch) addDisc(sess uint32, lane int, bOnly, cOnly bool) {
	if bOnly == cOnly {
		return
	}
	i := s.touch(sess) + lane
	s.m[i]++
	if bOnly {
		s.y[i]++
	} else {
		s.y[i]--
	}
}

// load moves a lane into the single-figure scratch, in touched order.
func (s *laneScratch) load(lane int) *sessScratch {
	o := &s.one
	o.ys, o.ms = o.ys[:0], o.ms[:0]
	o.touched = o.touched[:0]
	for _, i := range s.touched {
		k := int(i)*s.lanes + lane
		if s.m[k] != 0 {
			o.ys = append(o.ys, int64(s.y[k]))
			o.ms = append(o.ms, int64(s.m[k]))
		}
	}
	return o
}

// clustered is the clustered interval of a lane.
func (s *laneScratch) clustered(lane int, z, conf float64) clustered {
	return clusteredOf(s.load(lane), z, conf)
}

// mcnemar is the discordance of a lane filled by addDisc.
func (s *laneScratch) mcnemar(lane int) mcnemar {
	o := s.load(lane)
	var m mcnemar
	for i, n := range o.ms {
		m.addSession(o.ys[i], n)
	}
	return m
}

// reset empties every lane.
func (s *laneScratch) reset() {
	for _, i := range s.touched {
		clear(s.y[int(i)*s.lanes : int(i+1)*s.lanes])
		clear(s.m[int(i)*s.lanes : int(i+1)*s.lanes])
		s.mark[i] = false
	}
	s.touched = s.touched[:0]
}

package metrics

import (
	"math/big"

	"github.com/apeval/apeval/internal/spill"
)

// Deff is the Kish design effect of a proportion whose units are grouped
// by session (see docs/statistics.md): ys[i] successes of ms[i] units in session i,
// over the sessions that hold at least one unit.
//
//	p̂ = Y/M, V_clu = k/(k−1) · Σ(y_i − p̂·m_i)² / M², V_bin = p̂(1−p̂)/M
//	deff = max(1, V_clu/V_bin)
//
// deff is 1 when k < 2, when p̂ is 0 or 1, and when every session holds
// exactly one unit: then the units are the sessions, there is no clustering
// to correct for, and the interval must be plain Wilson (see docs/statistics.md,
// "Choices and their reasons": the k/(k−1) factor alone would otherwise
// give M/(M−1)).
func Deff(ys, ms []int64) float64 {
	var Y, M int64
	k := 0
	for i := range ms {
		if ms[i] > 0 {
			Y += ys[i]
			M += ms[i]
			k++
		}
	}
	if k < 2 || int64(k) == M || Y == 0 || Y == M {
		return 1
	}
	// Σ(y_i − p̂m_i)² = (M²·Σy² − 2YM·Σym + Y²·Σm²)/M², summed in exact
	// integers: the result cannot depend on the order of the sessions.
	var syy, sym, smm big.Int
	var t big.Int
	for i := range ms {
		if ms[i] > 0 {
			y, m := big.NewInt(ys[i]), big.NewInt(ms[i])
			syy.Add(&syy, t.Mul(y, y))
			sym.Add(&sym, t.Mul(y, m))
			smm.Add(&smm, t.Mul(m, m))
		}
	}
	bY, bM := big.NewInt(Y), big.NewInt(M)
	var num, u big.Int
	num.Mul(u.Mul(bM, bM), &syy)
	num.Sub(&num, u.Mul(u.Mul(big.NewInt(2*Y), bM), &sym))
	num.Add(&num, u.Mul(u.Mul(bY, bY), &smm))
	fm := float64(M)
	nf, _ := new(big.Float).SetInt(&num).Float64()
	ss := nf / (fm * fm)
	p := float64(Y) / fm
	vclu := float64(k) / float64(k-1) * ss / (fm * fm)
	vbin := p * (1 - p) / fm
	return max(1, vclu/vbin)
}

// WilsonDeff is the Wilson interval of x/n at the effective sample size
// n/deff (see docs/statistics.md): the observed rate, fewer independent units.
func WilsonDeff(x, n int64, deff, z float64) (lo, hi float64) {
	if deff <= 1 {
		return Wilson(float64(x), float64(n), z)
	}
	ne := float64(n) / deff
	return Wilson(float64(x)/float64(n)*ne, ne, z)
}

// sessScratch sums units per session ordinal without a map: y and m are
// indexed by session, touched lists the sessions in use so that reset and
// the sums cost the sessions touched, not all of them.
type sessScratch struct {
	y, m    []int32
	touched []uint32
	ys, ms  []int64 // compacted per touched session, for Deff
}

func newSessScratch(sessions int) *sessScratch {
	return &sessScratch{y: make([]int32, sessions), m: make([]int32, sessions)}
}

// deffPtr is a design effect for a figure with units, nil without.
func deffPtr(d float64, n int64) *float64 {
	if n == 0 {
		return nil
	}
	return ptr(d)
}

// wilsonDeffPtr is WilsonDeff with nil bounds when n is 0.
func wilsonDeffPtr(x, n int64, deff, z float64) (lo, hi *float64) {
	if n == 0 {
		return nil, nil
	}
	l, h := WilsonDeff(x, n, deff, z)
	return ptr(l), ptr(h)
}

// deffOf is a row's design effect, 1 when it has none.
func deffOf(d *float64) float64 {
	if d == nil {
		return 1
	}
	return *d
}

// over adds, in one pass over the lists, the units of the first lanes
// figures of ruleLanes (see there) each pair gives to their lanes, and
// with disc the pair's discordance with the deterministic baseline
// (dangerous recall's test) to lane lanes. The figures are called by name,
// not through a table of functions: this loop runs once per rule and pair
// at the end of a run, on one core.
func (s *laneScratch) over(sm sessMap, lanes int, disc bool, lists ...*spill.List) {
	for _, l := range lists {
		it := l.Iter()
		for c := it.Chunk(); len(c) > 0; c = it.Chunk() {
			for _, p := range c {
				sess, f := sm.at(p.V), p.K
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

// deff is the design effect of a lane.
func (s *laneScratch) deff(lane int) float64 {
	o := s.load(lane)
	return Deff(o.ys, o.ms)
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

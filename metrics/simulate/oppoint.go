package simulate

import (
	"hash/fnv"
	"math"
	"slices"
	"strconv"

	"github.com/apeval/apeval/metrics"
)

// Item is one labeled (case, rule) pair a judge decided, as the operating
// point sees it: its session, its label, whether the judge said match,
// and the judge's confidence (NaN without one).
type Item struct {
	Sess  uint32
	Pos   bool // labeled match
	Match bool // the judge said match
	Conf  float64
}

// Point is a threshold's figures on a set of items: a pair is predicted
// match when the judge said match with a confidence ≥ Threshold.
type Point struct {
	Threshold   float64
	TP, FP, Pos int64
	// Precision and Recall with metrics.ClusteredInterval (the ratio
	// over sessions, the verdict's interval); nil without units.
	Precision, PrecisionLo, PrecisionHi *float64
	Recall, RecallLo, RecallHi          *float64
	// PrecisionSessions is the sessions holding its predicted matches
	// where some holds more than one (metrics.ClusteredSessions): on
	// fewer than metrics.MinSessions no decision rests on the precision.
	PrecisionSessions float64
}

// Evaluate is the point at threshold t over the items.
func Evaluate(items []Item, t, conf float64) Point {
	type ym struct{ tp, pp, pos int64 }
	by := map[uint32]*ym{}
	p := Point{Threshold: t}
	for _, it := range items {
		s := by[it.Sess]
		if s == nil {
			s = &ym{}
			by[it.Sess] = s
		}
		if it.Pos {
			s.pos++
			p.Pos++
		}
		if it.Match && !(it.Conf < t) {
			s.pp++
			if it.Pos {
				s.tp++
				p.TP++
			} else {
				p.FP++
			}
		}
	}
	keys := make([]uint32, 0, len(by))
	for k := range by {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var py, pm, ry, rm []int64
	for _, k := range keys {
		s := by[k]
		if s.pp > 0 {
			py, pm = append(py, s.tp), append(pm, s.pp)
		}
		if s.pos > 0 {
			ry, rm = append(ry, s.tp), append(rm, s.pos)
		}
	}
	if p.TP+p.FP > 0 {
		lo, hi, _ := metrics.ClusteredInterval(py, pm, conf)
		p.Precision, p.PrecisionLo, p.PrecisionHi = ptr(float64(p.TP)/float64(p.TP+p.FP)), ptr(lo), ptr(hi)
		p.PrecisionSessions = metrics.ClusteredSessions(pm)
	}
	if p.Pos > 0 {
		lo, hi, _ := metrics.ClusteredInterval(ry, rm, conf)
		p.Recall, p.RecallLo, p.RecallHi = ptr(float64(p.TP)/float64(p.Pos)), ptr(lo), ptr(hi)
	}
	return p
}

// MaxThresholds bounds the thresholds a sweep tries: the distinct
// confidences of the judge's matches, thinned to this many quantiles.
const MaxThresholds = 50

// Thresholds are the thresholds worth trying over the items: 0 (every
// match) and the distinct confidences of the matches, at most
// MaxThresholds of them (evenly spaced in rank).
func Thresholds(items []Item) []float64 {
	var cs []float64
	for _, it := range items {
		if it.Match && !math.IsNaN(it.Conf) {
			cs = append(cs, it.Conf)
		}
	}
	slices.Sort(cs)
	cs = slices.Compact(cs)
	if len(cs) > MaxThresholds {
		th := make([]float64, 0, MaxThresholds)
		for i := range MaxThresholds {
			th = append(th, cs[i*len(cs)/MaxThresholds])
		}
		cs = slices.Compact(th)
	}
	if len(cs) == 0 || cs[0] > 0 {
		cs = append([]float64{0}, cs...)
	}
	return cs
}

// Choose applies the objective (the highest recall whose precision lower
// bound clears pmin) to the items: the lowest threshold whose precision
// interval lies wholly at or above pmin. ok is false when none does; best
// is then the threshold with the highest lower bound.
func Choose(items []Item, pmin, conf float64) (chosen Point, ok bool, best Point) {
	bestLo := -1.0
	for _, t := range Thresholds(items) {
		p := Evaluate(items, t, conf)
		if p.PrecisionLo == nil {
			continue
		}
		if clears(*p.PrecisionLo, pmin) {
			return p, true, p
		}
		if *p.PrecisionLo > bestLo {
			bestLo, best = *p.PrecisionLo, p
		}
	}
	return Point{}, false, best
}

// Half says which half of the sessions a session is in (0: where the
// threshold is chosen, 1: where it is reported), by a seeded FNV-1a hash
// of its ID: the split is the same on every run and shard.
func Half(sessionID string, seed uint64) int {
	h := fnv.New64a()
	_, _ = h.Write([]byte(strconv.FormatUint(seed, 10)))
	_, _ = h.Write([]byte{0})
	_, _ = h.Write([]byte(sessionID))
	return int(h.Sum64() & 1)
}

// moreSessions is "+N": how many more sessions like these (the items'
// sessions replicated) would put the precision lower bound at t at or
// above pmin; nil when the estimate itself does not clear pmin.
func moreSessions(items []Item, t, pmin, conf float64) *int64 {
	p := Evaluate(items, t, conf)
	if p.Precision == nil || *p.Precision <= pmin {
		return nil
	}
	sess := map[uint32]bool{}
	for _, it := range items {
		sess[it.Sess] = true
	}
	k := int64(len(sess))
	for mult := int64(2); mult <= 64; mult *= 2 {
		rep := make([]Item, 0, int(mult)*len(items))
		for r := range mult {
			for _, it := range items {
				it.Sess = it.Sess + uint32(r)<<24
				rep = append(rep, it)
			}
		}
		if q := Evaluate(rep, t, conf); q.PrecisionLo != nil && clears(*q.PrecisionLo, pmin) && !metrics.FewSessions(q.PrecisionSessions) {
			n := (mult - 1) * k
			return &n
		}
	}
	return nil
}

package metrics

import (
	"cmp"
	"slices"
	"sync/atomic"

	"github.com/apeval/apeval/internal/spill"
)

// Per-session sums in memory that does not grow with the sessions (see
// docs/scale.md, "Memory"). Every session-clustered figure needs, per
// session, a few sums of units (successes and units per figure, the
// discordance of a paired test, the paired counts of a difference), and
// from them only their multiset: the intervals, tests and bootstraps sort
// the sessions or sum integers, so the order the sessions come in changes
// no bit. A sessSums adds units into per-session vectors of k sums and
// hands each session's vector to emit once, complete:
//
//   - contiguous: the units come in case order and the run's sessions are
//     contiguous in it (Accumulator.contig: each case's session is the
//     one before it or one never seen), so a session is complete when the
//     next begins; one vector is kept.
//   - otherwise a window of up to sumsWindow sessions is kept in memory;
//     when it is full its vectors go to a spill list as records (session,
//     slot, value), and at the end the list is read back sorted by session
//     and each session's partial vectors are added up. A window that never
//     filled is handed out directly, without touching the disk.
type sessSums struct {
	k      int
	contig bool
	emit   func(v []int64)
	pool   *spill.Pool

	cur  uint32
	have bool
	vec  []int64

	idx  map[uint32]int32
	win  []int64
	list *spill.List

	// nDense > 0: the sums of session i are at dense[i*k:], touched lists
	// the sessions in use (mark says whether one is).
	nDense  int
	dense   []int64
	mark    []bool
	touched []uint32
}

// sumsHeld is the most sessions any sessSums held in memory at once
// (tests: memory does not grow with the sessions).
var sumsHeld atomic.Int64

func noteHeld(n int) {
	for {
		old := sumsHeld.Load()
		if int64(n) <= old || sumsHeld.CompareAndSwap(old, int64(n)) {
			return
		}
	}
}

// sumsWindow is how many sessions a non-contiguous sessSums keeps in
// memory before it spills (≈ 8·k + 40 bytes each).
var sumsWindow = 1 << 17

// maxSlots bounds k: a record's key holds the slot in its low 8 bits.
const maxSlots = 256

// newSessSums returns a sessSums of k slots; nSess is the number of session
// indexes (0: unknown): up to sumsWindow of them, scattered sessions are
// summed in an array indexed by session rather than a map.
func newSessSums(k int, contig bool, nSess int, pool *spill.Pool, emit func(v []int64)) *sessSums {
	s := &sessSums{k: k, contig: contig, emit: emit, pool: pool, vec: make([]int64, k)}
	if !contig && nSess > 0 && nSess <= sumsWindow {
		s.nDense = nSess
	}
	return s
}

// at returns the sums of session sess, to add to.
func (s *sessSums) at(sess uint32) []int64 {
	if s.contig {
		if !s.have || sess != s.cur {
			if s.have {
				s.emit(s.vec)
				clear(s.vec)
			}
			s.cur, s.have = sess, true
		}
		return s.vec
	}
	if s.nDense > 0 {
		if s.dense == nil {
			s.dense, s.mark = make([]int64, s.nDense*s.k), make([]bool, s.nDense)
		}
		if !s.mark[sess] {
			s.mark[sess] = true
			s.touched = append(s.touched, sess)
		}
		return s.dense[int(sess)*s.k : int(sess+1)*s.k]
	}
	if s.idx == nil {
		s.idx = map[uint32]int32{}
	}
	i, ok := s.idx[sess]
	if !ok {
		if len(s.idx) >= sumsWindow && s.pool != nil {
			noteHeld(len(s.idx))
			s.spill()
		}
		i = int32(len(s.idx))
		s.idx[sess] = i
		if need := (int(i) + 1) * s.k; len(s.win) < need {
			s.win = append(s.win, make([]int64, need-len(s.win))...)
		}
	}
	return s.win[int(i)*s.k : int(i+1)*s.k]
}

// spill writes the window's vectors to the spill list and empties it.
func (s *sessSums) spill() {
	if s.list == nil {
		s.list = s.pool.NewList()
	}
	for sess, i := range s.idx {
		for j, v := range s.win[int(i)*s.k : int(i+1)*s.k] {
			if v != 0 {
				s.list.Append(spill.Rec{K: uint64(sess)<<8 | uint64(j), V: uint64(v)})
			}
		}
	}
	clear(s.win[:len(s.idx)*s.k])
	clear(s.idx)
}

// finish hands out every session not handed out yet and empties s for
// another pass.
func (s *sessSums) finish() {
	noteHeld(len(s.idx))
	if s.contig {
		noteHeld(1)
		if s.have {
			s.emit(s.vec)
			clear(s.vec)
		}
		s.have = false
		return
	}
	if s.nDense > 0 {
		noteHeld(len(s.touched))
		for _, i := range s.touched {
			v := s.dense[int(i)*s.k : int(i+1)*s.k]
			s.emit(v)
			clear(v)
			s.mark[i] = false
		}
		s.touched = s.touched[:0]
		return
	}
	if s.list == nil {
		for _, i := range s.idx {
			s.emit(s.win[int(i)*s.k : int(i+1)*s.k])
		}
		clear(s.win[:len(s.idx)*s.k])
		clear(s.idx)
		return
	}
	s.spill()
	clear(s.vec)
	have, cur := false, uint32(0)
	it := s.list.Iter()
	for c := it.Chunk(); len(c) > 0; c = it.Chunk() {
		for _, r := range c {
			sess := uint32(r.K >> 8)
			if have && sess != cur {
				s.emit(s.vec)
				clear(s.vec)
			}
			cur, have = sess, true
			s.vec[r.K&(maxSlots-1)] += int64(r.V)
		}
	}
	if have {
		s.emit(s.vec)
		clear(s.vec)
	}
	s.list.Release()
	s.list = nil
}

// ymCount is n sessions with y successes of m units (for a discordance
// lane: d = y, n discordant units = m).
type ymCount struct{ y, m, n int64 }

// ymHist counts sessions by (y, m): a small table for the common small
// values, a map for the rest.
type ymHist struct {
	small []int64 // (y+ymOff)*ymSpan + m
	big   map[[2]int64]int64
	any   bool
}

const (
	ymOff  = 32
	ymSpan = 64
)

func (h *ymHist) add(y, m int64) {
	h.any = true
	if y >= -ymOff && y < ymSpan-ymOff && m >= 0 && m < ymSpan {
		if h.small == nil {
			h.small = make([]int64, ymSpan*ymSpan)
		}
		h.small[(y+ymOff)*ymSpan+m]++
		return
	}
	if h.big == nil {
		h.big = map[[2]int64]int64{}
	}
	h.big[[2]int64{y, m}]++
}

// counts returns the distinct (y, m) with their numbers of sessions,
// sorted, and empties h.
func (h *ymHist) counts() []ymCount {
	if !h.any {
		return nil
	}
	var out []ymCount
	for i, n := range h.small {
		if n != 0 {
			out = append(out, ymCount{int64(i/ymSpan) - ymOff, int64(i % ymSpan), n})
			h.small[i] = 0
		}
	}
	for k, n := range h.big {
		out = append(out, ymCount{k[0], k[1], n})
	}
	clear(h.big)
	h.any = false
	slices.SortFunc(out, func(a, b ymCount) int {
		if c := cmp.Compare(a.y, b.y); c != 0 {
			return c
		}
		return cmp.Compare(a.m, b.m)
	})
	return out
}

// laneSums is a sessSums over several figures ("lanes"): slot 2l holds
// lane l's successes (or discordance), 2l+1 its units; each complete
// session goes into the lane's ymHist.
type laneSums struct {
	lanes int
	sums  *sessSums
	hist  []ymHist
}

func newLaneSums(lanes int, contig bool, nSess int, pool *spill.Pool) *laneSums {
	ls := &laneSums{lanes: lanes, hist: make([]ymHist, lanes)}
	ls.sums = newSessSums(2*lanes, contig, nSess, pool, func(v []int64) {
		for l := range ls.lanes {
			if m := v[2*l+1]; m != 0 {
				ls.hist[l].add(v[2*l], m)
			}
		}
	})
	return ls
}

// add adds one unit to a lane of a session, a success when ok.
func (s *laneSums) add(sess uint32, lane int, ok bool) {
	v := s.sums.at(sess)
	v[2*lane+1]++
	if ok {
		v[2*lane]++
	}
}

// addN adds m units with y successes to a lane of a session.
func (s *laneSums) addN(sess uint32, lane int, y, m int64) {
	v := s.sums.at(sess)
	v[2*lane] += y
	v[2*lane+1] += m
}

// laneTotal is a lane's successes and units over its sessions, and their
// posterior (nil without units).
type laneTotal struct {
	y, m int64
	post *bbPosterior
}

// sumsOf is a lane's totals (and empties it).
func (s *laneSums) sumsOf(lane int) laneTotal {
	c := s.hist[lane].counts()
	var t laneTotal
	for _, x := range c {
		t.y += x.y * x.n
		t.m += x.m * x.n
	}
	t.post = newBBPosteriorCounts(c)
	return t
}

// addDisc records one unit of a paired test: bOnly / cOnly say which side
// alone had the event (neither: concordant, ignored).
func (s *laneSums) addDisc(sess uint32, lane int, bOnly, cOnly bool) {
	if bOnly == cOnly {
		return
	}
	v := s.sums.at(sess)
	v[2*lane+1]++
	if bOnly {
		v[2*lane]++
	} else {
		v[2*lane]--
	}
}

// done completes the pass: every session is in the histograms.
func (s *laneSums) done() { s.sums.finish() }

// clustered is the clustered interval of a lane (and empties it).
func (s *laneSums) clustered(lane int, z, conf float64) clustered {
	return clusteredFrom(newBBPosteriorCounts(s.hist[lane].counts()), conf)
}

// mcnemar is the discordance of a lane filled by addDisc (and empties it).
func (s *laneSums) mcnemar(lane int) mcnemar {
	var m mcnemar
	for _, c := range s.hist[lane].counts() {
		m.addSessions(c.y, c.m, c.n)
	}
	return m
}

// reset empties every lane.
func (s *laneSums) reset() {
	for l := range s.hist {
		s.hist[l].counts()
	}
}

// pairSums collects the paired units of a difference per session
// (pairSess) and counts the complete sessions by their values.
type pairSums struct {
	sums *sessSums
	hist map[pairSess]int64
}

func newPairSums(contig bool, nSess int, pool *spill.Pool) *pairSums {
	p := &pairSums{hist: map[pairSess]int64{}}
	p.sums = newSessSums(4, contig, nSess, pool, func(v []int64) {
		if v[3] != 0 {
			p.hist[pairSess{v[0], v[1], v[2], v[3]}]++
		}
	})
	return p
}

func (p *pairSums) add(sess uint32, e1, e2 bool) {
	v := p.sums.at(sess)
	v[3]++
	if e1 {
		v[0]++
	}
	if e2 {
		v[1]++
	}
	if e1 && e2 {
		v[2]++
	}
}

// take returns the sessions' counts and empties p.
func (p *pairSums) take() []pairCount {
	p.sums.finish()
	out := make([]pairCount, 0, len(p.hist))
	for k, n := range p.hist {
		out = append(out, pairCount{k, n})
	}
	clear(p.hist)
	return out
}

// pairCount is n sessions with the paired units s.
type pairCount struct {
	s pairSess
	n int64
}

package replay

import (
	"math"
	"slices"
	"strings"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/intern"
	"github.com/apeval/apeval/internal/mask"
)

// Per-session memory (see docs/scale.md). A stream has no end-of-session
// marker, so what a session needs is kept for the whole run, and kept
// once: the goroutine that reads the cases (Run's reader) gives each
// session an exact ordinal — an intern.Table over the ids, where a hash
// finds the slot and the bytes decide, so two sessions never share state —
// and keeps per session the worker that owns it, its index among that
// worker's sessions and its last seq (the seq-order check is made there,
// once for all judges). A worker keeps, per judge and per session it owns,
// only the 1-based index of the session's counters in its counterArena (0
// while the session has none), and the counters themselves only for
// sessions where a stateful rule (max_fires, a condition, a boundary) fired
// or a boundary was crossed. About 12–20 bytes + the id's length per session
// for the table, 10 for the reader's arrays and 4 per judge, + 4 per
// stateful counter of the sessions that have counters; nothing is kept per
// case.

// stateChunk is how many sessions one chunk of a chunked array holds:
// chunks grow the arrays without copying them (an append that doubles a
// slice holds both copies for a moment).
const stateChunk = 1 << 14

// chunked is an append-only array in chunks of stateChunk elements.
type chunked[T any] struct {
	chunks [][]T
	n      int
}

func (c *chunked[T]) add(v T) {
	if c.n%stateChunk == 0 {
		c.chunks = append(c.chunks, make([]T, stateChunk))
	}
	c.chunks[c.n/stateChunk][c.n%stateChunk] = v
	c.n++
}

func (c *chunked[T]) at(i uint32) *T { return &c.chunks[i/stateChunk][i%stateChunk] }

// bigSeq marks, in sessionTable.last, a last seq that does not fit in 32
// bits (kept in sessionTable.bigLast instead).
const bigSeq = math.MaxUint32

// groupedLocal marks, in the local index the reader gives a case, a
// session of a file that declares its sessions grouped: the worker keeps
// its counters only until its next session begins (the low bits number the
// worker's grouped sessions, so that two in a row differ).
const groupedLocal = 1 << 31

// closedInMemory is how many grouped sessions' ids the check that none
// appears again keeps in memory (≈ 16 bytes + the id each); the rest go to
// sorted runs on disk, merged at the end of the input.
var closedInMemory = 1 << 18

// sessionTable is the reader's per-session state: see above. It is used
// by one goroutine.
//
// A case from a file that declares its sessions grouped (datasets
// SessionsField) starts, when its session is not the current one, a
// grouped session: only the current grouped session is kept (its id,
// ordinal, worker, index and last seq), and the one before it is complete
// and forgotten. Its id goes into closed, an exact set in bounded memory,
// so that a session appearing again after another one is an error
// (*datasets.GroupedError) rather than a session replayed with its state
// reset. Other cases' sessions go into the table, as without grouping.
type sessionTable struct {
	ids      *intern.Table
	owner    chunked[uint16] // worker, by table index
	local    chunked[uint32] // index among the worker's sessions
	last     chunked[uint32] // last seq, or bigSeq
	bigLast  map[uint32]int64
	assigned []int64  // cases placed per worker
	sessions []uint32 // table sessions placed per worker

	n        uint32          // session ordinals given out (table and grouped)
	tableOrd chunked[uint32] // a table session's ordinal, once grouped sessions exist (ordKept; else its index)
	ordKept  bool
	cur      groupedSession  // the current grouped session
	hasCur   bool            // cur is set
	grouped  []uint32        // grouped sessions placed per worker
	closed   *datasets.IDSet // every session id started since the first grouped one
}

// groupedSession is the state of the current grouped session.
type groupedSession struct {
	id    string
	g     uint32
	w     int
	local uint32
	last  int64
}

func newSessionTable(ids *intern.Table, workers int) *sessionTable {
	return &sessionTable{ids: ids, assigned: make([]int64, workers), sessions: make([]uint32, workers), grouped: make([]uint32, workers)}
}

// leastLoaded is the worker with the fewest cases so far.
func (s *sessionTable) leastLoaded() int { return slices.Index(s.assigned, slices.Min(s.assigned)) }

// place gives case c to the worker that owns its session; a session seen
// first goes to the worker with the fewest cases so far, so the sessions
// spread evenly whatever their ids. It returns the worker, the session's
// index among that worker's sessions (groupedLocal set for a grouped
// session) and its ordinal g among the run's sessions (in the order they
// first appear), or an error: a *SeqError when c's seq goes back in its
// session (c is then placed nowhere and the session's last seq stays), a
// *datasets.GroupedError when a grouped session appears again.
func (s *sessionTable) place(c *datasets.Case) (w int, local, g uint32, err error) {
	sid := sessionID(c)
	if s.hasCur && sid == s.cur.id {
		cur := &s.cur
		if c.Seq < cur.last {
			return 0, 0, 0, datasets.CheckSeq(c, mask.ID(sid), cur.last, true)
		}
		cur.last = c.Seq
		s.assigned[cur.w]++
		return cur.w, cur.local, cur.g, nil
	}
	// Another session than the current grouped one, which is complete.
	s.hasCur = false
	if _, grouped := c.GroupedFile(); grouped {
		if s.ids.Len() == 0 {
			return s.startGrouped(c, sid)
		}
		if _, ok := s.ids.Lookup(sid); !ok {
			return s.startGrouped(c, sid)
		}
	}
	return s.placeTable(c, sid)
}

// startGrouped starts the grouped session sid with case c.
func (s *sessionTable) startGrouped(c *datasets.Case, sid string) (w int, local, g uint32, err error) {
	if s.closed == nil {
		s.closed = datasets.NewIDSet(closedInMemory)
		// The sessions of the table so far may not appear as grouped ones
		// either: they are in the table, which place looks in first.
	}
	if _, dup, err := s.closed.Add(sid, s.n); err != nil {
		return 0, 0, 0, err
	} else if dup {
		return 0, 0, 0, &datasets.GroupedError{Source: c.Source, SessionID: mask.ID(sid)}
	}
	w = s.leastLoaded()
	s.cur = groupedSession{id: strings.Clone(sid), g: s.n, w: w, local: groupedLocal | s.grouped[w]&(groupedLocal-1), last: c.Seq}
	s.hasCur = true
	s.grouped[w]++
	s.n++
	s.assigned[w]++
	return w, s.cur.local, s.cur.g, nil
}

// placeTable places c in the table of sessions kept for the whole run.
func (s *sessionTable) placeTable(c *datasets.Case, sid string) (w int, local, g uint32, err error) {
	g, added := s.ids.Add(sid)
	if added {
		if s.closed != nil {
			if _, dup, err := s.closed.Add(sid, s.n); err != nil {
				return 0, 0, 0, err
			} else if dup {
				return 0, 0, 0, &datasets.GroupedError{Source: c.Source, SessionID: mask.ID(sid)}
			}
		}
		w = s.leastLoaded()
		s.owner.add(uint16(w))
		s.local.add(s.sessions[w])
		s.sessions[w]++
		s.last.add(0)
		if !s.ordKept && s.n != g {
			// Grouped sessions took ordinals: the table's own indexes are
			// no longer the run's ordinals, so they are kept from now on.
			s.ordKept = true
			for i := range g {
				s.tableOrd.add(i)
			}
		}
		if s.ordKept {
			s.tableOrd.add(s.n)
		}
		s.n++
	} else {
		w = int(*s.owner.at(g))
		prev := int64(*s.last.at(g))
		if prev == bigSeq {
			prev = s.bigLast[g]
		}
		if c.Seq < prev {
			return 0, 0, 0, datasets.CheckSeq(c, mask.ID(sid), prev, true)
		}
	}
	if c.Seq < bigSeq {
		*s.last.at(g) = uint32(c.Seq)
		if s.bigLast != nil {
			delete(s.bigLast, g)
		}
	} else {
		*s.last.at(g) = bigSeq
		if s.bigLast == nil {
			s.bigLast = map[uint32]int64{}
		}
		s.bigLast[g] = c.Seq
	}
	s.assigned[w]++
	ord := g
	if s.ordKept {
		ord = *s.tableOrd.at(g)
	}
	return w, *s.local.at(g), ord, nil
}

// finish runs the end-of-input check that no grouped session appeared
// again further apart than the check keeps in memory, and releases it.
func (s *sessionTable) finish() error {
	if s.closed == nil {
		return nil
	}
	defer s.closed.Close()
	id, _, _, ok, err := s.closed.Late()
	if err != nil {
		return err
	}
	if ok {
		return &datasets.GroupedError{SessionID: mask.ID(id), Late: true}
	}
	return nil
}

package replay

import (
	"math"
	"slices"

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

// sessionTable is the reader's per-session state: see above. It is used
// by one goroutine.
type sessionTable struct {
	ids      *intern.Table
	owner    chunked[uint16] // worker, by session ordinal
	local    chunked[uint32] // index among the worker's sessions
	last     chunked[uint32] // last seq, or bigSeq
	bigLast  map[uint32]int64
	assigned []int64  // cases placed per worker
	sessions []uint32 // sessions placed per worker
}

func newSessionTable(ids *intern.Table, workers int) *sessionTable {
	return &sessionTable{ids: ids, assigned: make([]int64, workers), sessions: make([]uint32, workers)}
}

// place gives case c to the worker that owns its session; a session seen
// first goes to the worker with the fewest cases so far, so the sessions
// spread evenly whatever their ids. It returns the worker, the session's
// index among that worker's sessions and whether it is new, or a
// *SeqError when c's seq goes back in its session (c is then placed
// nowhere and the session's last seq stays). g is the session's ordinal in
// the table.
func (s *sessionTable) place(c *datasets.Case) (w int, local, g uint32, err error) {
	sid := sessionID(c)
	g, added := s.ids.Add(sid)
	if added {
		w = slices.Index(s.assigned, slices.Min(s.assigned))
		s.owner.add(uint16(w))
		s.local.add(s.sessions[w])
		s.sessions[w]++
		s.last.add(0)
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
	return w, *s.local.at(g), g, nil
}

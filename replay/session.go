package replay

import (
	"bytes"
	"cmp"
	"hash/maphash"
	"slices"
	"strings"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/mask"
	"github.com/apeval/apeval/internal/spill"
)

// Per-session memory (see docs/scale.md). A stream has no end-of-session
// marker, so a session may get another case at any point of the input. The
// goroutine that reads the cases (Run's reader) gives each session an
// exact ordinal (in the order sessions first appear; a hash finds a
// session's entry and the bytes decide, so two sessions never share state)
// and keeps per session the worker that owns it, its slot among that
// worker's sessions in memory and its last seq (the seq-order check is
// made there, once for all judges). A worker keeps, per judge and per slot,
// only the 1-based index of the session's counters in its counterArena (0
// while the session has none), and the counters themselves only for
// sessions where a stateful rule (max_fires, a condition, a boundary) fired
// or a boundary was crossed.
//
// Memory is bounded whatever the number of sessions: the reader keeps at
// most sessionsInMemory sessions (≈ 50–56 bytes + the id each). When that many
// are in memory at the start of a block, every session without a case in
// the last sessionsInMemory/2 cases (at least half of them) is evicted:
// written, sorted by (hash, id), as a run to a temporary file (spill.go),
// its id added to a Bloom filter (1.5–2.25 bytes per evicted session, the
// one thing that grows with their number, with each run's sparse index of
// ≈ 0.2 bytes per session), its slot freed. Each worker that owns an
// evicted session is told in the block that follows (before that block's
// cases, after every earlier case of the session, since a worker's blocks
// come in order), writes the counters of those that have some beside the
// run (a segment per worker, judge and eviction) and frees their blocks.
// A session that comes back after its eviction is found in the newest run
// that has it, re-enters memory with its ordinal, worker and last seq and
// a new slot, and its workers read its counters back from the segment of
// that eviction. A new session costs no disk read unless the filter errs.
// Sessions live at once (1,000 in a recording hook's log) stay in memory.

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

// sessionsInMemory is how many sessions of files without the grouped
// marker the reader keeps in memory at most (a variable so that tests can
// shrink it): see above.
var sessionsInMemory = 1 << 17

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
	// The table: an open-addressing index (entry + 1, 0 empty) over the
	// sessions in memory, their ids one after another in arena.
	seed  maphash.Seed
	hash  func(string) uint64 // nil: maphash with seed (tests force collisions)
	index []uint32
	arena []byte
	ents  []hotEntry

	tableSessions int      // table sessions placed (in memory or not)
	cases         uint64   // table cases placed: the clock of hotEntry.used
	nextSlot      []uint32 // per worker: slots given out
	freeSlots     [][]uint32
	runs          sessionRuns
	order         []uint32 // eviction scratch: the evicted entries
	// evicts and reloads are the notices for each worker of the block
	// being placed (the block's own slices, see pipeline.place).
	evicts, reloads [][]notice

	assigned []int64 // cases placed per worker

	n       uint32          // session ordinals given out (table and grouped)
	cur     groupedSession  // the current grouped session
	hasCur  bool            // cur is set
	grouped []uint32        // grouped sessions placed per worker
	closed  *datasets.IDSet // every session id started since the first grouped one
}

// groupedSession is the state of the current grouped session.
type groupedSession struct {
	id    string
	g     uint32
	w     int
	local uint32
	last  int64
}

// hotEntry is a session of the table in memory.
type hotEntry struct {
	h    uint64 // the id's hash
	last int64  // last seq
	used uint64 // sessionTable.cases when it last had a case
	g    uint32 // ordinal
	slot uint32 // among its worker's sessions in memory
	end  uint32 // end of its id in arena
	w    uint16 // worker
}

func newSessionTable(workers int, file *spill.File) *sessionTable {
	return &sessionTable{seed: maphash.MakeSeed(), index: make([]uint32, 1024),
		nextSlot: make([]uint32, workers), freeSlots: make([][]uint32, workers),
		evicts: make([][]notice, workers), reloads: make([][]notice, workers),
		runs:     sessionRuns{file: file},
		assigned: make([]int64, workers), grouped: make([]uint32, workers)}
}

func (s *sessionTable) sum(id string) uint64 {
	if s.hash != nil {
		return s.hash(id)
	}
	return maphash.String(s.seed, id)
}

func (s *sessionTable) id(i int) []byte {
	start := uint32(0)
	if i > 0 {
		start = s.ents[i-1].end
	}
	return s.arena[start:s.ents[i].end]
}

// lookup returns the index of the entry of session id (hash h) in memory.
func (s *sessionTable) lookup(id string, h uint64) (int, bool) {
	mask := uint64(len(s.index) - 1)
	for p := h & mask; ; p = (p + 1) & mask {
		v := s.index[p]
		if v == 0 {
			return 0, false
		}
		if e := &s.ents[v-1]; e.h == h && string(s.id(int(v-1))) == id {
			return int(v - 1), true
		}
	}
}

// insert adds an entry for session id; it returns its index.
func (s *sessionTable) insert(id string, e hotEntry) int {
	s.arena = append(s.arena, id...)
	e.end = uint32(len(s.arena))
	s.ents = append(s.ents, e)
	i := len(s.ents) - 1
	if 2*len(s.ents) > len(s.index) {
		s.index = make([]uint32, 2*len(s.index))
		s.reindex()
	} else {
		s.indexEntry(i)
	}
	return i
}

func (s *sessionTable) indexEntry(i int) {
	mask := uint64(len(s.index) - 1)
	p := s.ents[i].h & mask
	for s.index[p] != 0 {
		p = (p + 1) & mask
	}
	s.index[p] = uint32(i) + 1
}

func (s *sessionTable) reindex() {
	clear(s.index)
	for i := range s.ents {
		s.indexEntry(i)
	}
}

// slotFor gives worker w's next free slot.
func (s *sessionTable) slotFor(w int) uint32 {
	if f := s.freeSlots[w]; len(f) > 0 {
		s.freeSlots[w] = f[:len(f)-1]
		return f[len(f)-1]
	}
	s.nextSlot[w]++
	return s.nextSlot[w] - 1
}

// find returns the entry of the table session id (hash h), bringing it
// back into memory from the newest run that has it, with a reload notice
// for its worker; ok false for a session not seen before.
func (s *sessionTable) find(id string, h uint64) (i int, ok bool, err error) {
	if i, ok := s.lookup(id, h); ok {
		return i, true, nil
	}
	if len(s.runs.runs) == 0 {
		return 0, false, nil
	}
	rec, epoch, ok, err := s.runs.find(id, h)
	if err != nil || !ok {
		return 0, false, err
	}
	slot := s.slotFor(int(rec.w))
	s.reloads[rec.w] = append(s.reloads[rec.w], notice{slot: slot, g: rec.g, epoch: uint32(epoch)})
	return s.insert(id, hotEntry{h: h, last: rec.last, g: rec.g, slot: slot, w: rec.w}), true, nil
}

// beginBlock starts placing a block whose notices for the workers go into
// evicts and reloads (emptied here): when the block's cases might not fit
// in the table, the sessions without a case in the last
// sessionsInMemory/2 cases are evicted.
func (s *sessionTable) beginBlock(evicts, reloads [][]notice) error {
	for w := range evicts {
		evicts[w], reloads[w] = evicts[w][:0], reloads[w][:0]
	}
	s.evicts, s.reloads = evicts, reloads
	if len(s.ents)+blockSize <= sessionsInMemory {
		return nil // the block's new sessions fit
	}
	// Each case marks one session as used, so at most half the table was
	// used in the last sessionsInMemory/2 cases.
	recent := s.cases - min(s.cases, uint64(max(sessionsInMemory/2, 1)))
	order := s.order[:0]
	for i := range s.ents {
		if s.ents[i].used <= recent {
			order = append(order, uint32(i))
		}
	}
	slices.SortFunc(order, func(a, b uint32) int {
		if c := cmp.Compare(s.ents[a].h, s.ents[b].h); c != 0 {
			return c
		}
		return bytes.Compare(s.id(int(a)), s.id(int(b)))
	})
	s.order = order
	if err := s.runs.write(s.ents, order, s.id); err != nil {
		return err
	}
	epoch := uint32(len(s.runs.runs) - 1)
	// The survivors move to the front, in order (their ids too).
	k, pos, start := 0, uint32(0), uint32(0)
	for i := range s.ents {
		e := s.ents[i]
		end := e.end
		if e.used <= recent {
			s.evicts[e.w] = append(s.evicts[e.w], notice{slot: e.slot, g: e.g, epoch: epoch})
			s.freeSlots[e.w] = append(s.freeSlots[e.w], e.slot)
		} else {
			n := copy(s.arena[pos:], s.arena[start:end])
			pos += uint32(n)
			e.end = pos
			s.ents[k] = e
			k++
		}
		start = end
	}
	s.ents, s.arena = s.ents[:k], s.arena[:pos]
	s.reindex()
	return nil
}

// leastLoaded is the worker with the fewest cases so far.
func (s *sessionTable) leastLoaded() int { return slices.Index(s.assigned, slices.Min(s.assigned)) }

// place gives case c to the worker that owns its session; a session seen
// first goes to the worker with the fewest cases so far, so the sessions
// spread evenly whatever their ids. It returns the worker, the session's
// slot among that worker's sessions (groupedLocal set for a grouped
// session) and its ordinal g among the run's sessions (in the order they
// first appear), or an error: a *SeqError when c's seq goes back in its
// session (c is then placed nowhere and the session's last seq stays), a
// *datasets.GroupedError when a grouped session appears again, an error
// reading the sessions on disk.
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
	_, grouped := c.GroupedFile()
	if grouped && s.tableSessions == 0 {
		return s.startGrouped(c, sid)
	}
	h := s.sum(sid)
	i, ok, err := s.find(sid, h)
	switch {
	case err != nil:
		return 0, 0, 0, err
	case ok:
		return s.placeAt(c, sid, i)
	case grouped:
		return s.startGrouped(c, sid)
	}
	return s.placeNew(c, sid, h)
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

// placeNew places c, the first case of a table session.
func (s *sessionTable) placeNew(c *datasets.Case, sid string, h uint64) (w int, local, g uint32, err error) {
	if s.closed != nil {
		if _, dup, err := s.closed.Add(sid, s.n); err != nil {
			return 0, 0, 0, err
		} else if dup {
			return 0, 0, 0, &datasets.GroupedError{Source: c.Source, SessionID: mask.ID(sid)}
		}
	}
	w = s.leastLoaded()
	s.cases++
	e := hotEntry{h: h, last: c.Seq, used: s.cases, g: s.n, slot: s.slotFor(w), w: uint16(w)}
	s.insert(sid, e)
	s.n++
	s.tableSessions++
	s.assigned[w]++
	return w, e.slot, e.g, nil
}

// placeAt places c in the table session of entry i.
func (s *sessionTable) placeAt(c *datasets.Case, sid string, i int) (w int, local, g uint32, err error) {
	e := &s.ents[i]
	if c.Seq < e.last {
		return 0, 0, 0, datasets.CheckSeq(c, mask.ID(sid), e.last, true)
	}
	s.cases++
	e.last, e.used = c.Seq, s.cases
	s.assigned[e.w]++
	return int(e.w), e.slot, e.g, nil
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

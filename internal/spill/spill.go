// Package spill keeps append-only lists of fixed-size records in memory up
// to a budget shared by every list of a Pool, and moves the rest to one
// temporary file as sorted runs; a list reads back as one sorted stream (a
// k-way merge of its runs and its in-memory tail). It is what lets metrics
// keep what it must remember per case and per decision without memory that
// grows with the run (see docs/internals.md, "Per-case data on disk").
//
// Lists that stay under the budget never touch the disk. A list whose
// records arrive in order (each no smaller than the one before, the common
// case) is neither sorted when flushed nor merged when read: its runs are
// read one after the other.
//
// The runs go to a File, created on the first flush and unlinked right
// after it is opened, so nothing is left behind however the process ends;
// where a system cannot unlink an open file, Close removes it. File is also
// the temporary file of the other spills (replay's idle sessions, the
// duplicate-id check), whose records are not fixed-size. A Pool and its
// lists are not safe for concurrent use; a File is.
//
// # One file, three record layouts, and why not one
//
// Every spill shares File (how the temporary file is made, hidden,
// reserved, written concurrently and removed). The records in it keep
// three layouts, because each is read back in a way the others cannot
// serve:
//
//   - List's 16-byte Rec (K, V), read only as one merged sorted stream:
//     metrics' per-session sums and simulate's session index and latency
//     lists. simulate's results are variable-length, so they are records
//     of its own store in a File, and the List holds K = session hash,
//     V = offset and length: the one layout where a variable record could
//     go through List, because simulate reads every record, in index order.
//   - replay's idle sessions (replay/spill.go): (hash, last seq, ordinal,
//     worker, uvarint length, id) in runs sorted by (hash, id), each with a
//     sparse index and its hashes for a Bloom filter, plus each worker's
//     counter segments (ordinal, k int32). They are looked up one session
//     at a time while the replay runs (a session that comes back), the
//     newest run first; a List only reads back whole, merged, so every
//     lookup would read every run.
//   - the duplicate-id check (datasets/idset.go): ids front-coded (uvarint
//     length of the prefix shared with the previous id, uvarint length of
//     the rest, the rest, 4-byte ordinal) in runs sorted by their bytes,
//     merged once at the end, and late duplicates reported in id order. On
//     a List the ids would have to sit beside it as simulate's results do
//     (K = hash, V = offset): the 16-byte index record and the shared
//     prefix more disk per id, a read per hash tie (rare, but the bytes
//     decide: a hash only says where to look), and the duplicates, which a
//     user reads as file:line errors, would come out in hash order.
//
// What the three share besides File is only "sorted runs on disk", which
// File provides the storage for; a common codec would have to carry
// point lookups, front coding and a merged stream to serve all three, and
// would be three codecs behind one name.
package spill

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
)

// Rec is one record. Lists sort by K, then V.
type Rec struct{ K, V uint64 }

func (r Rec) less(o Rec) bool { return r.K < o.K || (r.K == o.K && r.V < o.V) }

func cmpRec(a, b Rec) int {
	if c := cmp.Compare(a.K, b.K); c != 0 {
		return c
	}
	return cmp.Compare(a.V, b.V)
}

// RecSize is the bytes a record takes in memory and on disk.
const RecSize = 16

// DefaultBudget is the memory budget of a Pool made with budget 0.
const DefaultBudget = 16 << 20

// readRecs is the records each run reads at a time while it is merged.
const readRecs = 4096

// Pool is a memory budget and a temporary file shared by lists.
type Pool struct {
	budget int64
	held   int64 // bytes of list buffers (their capacity)
	lists  []*List
	f      *File
	size   int64 // bytes written to f
	wbuf   []byte
	err    error // first read error
	// noSpill is set after a write to the file failed: lists then stay in
	// memory (nothing is lost; the budget no longer holds).
	noSpill  bool
	writeErr error
	runs     int
}

// NewPool returns a Pool that holds at most budget bytes of records in
// memory (0: DefaultBudget; negative: no limit, nothing is ever written)
// and writes its temporary file in dir ("" for os.TempDir()).
func NewPool(dir string, budget int64) *Pool {
	if budget == 0 {
		budget = DefaultBudget
	}
	return &Pool{f: NewFile(dir, "apeval-spill-*"), budget: budget}
}

// NewList returns an empty list in the pool.
func (p *Pool) NewList() *List {
	l := &List{p: p, sorted: true, bufSorted: true}
	p.lists = append(p.lists, l)
	return l
}

// Err returns the first error reading the file back: a stream that met it
// ended early, so what was computed from it is incomplete.
func (p *Pool) Err() error { return p.err }

// WriteErr returns the error that stopped spilling, if a write to the file
// failed; the lists kept everything in memory from then on.
func (p *Pool) WriteErr() error { return p.writeErr }

// Spilled returns the bytes written to the file and the number of runs.
func (p *Pool) Spilled() (bytes int64, runs int) { return p.size, p.runs }

// Close closes the file (removing it where it could not be unlinked). The
// lists must not be used afterwards.
func (p *Pool) Close() error {
	err := p.f.Close()
	for _, l := range p.lists {
		l.buf, l.runs = nil, nil
	}
	return err
}

// List is an append-only multiset of records, read back in sorted order.
type List struct {
	p         *Pool
	buf       []Rec
	runs      []run
	n         int64
	last      Rec
	sorted    bool // every record so far is ≥ the one appended before it
	bufSorted bool // the same, within buf
}

// run is a sorted stretch of records in the file.
type run struct{ off, n int64 }

// Len returns the number of records appended.
func (l *List) Len() int64 { return l.n }

// Append adds a record.
func (l *List) Append(r Rec) {
	if l.n > 0 && r.less(l.last) {
		l.sorted = false
		l.bufSorted = false
	}
	l.last = r
	if len(l.buf) == cap(l.buf) {
		l.grow()
	}
	if len(l.buf) == 0 {
		l.bufSorted = true
	}
	l.buf = append(l.buf, r)
	l.n++
}

// grow makes room in buf for one more record: up to a quarter of the
// budget a buffer doubles (after flushing the largest lists if the pool
// would go over budget); at that size the list is written out as a run and
// its buffer reused.
func (l *List) grow() {
	p := l.p
	c := cap(l.buf)
	if p.budget < 0 || p.noSpill {
		l.realloc(max(2*c, 64))
		return
	}
	limit := max(64, int(p.budget/RecSize/4))
	if c >= limit {
		if !p.flush(l, true) {
			l.realloc(2 * c)
		}
		return
	}
	nc := min(max(2*c, 64), limit)
	if need := int64(nc-c) * RecSize; p.held+need > p.budget {
		p.makeRoom(need, l)
		if len(l.buf) < cap(l.buf) {
			return
		}
	}
	l.realloc(nc)
}

func (l *List) realloc(nc int) {
	nb := make([]Rec, len(l.buf), nc)
	copy(nb, l.buf)
	l.p.held += int64(nc-cap(l.buf)) * RecSize
	l.buf = nb
}

// makeRoom flushes the largest lists until need more bytes fit in the
// budget. When it flushes self, self keeps its (emptied) buffer.
func (p *Pool) makeRoom(need int64, self *List) {
	for p.held+need > p.budget && !p.noSpill {
		var big *List
		for _, l := range p.lists {
			if len(l.buf) > 0 && (big == nil || cap(l.buf) > cap(big.buf)) {
				big = l
			}
		}
		if big == nil {
			return
		}
		p.flush(big, big == self)
		if big == self {
			return
		}
	}
}

// flush writes l's buffer to the file as a sorted run and empties it,
// freeing it unless keep. False when the write failed (then nothing
// changes and nothing is written again).
func (p *Pool) flush(l *List, keep bool) bool {
	if len(l.buf) == 0 || p.noSpill {
		return false
	}
	if !l.bufSorted {
		slices.SortFunc(l.buf, cmpRec)
		l.bufSorted = true
	}
	off, err := p.write(l.buf)
	if err != nil {
		p.noSpill, p.writeErr = true, err
		return false
	}
	l.runs = append(l.runs, run{off: off, n: int64(len(l.buf))})
	p.size += int64(len(l.buf)) * RecSize
	p.runs++
	if keep {
		l.buf = l.buf[:0]
	} else {
		p.held -= int64(cap(l.buf)) * RecSize
		l.buf = nil
	}
	return true
}

// write writes recs as one run and returns its offset.
func (p *Pool) write(recs []Rec) (int64, error) {
	start, err := p.f.Reserve(int64(len(recs)) * RecSize)
	if err != nil {
		return 0, err
	}
	off := start
	if p.wbuf == nil {
		p.wbuf = make([]byte, readRecs*RecSize)
	}
	for len(recs) > 0 {
		n := min(len(recs), readRecs)
		b := p.wbuf[:n*RecSize]
		for i, r := range recs[:n] {
			binary.LittleEndian.PutUint64(b[i*RecSize:], r.K)
			binary.LittleEndian.PutUint64(b[i*RecSize+8:], r.V)
		}
		if _, err := p.f.WriteAt(b, off); err != nil {
			return 0, fmt.Errorf("spill: writing %s: %w", p.f.Name(), err)
		}
		off += int64(len(b))
		recs = recs[n:]
	}
	return start, nil
}

// Iter returns the list's records in sorted order. Appending to the list
// while an Iter is in use is not allowed; several Iters may be in use at
// once.
func (l *List) Iter() *Iter {
	if !l.bufSorted {
		slices.SortFunc(l.buf, cmpRec)
		l.bufSorted = true
	}
	it := &Iter{p: l.p, seq: l.sorted}
	for _, r := range l.runs {
		it.srcs = append(it.srcs, &source{off: r.off, left: r.n})
	}
	if len(l.buf) > 0 {
		it.srcs = append(it.srcs, &source{mem: l.buf, left: int64(len(l.buf))})
	}
	if !it.seq {
		for _, s := range it.srcs {
			if it.fill(s) {
				it.heap = append(it.heap, s)
			}
		}
		for i := len(it.heap)/2 - 1; i >= 0; i-- {
			it.down(i)
		}
	}
	return it
}

// Iter is a sorted stream over a list's records.
type Iter struct {
	p     *Pool
	srcs  []*source
	seq   bool      // runs are in order: read them one after the other
	next  int       // seq: the source being read
	heap  []*source // !seq: sources with a current record, smallest first
	free  [][]Rec   // read buffers of exhausted sources, for reuse
	bytes []byte    // what ReadAt reads into
	out   []Rec     // what Chunk merges into
}

// source is a run (or the in-memory tail) being read.
type source struct {
	off  int64 // next record's file offset
	left int64 // records not yet loaded into cur
	mem  []Rec // in-memory records not yet loaded
	cur  []Rec // loaded records not yet returned
	buf  []Rec
}

// fill loads more records into s.cur; false when s is exhausted.
func (it *Iter) fill(s *source) bool {
	if len(s.cur) > 0 {
		return true
	}
	if s.left == 0 {
		if s.buf != nil {
			it.free = append(it.free, s.buf)
			s.buf = nil
		}
		return false
	}
	if s.mem != nil {
		s.cur, s.mem, s.left = s.mem, nil, 0
		return true
	}
	if it.p.err != nil {
		return false
	}
	n := int(min(s.left, readRecs))
	if s.buf == nil {
		if k := len(it.free); k > 0 && cap(it.free[k-1]) >= n {
			s.buf, it.free = it.free[k-1], it.free[:k-1]
		} else {
			// A short run gets a buffer of its length: a list of many
			// small runs must not cost a full buffer per run.
			s.buf = make([]Rec, n)
		}
	}
	if len(it.bytes) < n*RecSize {
		it.bytes = make([]byte, n*RecSize)
	}
	b := it.bytes[:n*RecSize]
	if _, err := it.p.f.ReadAt(b, s.off); err != nil && !(err == io.EOF && len(b) == n*RecSize) {
		if !errors.Is(err, errClosed) {
			err = fmt.Errorf("spill: reading %s: %w", it.p.f.Name(), err)
		}
		it.p.err = err
		return false
	}
	for i := range n {
		s.buf[:n][i] = Rec{binary.LittleEndian.Uint64(b[i*RecSize:]), binary.LittleEndian.Uint64(b[i*RecSize+8:])}
	}
	s.cur = s.buf[:n]
	s.off += int64(n) * RecSize
	s.left -= int64(n)
	return true
}

// Chunk returns the next records in order, at least one, or none at the
// end. The slice is valid until the next call.
func (it *Iter) Chunk() []Rec {
	if it.seq {
		for it.next < len(it.srcs) {
			s := it.srcs[it.next]
			if len(s.cur) > 0 || it.fill(s) {
				c := s.cur
				s.cur = nil
				return c
			}
			it.next++
		}
		return nil
	}
	if it.out == nil {
		it.out = make([]Rec, 0, 1024)
	}
	out := it.out[:0]
	for len(out) < cap(out) {
		r, ok := it.Next()
		if !ok {
			break
		}
		out = append(out, r)
	}
	return out
}

// Next returns the next record in order; false at the end.
func (it *Iter) Next() (Rec, bool) {
	if it.seq {
		for it.next < len(it.srcs) {
			s := it.srcs[it.next]
			if len(s.cur) > 0 || it.fill(s) {
				r := s.cur[0]
				s.cur = s.cur[1:]
				return r, true
			}
			it.next++
		}
		return Rec{}, false
	}
	if len(it.heap) == 0 {
		return Rec{}, false
	}
	s := it.heap[0]
	r := s.cur[0]
	s.cur = s.cur[1:]
	if !it.fill(s) {
		last := len(it.heap) - 1
		it.heap[0] = it.heap[last]
		it.heap = it.heap[:last]
	}
	if len(it.heap) > 1 {
		it.down(0)
	}
	return r, true
}

func (it *Iter) down(i int) {
	h := it.heap
	for {
		c := 2*i + 1
		if c >= len(h) {
			return
		}
		if c+1 < len(h) && h[c+1].cur[0].less(h[c].cur[0]) {
			c++
		}
		if !h[c].cur[0].less(h[i].cur[0]) {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}

// Release frees the list's buffer (its runs stay in the file, unread); the
// list must not be used afterwards.
func (l *List) Release() {
	l.p.held -= int64(cap(l.buf)) * RecSize
	l.buf, l.runs, l.n = nil, nil, 0
}

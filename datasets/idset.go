package datasets

import (
	"bufio"
	"bytes"
	"container/heap"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"io"
	"math/bits"
	"slices"
	"sort"

	"github.com/apeval/apeval/internal/spill"
)

// DefaultMaxIDsInMemory is how many ids the duplicate-id check keeps in
// memory at most (see Reader.MaxIDsInMemory): about 25 MB of ids of ten
// bytes. A dataset with no more cases is checked entirely in memory.
const DefaultMaxIDsInMemory = 1 << 20

// idSet is the exact duplicate-id check, in bounded memory. It keeps the
// ids of the current chunk (up to max of them) in an exact hash set — the
// bytes decide on a hash hit, so distinct ids never collide — and finds a
// duplicate within the chunk at once, with the record ordinal of the id's
// first occurrence in the chunk. When the chunk is full its (id, ordinal)
// pairs are sorted by id and written as a run to one temporary file
// (unlinked at once where the system allows it, else removed by close),
// and a new chunk starts. A duplicate whose two records are in different
// chunks is found at the end of the input by merging the runs (late): see
// next.
//
// Memory: per id in the chunk, its bytes + 16 bytes (end offset, ordinal,
// two to four hash slots), so at most max × (16 + id length) bytes
// whatever the dataset's size (a chunk is sorted in its hash slots). Disk: per id, its bytes beyond the prefix it shares with
// the previous id of its run, + 2 to 3 bytes of lengths and 4 of ordinal.
type idSet struct {
	max  int                 // ids per chunk (0: DefaultMaxIDsInMemory)
	hash func(string) uint64 // nil: maphash with seed (tests force collisions)
	seed maphash.Seed

	// slots is the open-addressing table: 0 is empty, else the low idxBits
	// bits hold 1 + the id's index into ends/ords and the bits above them
	// the top bits of its hash, a tag that spares the byte comparison (and
	// its cache misses) for nearly every other id met on the probe.
	slots   []uint32
	idxBits uint     // bits of a slot that hold the index: enough for max ids
	limit   int      // ids per chunk, resolved from max
	arena   []byte   // the chunk's ids, one after the other
	ends    []uint32 // end of id i in arena (the arena stays under max × id length)
	ords    []uint32 // record ordinal of id i

	file  *spill.File   // the runs, one after the other; nil until the first spill
	w     *bufio.Writer // over the run being written
	runs  []run
	merge *merger // the end-of-input merge, once started
	prev  []byte  // the previous id written to the current run

	touched uint32 // see prefetch
}

// run is one sorted chunk in the temporary file.
type run struct{ off, size int64 }

func (s *idSet) sum(id string) uint64 {
	if s.hash != nil {
		return s.hash(id)
	}
	return maphash.String(s.seed, id)
}

func (s *idSet) bytes(i uint32) []byte {
	start := uint32(0)
	if i > 0 {
		start = s.ends[i-1]
	}
	return s.arena[start:s.ends[i]]
}

// add records id for record ordinal ord. If id is already in the current
// chunk it returns that record's ordinal and true, and records nothing.
// err is a failure to write a full chunk to the temporary file.
func (s *idSet) add(id string, ord uint32) (first uint32, dup bool, err error) {
	s.init()
	return s.addSum(id, s.sum(id), ord)
}

// prefetch reads the table's slots for the hashes h of ids about to be
// added, all at once: the reads do not depend on one another, so the
// processor overlaps their cache misses, where add, one id at a time,
// waited for each (a third of the check's time at a million ids).
func (s *idSet) prefetch(h []uint64) {
	s.init()
	mask := uint64(len(s.slots) - 1)
	var x uint32
	for _, v := range h {
		x ^= s.slots[v&mask]
	}
	s.touched = x // kept, so the reads are not optimized away
}

// addSum is add for an id whose hash (s.sum) is h.
func (s *idSet) addSum(id string, h uint64, ord uint32) (first uint32, dup bool, err error) {
	s.init()
	tag, idx := s.tag(h), s.idxMask()
	mask := uint64(len(s.slots) - 1)
	p := h & mask
	for ; s.slots[p] != 0; p = (p + 1) & mask {
		v := s.slots[p]
		if v&^idx != tag {
			continue // a different hash, so a different id
		}
		if i := v&idx - 1; string(s.bytes(i)) == id { // compared in place, no allocation
			return s.ords[i], true, nil
		}
	}
	s.arena = append(s.arena, id...)
	s.ends = append(s.ends, uint32(len(s.arena)))
	s.ords = append(s.ords, ord)
	s.slots[p] = tag | uint32(len(s.ends))
	if 2*len(s.ends) > len(s.slots) {
		s.grow()
	}
	// A chunk also ends before its arena outgrows uint32 offsets.
	if len(s.ends) >= s.limit || len(s.arena) > 1<<31 {
		return 0, false, s.spill()
	}
	return 0, false, nil
}

func (s *idSet) init() {
	if s.slots != nil {
		return
	}
	s.seed = maphash.MakeSeed()
	s.slots = make([]uint32, 1024)
	s.limit = s.max
	if s.limit <= 0 {
		s.limit = DefaultMaxIDsInMemory
	}
	s.idxBits = min(32, uint(bits.Len(uint(s.limit))))
}

// reserve sizes the still empty set for n ids (at most a chunk's worth),
// so that it does not grow its way up to them: each doubling rehashes
// every id so far. A guess too low only leaves the rest to growth.
func (s *idSet) reserve(n int) {
	s.init()
	n = min(n, s.limit)
	if len(s.ends) > 0 || s.file != nil || n <= 0 {
		return
	}
	size := len(s.slots)
	for size < 2*n {
		size *= 2
	}
	if size > len(s.slots) {
		s.slots = make([]uint32, size)
	}
	s.ends = make([]uint32, 0, n)
	s.ords = make([]uint32, 0, n)
}

// tag is the part of a slot that comes from hash h: its top 32 - idxBits
// bits (none when the index takes the whole slot).
func (s *idSet) tag(h uint64) uint32 {
	if s.idxBits >= 32 {
		return 0
	}
	return uint32(h>>(32+s.idxBits)) << s.idxBits
}

// idxMask selects the index part of a slot.
func (s *idSet) idxMask() uint32 { return uint32(1<<s.idxBits - 1) }

// grow doubles the table. A slot keeps its value (index and tag); only its
// position is recomputed from the id's hash.
func (s *idSet) grow() {
	slots := make([]uint32, 2*len(s.slots))
	mask := uint64(len(slots) - 1)
	idx := s.idxMask()
	for _, v := range s.slots {
		if v == 0 {
			continue
		}
		h := s.sum(string(s.bytes(v&idx-1))) & mask
		for slots[h] != 0 {
			h = (h + 1) & mask
		}
		slots[h] = v
	}
	s.slots = slots
}

// spilled reports whether any chunk went to disk, that is whether the
// end-of-input merge has anything to find.
func (s *idSet) spilled() bool { return s.file != nil }

// spill writes the current chunk as a sorted run and empties it (keeping
// its buffers for the next chunk). A run is, per id in byte order: the
// length of the prefix it shares with the previous id (uvarint), the
// length of the rest (uvarint), the rest, and the record ordinal (4 bytes,
// little-endian). After an error the idSet must not be used again (its
// slots hold the sort order).
func (s *idSet) spill() error {
	// The hash slots (at least twice as many as ids) are not needed again
	// before the chunk is emptied: they hold the sort order.
	n := len(s.ends)
	perm := s.slots[:n]
	for i := range uint32(n) {
		perm[i] = i
	}
	slices.SortFunc(perm, func(a, b uint32) int { return bytes.Compare(s.bytes(a), s.bytes(b)) })
	// The run's size first: its place in the file is reserved before it is
	// written (internal/spill's File, the one temporary file of every spill).
	var buf [2*binary.MaxVarintLen64 + 4]byte
	size, prev := int64(0), []byte(nil)
	for _, i := range perm {
		id := s.bytes(i)
		shared := commonPrefix(prev, id)
		size += int64(binary.PutUvarint(buf[:], uint64(shared)) + binary.PutUvarint(buf[:], uint64(len(id)-shared)) + len(id) - shared + 4)
		prev = id
	}
	file := s.file
	if file == nil {
		// Unlinked at once, the file disappears with the process however it
		// ends; where a system cannot remove an open file, close does.
		file = spill.NewFile("", "apeval-ids-*.tmp")
	}
	start, err := file.Reserve(size)
	if err != nil {
		return fmt.Errorf("duplicate-id check: %w", err)
	}
	if s.file == nil {
		s.file, s.w = file, bufio.NewWriterSize(nil, 256<<10)
	}
	s.w.Reset(io.NewOffsetWriter(s.file, start))
	s.prev = s.prev[:0]
	for _, i := range perm {
		id := s.bytes(i)
		shared := commonPrefix(s.prev, id)
		k := binary.PutUvarint(buf[:], uint64(shared))
		k += binary.PutUvarint(buf[k:], uint64(len(id)-shared))
		if _, err := s.w.Write(buf[:k]); err != nil {
			return s.writeErr(err)
		}
		if _, err := s.w.Write(id[shared:]); err != nil {
			return s.writeErr(err)
		}
		binary.LittleEndian.PutUint32(buf[:4], s.ords[i])
		if _, err := s.w.Write(buf[:4]); err != nil {
			return s.writeErr(err)
		}
		s.prev = append(s.prev[:0], id...)
	}
	if err := s.w.Flush(); err != nil {
		return s.writeErr(err)
	}
	s.runs = append(s.runs, run{off: start, size: size})
	s.arena, s.ends, s.ords = s.arena[:0], s.ends[:0], s.ords[:0]
	clear(s.slots)
	return nil
}

func (s *idSet) writeErr(err error) error {
	return fmt.Errorf("duplicate-id check: writing its temporary file: %w", err)
}

func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// lateDup is a duplicate found by the end-of-input merge: the record with
// ordinal ord repeats the id of the earlier record first.
type lateDup struct {
	id         string
	ord, first uint32
}

// next returns the next duplicate found by the end-of-input merge, in id
// order; ok is false when there is none left (or nothing was spilled). It
// writes the last chunk as a run first. Of the records sharing an id, the
// one with the lowest ordinal is the original and every later one a
// duplicate of it, except that a duplicate already reported within its
// chunk is not reported again (its chunk kept only the first of them).
func (s *idSet) next() (d lateDup, ok bool, err error) {
	if s.file == nil {
		return lateDup{}, false, nil
	}
	if s.merge == nil {
		if len(s.ends) > 0 {
			if err := s.spill(); err != nil {
				return lateDup{}, false, err
			}
		}
		s.arena, s.ends, s.ords, s.slots = nil, nil, nil, nil
		m := &merger{}
		for i, r := range s.runs {
			rr := &runReader{idx: i, r: bufio.NewReaderSize(s.file.Section(r.off, r.size), 32<<10)}
			if err := rr.advance(); err != nil {
				return lateDup{}, false, err
			}
			if !rr.done {
				m.h = append(m.h, rr)
			}
		}
		heap.Init(&m.h)
		s.merge = m
	}
	return s.merge.next()
}

// close releases the temporary file (and removes it where it was not
// unlinked at once).
func (s *idSet) close() error {
	if s.file == nil {
		return nil
	}
	err := s.file.Close()
	s.file = nil
	return err
}

// merger merges the sorted runs.
type merger struct {
	h     runHeap
	prev  []byte // the id of the current group
	first uint32 // its lowest ordinal
	inGrp bool
}

func (m *merger) next() (lateDup, bool, error) {
	for len(m.h) > 0 {
		rr := m.h[0]
		var d lateDup
		dup := m.inGrp && bytes.Equal(rr.id, m.prev)
		if dup {
			d = lateDup{id: string(rr.id), ord: rr.ord, first: m.first}
		} else {
			m.prev, m.first, m.inGrp = append(m.prev[:0], rr.id...), rr.ord, true
		}
		if err := rr.advance(); err != nil {
			return lateDup{}, false, err
		}
		if rr.done {
			heap.Pop(&m.h)
		} else {
			heap.Fix(&m.h, 0)
		}
		if dup {
			return d, true, nil
		}
	}
	return lateDup{}, false, nil
}

// runReader reads one run back.
type runReader struct {
	idx  int // run index: runs are in ordinal order, so it breaks ties
	r    *bufio.Reader
	id   []byte
	ord  uint32
	done bool
}

func (rr *runReader) advance() error {
	shared, err := binary.ReadUvarint(rr.r)
	if err == io.EOF {
		rr.done = true
		return nil
	}
	if err != nil {
		return rr.corrupt(err)
	}
	rest, err := binary.ReadUvarint(rr.r)
	if err != nil || shared > uint64(len(rr.id)) || rest > 1<<31 {
		return rr.corrupt(err)
	}
	rr.id = rr.id[:shared]
	rr.id = slices.Grow(rr.id, int(rest))[:int(shared)+int(rest)]
	var ord [4]byte
	if _, err := io.ReadFull(rr.r, rr.id[shared:]); err != nil {
		return rr.corrupt(err)
	}
	if _, err := io.ReadFull(rr.r, ord[:]); err != nil {
		return rr.corrupt(err)
	}
	rr.ord = binary.LittleEndian.Uint32(ord[:])
	return nil
}

func (rr *runReader) corrupt(err error) error {
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("duplicate-id check: reading its temporary file back: %w", err)
}

type runHeap []*runReader

func (h runHeap) Len() int { return len(h) }
func (h runHeap) Less(i, j int) bool {
	if c := bytes.Compare(h[i].id, h[j].id); c != 0 {
		return c < 0
	}
	return h[i].idx < h[j].idx
}
func (h runHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *runHeap) Push(x any)   { *h = append(*h, x.(*runReader)) }
func (h *runHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// positions maps record ordinals (0-based, across all files) back to
// file:line for messages. Blank lines make line numbers drift from record
// numbers; only the points where the drift changes are stored.
type positions struct {
	files []filePos
}

type filePos struct {
	idx   int    // index into Reader.files
	start uint32 // ordinal of the file's first record
	// shifts: from record seq (1-based in the file) on, line = seq + extra.
	shifts []shift
}

type shift struct{ seq, extra uint32 }

// note records that record ord is line `line`, record `seq` of file idx.
// Records must be noted in order.
func (p *positions) note(ord uint32, idx, line int, seq int64) {
	if n := len(p.files); n == 0 || p.files[n-1].idx != idx {
		p.files = append(p.files, filePos{idx: idx, start: ord})
	}
	f := &p.files[len(p.files)-1]
	extra := uint32(int64(line) - seq)
	cur := uint32(0)
	if n := len(f.shifts); n > 0 {
		cur = f.shifts[n-1].extra
	}
	if extra != cur {
		f.shifts = append(f.shifts, shift{seq: uint32(seq), extra: extra})
	}
}

// find returns the file index and line of record ord.
func (p *positions) find(ord uint32) (idx, line int) {
	i := sort.Search(len(p.files), func(i int) bool { return p.files[i].start > ord }) - 1
	f := &p.files[i]
	seq := ord - f.start + 1
	extra := uint32(0)
	if j := sort.Search(len(f.shifts), func(j int) bool { return f.shifts[j].seq > seq }) - 1; j >= 0 {
		extra = f.shifts[j].extra
	}
	return f.idx, int(seq + extra)
}

// IDSet is the duplicate-id check of the Reader for other ids (replay uses
// it for the sessions of grouped files: a session that appears again after
// another session broke the file's promise): exact, with at most max ids in
// memory (0: DefaultMaxIDsInMemory) and the rest in sorted runs in a
// temporary file in os.TempDir, merged by Late at the end.
type IDSet struct{ s idSet }

// NewIDSet returns an empty IDSet holding at most max ids in memory.
func NewIDSet(max int) *IDSet { return &IDSet{s: idSet{max: max}} }

// Add records id with the caller's ordinal ord. dup reports that id is in
// the current chunk already (first: the ordinal given then); a repeat of an
// id of an earlier chunk is found only by Late. err is a failure to write a
// full chunk to disk.
func (s *IDSet) Add(id string, ord uint32) (first uint32, dup bool, err error) {
	return s.s.add(id, ord)
}

// Late returns the first repeat between chunks, once every id was added:
// the ordinals of the repeat and of the id's first occurrence; ok false
// when there is none.
func (s *IDSet) Late() (id string, ord, first uint32, ok bool, err error) {
	d, ok, err := s.s.next()
	return d.id, d.ord, d.first, ok, err
}

// Close releases the temporary file.
func (s *IDSet) Close() error { return s.s.close() }

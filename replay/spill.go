package replay

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"
	"slices"

	"github.com/apeval/apeval/internal/spill"
)

// Spilled session state (see session.go and docs/scale.md, "Memory"). The
// reader keeps at most sessionsInMemory sessions of files without the
// grouped marker in memory; when the table is full, the sessions idle
// longest go to a sorted run on disk, and their workers, told through the
// block that follows, write their counters beside it. A session that comes
// back is read from the newest run that has it and re-enters memory with
// its exact state. Everything goes to one temporary file per Run.

// newSpillFile is a Run's one temporary file of spilled session state
// (internal/spill's File): the reader's runs and the workers' counter
// segments, each written once at an offset it reserves, read back with
// ReadAt. It is created at the first reservation.
func newSpillFile() *spill.File { return spill.NewFile("", "apeval-sessions-*.tmp") }

// reserve returns an offset of f where n bytes may be written.
func reserve(f *spill.File, n int) (int64, error) {
	off, err := f.Reserve(int64(n))
	if err != nil {
		return 0, fmt.Errorf("replay: session state: %w", err)
	}
	return off, nil
}

func spillErr(err error) error {
	return fmt.Errorf("replay: session state on disk: %w", err)
}

// bloom is a split-block Bloom filter (Parquet's: 8 bits per key, one in
// each 32-bit word of a 32-byte block) over the hashes of evicted session
// ids: a new session costs one cache line and, unless the filter errs
// (rarely: see bloomBitsPerKey), no disk read. It only ever says "maybe".
type bloom struct {
	blocks [][8]uint32
	keys   int // hashes added
	cap    int // keys it was sized for
}

// bloomBitsPerKey is the filter's size per key when it is rebuilt for
// more keys; it is rebuilt at bloomGrowth times the keys so far when they
// outgrow it, so it holds between bloomBitsPerKey and bloomGrowth times as
// many bits per key (≈ 0.5 % to 0.03 % false positives).
const (
	bloomBitsPerKey = 12
	bloomGrowth     = 1.5
)

var bloomSalt = [8]uint32{0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d, 0x705495c7, 0x2df1424b, 0x9efc4947, 0x5c6bfb31}

func newBloom(capacity int) bloom {
	n := max(1, capacity*bloomBitsPerKey/256)
	return bloom{blocks: make([][8]uint32, n), cap: capacity}
}

func (b *bloom) block(h uint64) *[8]uint32 {
	hi, _ := bits.Mul64(h, uint64(len(b.blocks)))
	return &b.blocks[hi]
}

func (b *bloom) add(h uint64) {
	blk, x := b.block(h), uint32(h>>32)
	for i, s := range bloomSalt {
		blk[i] |= 1 << ((x * s) >> 27)
	}
	b.keys++
}

func (b *bloom) has(h uint64) bool {
	if len(b.blocks) == 0 {
		return false
	}
	blk, x := b.block(h), uint32(h>>32)
	for i, s := range bloomSalt {
		if blk[i]&(1<<((x*s)>>27)) == 0 {
			return false
		}
	}
	return true
}

// sessRecord is the reader's state of a spilled session.
type sessRecord struct {
	h    uint64
	last int64
	g    uint32
	w    uint16
}

// recHeader is a record's fixed part on disk: hash, last seq, ordinal,
// worker (little-endian), then the id's length (uvarint) and the id.
const recHeader = 8 + 8 + 4 + 2

// sparseEvery is how many records of a run share one entry of its
// in-memory index.
const sparseEvery = 64

// sessRun is one sorted run of evicted sessions, by (hash, id).
type sessRun struct {
	off, size int64    // the records
	hashOff   int64    // then the n hashes (for rebuilding the filter)
	n         int      // records
	sparse    []uint64 // hash of records 0, sparseEvery, 2·sparseEvery, …
	sparseOff []uint32 // their offsets within the run
}

// sessionRuns is the reader's spilled sessions: the runs, newest last, and
// the filter over their ids.
type sessionRuns struct {
	file  *spill.File
	runs  []sessRun
	bloom bloom
	buf   []byte
}

// write writes the sessions ents[i] for i in order (sorted by hash, then
// id; idOf gives entry i's id) as a new run; its index is the eviction's
// epoch.
func (s *sessionRuns) write(ents []hotEntry, order []uint32, idOf func(int) []byte) error {
	size := 0
	var tmp [recHeader + binary.MaxVarintLen64]byte
	for _, i := range order {
		n := len(idOf(int(i)))
		size += recHeader + binary.PutUvarint(tmp[:], uint64(n)) + n
	}
	off, err := reserve(s.file, size+8*len(order))
	if err != nil {
		return err
	}
	run := sessRun{off: off, size: int64(size), hashOff: off + int64(size), n: len(order)}
	w := bufio.NewWriterSize(io.NewOffsetWriter(s.file, off), 64<<10)
	pos := 0
	for k, i := range order {
		r, id := &ents[i], idOf(int(i))
		if k%sparseEvery == 0 {
			run.sparse = append(run.sparse, r.h)
			run.sparseOff = append(run.sparseOff, uint32(pos))
		}
		binary.LittleEndian.PutUint64(tmp[0:], r.h)
		binary.LittleEndian.PutUint64(tmp[8:], uint64(r.last))
		binary.LittleEndian.PutUint32(tmp[16:], r.g)
		binary.LittleEndian.PutUint16(tmp[20:], r.w)
		n := recHeader + binary.PutUvarint(tmp[recHeader:], uint64(len(id)))
		if _, err := w.Write(tmp[:n]); err != nil {
			return spillErr(err)
		}
		if _, err := w.Write(id); err != nil {
			return spillErr(err)
		}
		pos += n + len(id)
	}
	for _, i := range order {
		binary.LittleEndian.PutUint64(tmp[:8], ents[i].h)
		if _, err := w.Write(tmp[:8]); err != nil {
			return spillErr(err)
		}
	}
	if err := w.Flush(); err != nil {
		return spillErr(err)
	}
	s.runs = append(s.runs, run)
	if s.bloom.keys+len(order) > s.bloom.cap {
		return s.rebuild(len(order))
	}
	for _, i := range order {
		s.bloom.add(ents[i].h)
	}
	return nil
}

// rebuild sizes the filter anew for the keys of every run (the newest
// holding extra of them not yet added), reading the runs' hashes back.
func (s *sessionRuns) rebuild(extra int) error {
	keys := s.bloom.keys + extra
	s.bloom = bloom{} // the old filter is dropped before the new one exists
	s.bloom = newBloom(max(int(float64(keys)*bloomGrowth), 1024))
	for _, run := range s.runs {
		r := bufio.NewReaderSize(s.file.Section(run.hashOff, 8*int64(run.n)), 64<<10)
		var b [8]byte
		for range run.n {
			if _, err := io.ReadFull(r, b[:]); err != nil {
				return spillErr(err)
			}
			s.bloom.add(binary.LittleEndian.Uint64(b[:]))
		}
	}
	return nil
}

// find returns the state of the spilled session id (hash h) from the
// newest run that has it, and that run's index; ok false when no run has
// it. The bytes decide: a hash only says where to look.
func (s *sessionRuns) find(id string, h uint64) (rec sessRecord, epoch int, ok bool, err error) {
	if !s.bloom.has(h) {
		return sessRecord{}, 0, false, nil
	}
	for i := len(s.runs) - 1; i >= 0; i-- {
		rec, ok, err := s.findIn(&s.runs[i], id, h)
		if err != nil || ok {
			return rec, i, ok, err
		}
	}
	return sessRecord{}, 0, false, nil
}

func (s *sessionRuns) findIn(run *sessRun, id string, h uint64) (sessRecord, bool, error) {
	// The block before the first sparse entry with a hash ≥ h is where
	// records with hash h may begin.
	k, _ := slices.BinarySearch(run.sparse, h)
	k = max(k-1, 0)
	for ; k < len(run.sparse); k++ {
		end := run.size
		if k+1 < len(run.sparse) {
			end = int64(run.sparseOff[k+1])
		}
		start := int64(run.sparseOff[k])
		s.buf = slices.Grow(s.buf[:0], int(end-start))[:end-start]
		if _, err := s.file.ReadAt(s.buf, run.off+start); err != nil {
			return sessRecord{}, false, spillErr(err)
		}
		for b := s.buf; len(b) > 0; {
			if len(b) < recHeader {
				return sessRecord{}, false, spillErr(io.ErrUnexpectedEOF)
			}
			rh := binary.LittleEndian.Uint64(b)
			n, k := binary.Uvarint(b[recHeader:])
			if k <= 0 || uint64(len(b)-recHeader-k) < n {
				return sessRecord{}, false, spillErr(io.ErrUnexpectedEOF)
			}
			rid := b[recHeader+k : recHeader+k+int(n)]
			if rh > h {
				return sessRecord{}, false, nil
			}
			if rh == h && string(rid) == id {
				return sessRecord{h: rh, last: int64(binary.LittleEndian.Uint64(b[8:])),
					g: binary.LittleEndian.Uint32(b[16:]), w: binary.LittleEndian.Uint16(b[20:])}, true, nil
			}
			b = b[recHeader+k+int(n):]
		}
	}
	return sessRecord{}, false, nil
}

// notice tells a worker about one of its sessions: evicted (its counters
// go to disk, its slot is free) or reloaded (its counters come back from
// the segment of the eviction epoch).
type notice struct {
	slot, g, epoch uint32
}

// counterSeg is one worker's counters of the sessions it evicted in one
// epoch (those that had counters), sorted by session ordinal: records of
// the ordinal (uint32) and the k counters (int32), little-endian.
type counterSeg struct {
	epoch  uint32
	off    int64
	n      int
	sparse []uint32 // ordinal of records 0, segEvery, …
}

const segEvery = 128

// evict moves the counters of the sessions in notes (all of one epoch) to
// disk and frees their slots' blocks.
func (e *replayer) evict(notes []notice) error {
	type rec struct {
		g     uint32
		block uint32
	}
	var recs []rec
	for _, n := range notes {
		if int(n.slot) >= e.blocks.n {
			continue // no case of the session reached this worker
		}
		p := e.blocks.at(n.slot)
		if *p != 0 {
			recs = append(recs, rec{n.g, *p})
		}
		*p = 0
	}
	if len(recs) == 0 {
		return nil
	}
	slices.SortFunc(recs, func(a, b rec) int { return cmp.Compare(a.g, b.g) })
	k := e.arena.k
	size := 4 * (1 + k)
	buf := make([]byte, size*len(recs))
	seg := counterSeg{epoch: notes[0].epoch, n: len(recs)}
	for i, r := range recs {
		if i%segEvery == 0 {
			seg.sparse = append(seg.sparse, r.g)
		}
		b := buf[i*size:]
		binary.LittleEndian.PutUint32(b, r.g)
		cs := e.arena.get(r.block)
		for j, v := range cs {
			binary.LittleEndian.PutUint32(b[4+4*j:], uint32(v))
		}
		clear(cs)
		e.freeBlocks = append(e.freeBlocks, r.block)
	}
	off, err := reserve(e.spill, len(buf))
	if err != nil {
		return err
	}
	if _, err := e.spill.WriteAt(buf, off); err != nil {
		return spillErr(err)
	}
	seg.off = off
	e.segs = append(e.segs, seg)
	return nil
}

// reload gives a session that came back its counters from the segment of
// the epoch that evicted it last (none: it had none).
func (e *replayer) reload(n notice) error {
	for e.blocks.n <= int(n.slot) {
		e.blocks.add(0)
	}
	i, ok := slices.BinarySearchFunc(e.segs, n.epoch, func(s counterSeg, ep uint32) int { return cmp.Compare(s.epoch, ep) })
	if !ok {
		return nil
	}
	seg := &e.segs[i]
	j, found := slices.BinarySearch(seg.sparse, n.g)
	if !found {
		j--
	}
	if j < 0 {
		return nil
	}
	k := e.arena.k
	size := 4 * (1 + k)
	cnt := min(segEvery, seg.n-j*segEvery)
	buf := make([]byte, size*cnt)
	if _, err := e.spill.ReadAt(buf, seg.off+int64(j*segEvery*size)); err != nil {
		return spillErr(err)
	}
	for r := range cnt {
		b := buf[r*size:]
		if binary.LittleEndian.Uint32(b) != n.g {
			continue
		}
		blk := e.allocBlock()
		cs := e.arena.get(blk)
		for c := range cs {
			cs[c] = int32(binary.LittleEndian.Uint32(b[4+4*c:]))
		}
		*e.blocks.at(n.slot) = blk
		return nil
	}
	return nil
}

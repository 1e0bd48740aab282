package datasets

import (
	"math/bits"
	"sort"
)

// idSet remembers the ids seen so far for the duplicate check without
// keeping the strings: a 64-bit hash and the 32-bit record ordinal of its
// first occurrence per id, in an open-addressing table (12 bytes a slot,
// grown by half when 80 % full; about 20 MB for a million ids, where a Go
// map of the same pairs takes three times that once the GC's headroom is
// counted).
type idSet struct {
	keys []uint64 // 0 marks an empty slot; a zero hash is stored as 1
	ords []uint32
	n    int
}

// add records hash h for record ordinal ord. If h was seen before it
// returns the first ordinal and true, and records nothing.
func (s *idSet) add(h uint64, ord uint32) (first uint32, dup bool) {
	if h == 0 {
		h = 1
	}
	if s.n+1 > len(s.keys)*4/5 {
		s.grow()
	}
	for i := s.slot(h); ; i++ {
		if i == len(s.keys) {
			i = 0
		}
		switch s.keys[i] {
		case 0:
			s.keys[i], s.ords[i] = h, ord
			s.n++
			return 0, false
		case h:
			return s.ords[i], true
		}
	}
}

// slot maps a hash onto [0, len(keys)) without a power-of-two size.
func (s *idSet) slot(h uint64) int {
	hi, _ := bits.Mul64(h, uint64(len(s.keys)))
	return int(hi)
}

func (s *idSet) grow() {
	size := max(1024, len(s.keys)*3/2)
	old, oldOrds := s.keys, s.ords
	s.keys, s.ords = make([]uint64, size), make([]uint32, size)
	for j, h := range old {
		if h == 0 {
			continue
		}
		i := s.slot(h)
		for s.keys[i] != 0 {
			if i++; i == len(s.keys) {
				i = 0
			}
		}
		s.keys[i], s.ords[i] = h, oldOrds[j]
	}
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

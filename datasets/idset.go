package datasets

import (
	"sort"

	"github.com/apeval/apeval/internal/intern"
)

// idSet remembers the ids seen so far for the duplicate check, exactly:
// an intern.Table (the bytes decide on a hash hit, so distinct ids never
// collide) and, per distinct id, the record ordinal of its first occurrence
// for the message. About 16 bytes per case plus the id's length.
type idSet struct {
	ids   *intern.Table
	first []uint32 // by id ordinal
}

// add records id for record ordinal ord. If id was seen before it returns
// the first ordinal and true, and records nothing.
func (s *idSet) add(id string, ord uint32) (first uint32, dup bool) {
	if s.ids == nil {
		s.ids = intern.New()
	}
	i, added := s.ids.Add(id)
	if !added {
		return s.first[i], true
	}
	s.first = append(s.first, ord)
	return 0, false
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

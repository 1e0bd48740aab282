// Package intern gives strings dense ordinals, exactly: a hash finds the
// candidate slots and the bytes decide, so two distinct strings never share
// an ordinal however their hashes collide. It is the one identity table of
// apeval for what must stay in memory: the sessions of replay, of metrics
// and of the dataset statistics, and the case ids of metrics when it reads
// several runs (report, merge, compare). The dataset Reader's duplicate-id
// check keeps ids in bounded chunks of its own (datasets/idset.go), and
// apeval run numbers its cases without a table (metrics.Config.DistinctCases).
//
// Strings live in one byte arena and the table is open addressing over
// ordinals: about 12 bytes per string plus its length (slots at most half
// full), and no allocation per lookup once the arena has grown.
package intern

import (
	"hash/maphash"
	"math"
)

// Table maps strings to ordinals 0, 1, 2, … in order of first sight. The
// zero Table is not ready; use New. A Table is not safe for concurrent use.
type Table struct {
	seed  maphash.Seed
	hash  func(string) uint64 // nil: maphash with seed
	slots []uint32            // ordinal+1; 0 = empty
	arena []byte
	ends  []uint32 // ends[i] = end of string i in arena, while the arena is under 4 GiB
	wide  []int    // ends, once the arena has outgrown uint32 (nil until then)
}

// maxNarrowEnd is the largest arena offset ends holds (a variable so that
// tests can reach the wide form).
var maxNarrowEnd = math.MaxUint32

// New returns an empty Table.
func New() *Table {
	return &Table{seed: maphash.MakeSeed(), slots: make([]uint32, 1024)}
}

// NewHashed returns an empty Table that places strings by h instead of a
// seeded maphash. It exists for tests that force collisions (a constant h
// puts every string in one probe chain); the table stays exact.
func NewHashed(h func(string) uint64) *Table {
	t := New()
	t.hash = h
	return t
}

func (t *Table) sum(s string) uint64 {
	if t.hash != nil {
		return t.hash(s)
	}
	return maphash.String(t.seed, s)
}

func (t *Table) end(i uint32) int {
	if t.wide != nil {
		return t.wide[i]
	}
	return int(t.ends[i])
}

func (t *Table) bytes(i uint32) []byte {
	start := 0
	if i > 0 {
		start = t.end(i - 1)
	}
	return t.arena[start:t.end(i)]
}

// String returns the string of ordinal i.
func (t *Table) String(i uint32) string { return string(t.bytes(i)) }

// ID returns s's ordinal, assigning the next one on first sight.
func (t *Table) ID(s string) uint32 {
	ord, _ := t.Add(s)
	return ord
}

// Add returns s's ordinal and whether s was new (assigned just now).
func (t *Table) Add(s string) (ord uint32, added bool) {
	mask := uint64(len(t.slots) - 1)
	for h := t.sum(s) & mask; ; h = (h + 1) & mask {
		v := t.slots[h]
		if v == 0 {
			ord := uint32(t.Len())
			t.arena = append(t.arena, s...)
			t.appendEnd(len(t.arena))
			t.slots[h] = ord + 1
			if 2*t.Len() > len(t.slots) {
				t.grow()
			}
			return ord, true
		}
		if string(t.bytes(v-1)) == s { // compared in place, no allocation
			return v - 1, false
		}
	}
}

// Lookup returns s's ordinal without assigning one.
func (t *Table) Lookup(s string) (ord uint32, ok bool) {
	mask := uint64(len(t.slots) - 1)
	for h := t.sum(s) & mask; ; h = (h + 1) & mask {
		v := t.slots[h]
		if v == 0 {
			return 0, false
		}
		if string(t.bytes(v-1)) == s {
			return v - 1, true
		}
	}
}

func (t *Table) appendEnd(end int) {
	if t.wide == nil && end > maxNarrowEnd {
		t.wide = make([]int, len(t.ends), len(t.ends)+1)
		for i, e := range t.ends {
			t.wide[i] = int(e)
		}
		t.ends = nil
	}
	if t.wide != nil {
		t.wide = append(t.wide, end)
		return
	}
	t.ends = append(t.ends, uint32(end))
}

func (t *Table) grow() {
	slots := make([]uint32, 2*len(t.slots))
	mask := uint64(len(slots) - 1)
	for i := range t.Len() {
		h := t.sum(string(t.bytes(uint32(i)))) & mask
		for slots[h] != 0 {
			h = (h + 1) & mask
		}
		slots[h] = uint32(i) + 1
	}
	t.slots = slots
}

// Len returns the number of distinct strings.
func (t *Table) Len() int {
	if t.wide != nil {
		return len(t.wide)
	}
	return len(t.ends)
}

package metrics

import (
	"hash/maphash"
	"math"
)

// interner gives every distinct case ID a dense ordinal on first sight, so
// per-rule paired data can be stored as packed uint32s instead of string
// keys. IDs live in one byte arena and the table is open addressing over
// ordinals: about 17 bytes per case plus the ID's length, and no
// allocation per lookup once the arena has grown.
type interner struct {
	seed  maphash.Seed
	slots []uint32 // ordinal+1; 0 = empty
	arena []byte
	ends  []uint32 // ends[i] = end of ID i in arena, while the arena is under 4 GiB
	wide  []int    // ends, once the arena has outgrown uint32 (nil until then)
}

// maxNarrowEnd is the largest arena offset ends holds (a variable so that
// tests can reach the wide form).
var maxNarrowEnd = math.MaxUint32

func newInterner() *interner {
	return &interner{seed: maphash.MakeSeed(), slots: make([]uint32, 1024)}
}

func (t *interner) end(i uint32) int {
	if t.wide != nil {
		return t.wide[i]
	}
	return int(t.ends[i])
}

func (t *interner) bytes(i uint32) []byte {
	start := 0
	if i > 0 {
		start = t.end(i - 1)
	}
	return t.arena[start:t.end(i)]
}

func (t *interner) str(i uint32) string { return string(t.bytes(i)) }

func (t *interner) equal(i uint32, s string) bool {
	return string(t.bytes(i)) == s // no allocation: compared in place
}

// id returns s's ordinal, assigning the next one on first sight.
func (t *interner) id(s string) uint32 {
	mask := uint64(len(t.slots) - 1)
	for h := maphash.String(t.seed, s) & mask; ; h = (h + 1) & mask {
		v := t.slots[h]
		if v == 0 {
			ord := uint32(t.len())
			t.arena = append(t.arena, s...)
			t.appendEnd(len(t.arena))
			t.slots[h] = ord + 1
			if 2*t.len() > len(t.slots) {
				t.grow()
			}
			return ord
		}
		if t.equal(v-1, s) {
			return v - 1
		}
	}
}

func (t *interner) appendEnd(end int) {
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

func (t *interner) grow() {
	slots := make([]uint32, 2*len(t.slots))
	mask := uint64(len(slots) - 1)
	for i := range t.len() {
		h := maphash.Bytes(t.seed, t.bytes(uint32(i))) & mask
		for slots[h] != 0 {
			h = (h + 1) & mask
		}
		slots[h] = uint32(i) + 1
	}
	t.slots = slots
}

func (t *interner) len() int {
	if t.wide != nil {
		return len(t.wide)
	}
	return len(t.ends)
}

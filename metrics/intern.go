package metrics

import "hash/maphash"

// interner gives every distinct case ID a dense ordinal on first sight, so
// per-rule paired data can be stored as packed uint32s instead of string
// keys. IDs live in one byte arena and the table is open addressing over
// ordinals: about 20 bytes per case plus the ID's length, and no allocation
// per lookup once the arena has grown.
type interner struct {
	seed  maphash.Seed
	slots []uint32 // ordinal+1; 0 = empty
	arena []byte
	ends  []int // ends[i] = end of ID i in arena
}

func newInterner() *interner {
	return &interner{seed: maphash.MakeSeed(), slots: make([]uint32, 1024)}
}

func (t *interner) str(i uint32) string {
	start := 0
	if i > 0 {
		start = t.ends[i-1]
	}
	return string(t.arena[start:t.ends[i]])
}

func (t *interner) equal(i uint32, s string) bool {
	start := 0
	if i > 0 {
		start = t.ends[i-1]
	}
	return string(t.arena[start:t.ends[i]]) == s // no allocation: compared in place
}

// id returns s's ordinal, assigning the next one on first sight.
func (t *interner) id(s string) uint32 {
	mask := uint64(len(t.slots) - 1)
	for h := maphash.String(t.seed, s) & mask; ; h = (h + 1) & mask {
		v := t.slots[h]
		if v == 0 {
			ord := uint32(len(t.ends))
			t.arena = append(t.arena, s...)
			t.ends = append(t.ends, len(t.arena))
			t.slots[h] = ord + 1
			if 2*len(t.ends) > len(t.slots) {
				t.grow()
			}
			return ord
		}
		if t.equal(v-1, s) {
			return v - 1
		}
	}
}

func (t *interner) grow() {
	slots := make([]uint32, 2*len(t.slots))
	mask := uint64(len(slots) - 1)
	start := 0
	for i, end := range t.ends {
		h := maphash.Bytes(t.seed, t.arena[start:end]) & mask
		for slots[h] != 0 {
			h = (h + 1) & mask
		}
		slots[h] = uint32(i) + 1
		start = end
	}
	t.slots = slots
}

func (t *interner) len() int { return len(t.ends) }

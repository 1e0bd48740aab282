package datasets

import (
	"hash/maphash"
	"testing"
)

func TestIDSet(t *testing.T) {
	var s idSet
	seed := maphash.MakeSeed()
	const n = 200_000
	for i := range uint32(n) {
		if _, dup := s.add(maphash.Comparable(seed, i), i); dup {
			t.Fatalf("%d reported as a duplicate", i)
		}
	}
	if s.n != n || float64(s.n)/float64(len(s.keys)) > 0.8 {
		t.Fatalf("n=%d slots=%d", s.n, len(s.keys))
	}
	for _, i := range []uint32{0, 1, 777, n - 1} {
		first, dup := s.add(maphash.Comparable(seed, i), 999_999)
		if !dup || first != i {
			t.Errorf("re-adding %d: first=%d dup=%v", i, first, dup)
		}
	}
	// A zero hash is a valid key, and so is its stand-in 1: they collide by design.
	var z idSet
	if _, dup := z.add(0, 5); dup {
		t.Fatal("first zero hash reported as duplicate")
	}
	if first, dup := z.add(0, 6); !dup || first != 5 {
		t.Errorf("second zero hash: %d %v", first, dup)
	}
	// Keys landing on the same slot probe past each other, wrapping at the end.
	var c idSet
	c.grow()
	last := ^uint64(0)
	for i := range uint64(5) {
		if _, dup := c.add(last-i, uint32(i)); dup {
			t.Fatalf("colliding key %d reported as duplicate", i)
		}
	}
	for i := range uint64(5) {
		if first, dup := c.add(last-i, 9); !dup || first != uint32(i) {
			t.Errorf("colliding key %d: first=%d dup=%v", i, first, dup)
		}
	}
}

func TestPositions(t *testing.T) {
	// File 0: records on lines 1, 2, 5, 6, 9 (blank lines between);
	// file 2 (file 1 has no records): lines 3, 4.
	type rec struct {
		file, line int
		seq        int64
	}
	recs := []rec{{0, 1, 1}, {0, 2, 2}, {0, 5, 3}, {0, 6, 4}, {0, 9, 5}, {2, 3, 1}, {2, 4, 2}}
	var p positions
	for i, r := range recs {
		p.note(uint32(i), r.file, r.line, r.seq)
	}
	for i, r := range recs {
		if f, l := p.find(uint32(i)); f != r.file || l != r.line {
			t.Errorf("record %d: got %d:%d, want %d:%d", i, f, l, r.file, r.line)
		}
	}
}

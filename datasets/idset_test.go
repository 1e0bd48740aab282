package datasets

import (
	"fmt"
	"testing"

	"github.com/apeval/apeval/internal/intern"
)

// Duplicate ids are found with the ordinal of their first record, and
// distinct ids are never duplicates, even when every id hashes alike (a
// 64-bit hash alone once made a collision reject a valid line).
func TestIDSet(t *testing.T) {
	for name, s := range map[string]*idSet{
		"seeded":    {},
		"colliding": {ids: intern.NewHashed(func(string) uint64 { return 7 })},
	} {
		const n = 3000
		for i := range uint32(n) {
			if _, dup := s.add(fmt.Sprint("id-", i), i); dup {
				t.Fatalf("%s: id-%d reported as a duplicate", name, i)
			}
		}
		for _, i := range []uint32{0, 1, 777, n - 1} {
			first, dup := s.add(fmt.Sprint("id-", i), 999_999)
			if !dup || first != i {
				t.Errorf("%s: re-adding id-%d: first=%d dup=%v", name, i, first, dup)
			}
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

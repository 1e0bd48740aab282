package intern

import (
	"fmt"
	"testing"
)

// Ordinals are dense, stable across the table's growth, and map back to
// their strings.
func TestTable(t *testing.T) {
	for _, limit := range []int{maxNarrowEnd, 1000} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) { testTable(t, limit) })
	}
}

// testTable checks with ends held as uint32 up to limit, then as int.
func testTable(t *testing.T, limit int) {
	defer func(old int) { maxNarrowEnd = old }(maxNarrowEnd)
	maxNarrowEnd = limit
	in := New()
	const n = 5000 // grows the 1024-slot table three times
	for i := range n {
		if got := in.ID(fmt.Sprintf("case-%d", i)); got != uint32(i) {
			t.Fatalf("first sight of case-%d got ordinal %d", i, got)
		}
	}
	for i := n - 1; i >= 0; i-- {
		id := fmt.Sprintf("case-%d", i)
		if got := in.ID(id); got != uint32(i) {
			t.Fatalf("%s: ordinal %d after growth, want %d", id, got, i)
		}
		if s := in.String(uint32(i)); s != id {
			t.Fatalf("String(%d) = %q, want %q", i, s, id)
		}
	}
	if wide := in.wide != nil; wide != (limit < 1<<20) {
		t.Errorf("limit %d: wide ends %v", limit, wide)
	}
	if in.Len() != n || in.ID("") != n {
		t.Errorf("len %d; the empty string must get its own ordinal", in.Len())
	}
}

// Every string hashing alike (the worst collision there is) still gets its
// own ordinal: identity is decided by the bytes, not the hash.
func TestTableExactUnderCollisions(t *testing.T) {
	t.Parallel()
	in := NewHashed(func(string) uint64 { return 42 })
	for i := range 3000 {
		s := fmt.Sprint("s", i)
		ord, added := in.Add(s)
		if !added || ord != uint32(i) {
			t.Fatalf("Add(%q) = %d, %v; want %d, true", s, ord, added, i)
		}
	}
	for i := range 3000 {
		s := fmt.Sprint("s", i)
		if ord, ok := in.Lookup(s); !ok || ord != uint32(i) {
			t.Fatalf("Lookup(%q) = %d, %v", s, ord, ok)
		}
		if ord, added := in.Add(s); added || ord != uint32(i) {
			t.Fatalf("second Add(%q) = %d, %v", s, ord, added)
		}
	}
	if _, ok := in.Lookup("absent"); ok {
		t.Error("Lookup of an unseen string succeeded")
	}
}

package metrics

import (
	"fmt"
	"testing"
)

// Ordinals are dense, stable across the table's growth, and map back to
// their IDs.
func TestInterner(t *testing.T) {
	for _, limit := range []int{maxNarrowEnd, 1000} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) { testInterner(t, limit) })
	}
}

// testInterner checks with ends held as uint32 up to limit, then as int.
func testInterner(t *testing.T, limit int) {
	defer func(old int) { maxNarrowEnd = old }(maxNarrowEnd)
	maxNarrowEnd = limit
	in := newInterner()
	const n = 5000 // grows the 1024-slot table three times
	for i := range n {
		if got := in.id(fmt.Sprintf("case-%d", i)); got != uint32(i) {
			t.Fatalf("first sight of case-%d got ordinal %d", i, got)
		}
	}
	for i := n - 1; i >= 0; i-- {
		id := fmt.Sprintf("case-%d", i)
		if got := in.id(id); got != uint32(i) {
			t.Fatalf("%s: ordinal %d after growth, want %d", id, got, i)
		}
		if s := in.str(uint32(i)); s != id {
			t.Fatalf("str(%d) = %q, want %q", i, s, id)
		}
	}
	if wide := in.wide != nil; wide != (limit < 1<<20) {
		t.Errorf("limit %d: wide ends %v", limit, wide)
	}
	if in.len() != n || in.id("") != n {
		t.Errorf("len %d; the empty ID must get its own ordinal", in.len())
	}
}

package datasets

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Duplicate ids are found with the ordinal of their first record, and
// distinct ids are never duplicates, even when every id hashes alike (a
// 64-bit hash alone once made a collision reject a valid line).
func TestIDSet(t *testing.T) {
	t.Parallel()
	for name, s := range map[string]*idSet{
		"seeded":    {},
		"colliding": {hash: func(string) uint64 { return 7 }},
	} {
		const n = 3000
		for i := range uint32(n) {
			if _, dup, err := s.add(fmt.Sprint("id-", i), i); dup || err != nil {
				t.Fatalf("%s: id-%d reported as a duplicate (%v)", name, i, err)
			}
		}
		for _, i := range []uint32{0, 1, 777, n - 1} {
			first, dup, err := s.add(fmt.Sprint("id-", i), 999_999)
			if !dup || first != i || err != nil {
				t.Errorf("%s: re-adding id-%d: first=%d dup=%v err=%v", name, i, first, dup, err)
			}
		}
		if s.spilled() {
			t.Errorf("%s: %d ids went to disk, under the default chunk", name, n)
		}
	}
}

// dupReport is one duplicate as the idSet reports it.
type dupReport struct {
	ord, first uint32
	id         string
	late       bool
}

// runIDSet adds ids (record ordinal = index) to an idSet with chunks of
// max ids and returns every duplicate reported, early ones in input order
// then late ones in merge order.
func runIDSet(t testing.TB, ids []string, max int, hash func(string) uint64) []dupReport {
	t.Helper()
	s := &idSet{max: max, hash: hash}
	defer func() {
		if err := s.close(); err != nil {
			t.Fatal(err)
		}
	}()
	var got []dupReport
	for i, id := range ids {
		first, dup, err := s.add(id, uint32(i))
		if err != nil {
			t.Fatal(err)
		}
		if dup {
			got = append(got, dupReport{uint32(i), first, id, false})
		}
	}
	for {
		d, ok, err := s.next()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		got = append(got, dupReport{d.ord, d.first, d.id, true})
	}
	return got
}

// referenceDups is what runIDSet must return, computed with maps: a chunk
// holds max distinct ids; a repeat within the chunk is reported at once
// against the chunk's record of it; every other repeat of an id is reported
// at the end against the id's first record in the whole input, sorted by id
// then ordinal.
func referenceDups(ids []string, max int) []dupReport {
	var early, late []dupReport
	chunk := map[string]uint32{}
	global := map[string]uint32{}
	spilled := false
	for i, id := range ids {
		ord := uint32(i)
		if f, ok := chunk[id]; ok {
			early = append(early, dupReport{ord, f, id, false})
			continue
		}
		chunk[id] = ord
		if f, ok := global[id]; ok {
			late = append(late, dupReport{ord, f, id, true})
		} else {
			global[id] = ord
		}
		if len(chunk) >= max {
			chunk, spilled = map[string]uint32{}, true
		}
	}
	if !spilled && len(late) > 0 {
		panic("late duplicates without a spill")
	}
	slices.SortFunc(late, func(a, b dupReport) int {
		if c := strings.Compare(a.id, b.id); c != 0 {
			return c
		}
		return int(a.ord) - int(b.ord)
	})
	return append(early, late...)
}

func TestIDSetChunks(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	tests := []struct {
		name string
		ids  string
		want []dupReport // nil: no duplicate
	}{
		{"no duplicates, several chunks", "a b c d e f g h", nil},
		{"within a chunk", "a b a c", []dupReport{{2, 0, "a", false}}},
		{"across the first and the last chunk", "a b c d e f g a", []dupReport{{7, 0, "a", true}}},
		{"last chunk partly full", "x b c d e f x", []dupReport{{6, 0, "x", true}}},
		{"several, ordered by id", "q b c z d e b q z q",
			[]dupReport{{6, 1, "b", true}, {7, 0, "q", true}, {9, 0, "q", true}, {8, 3, "z", true}}},
		{"one id in every chunk", "k a b k c d k e f", []dupReport{{3, 0, "k", true}, {6, 0, "k", true}}},
		{"ids sharing prefixes", "abc ab abcd abd abc ab", []dupReport{{5, 1, "ab", true}, {4, 0, "abc", true}}},
		{"empty and long ids", " " + strings.Repeat("y", 300) + " a b c " + strings.Repeat("y", 300),
			[]dupReport{{5, 1, strings.Repeat("y", 300), true}}},
	}
	for _, tt := range tests {
		ids := strings.Split(tt.ids, " ")
		got := runIDSet(t, ids, 3, nil)
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
		if ref := referenceDups(ids, 3); !slices.Equal(got, ref) {
			t.Errorf("%s: got %v, the map reference says %v", tt.name, got, ref)
		}
	}
	if left, _ := os.ReadDir(os.Getenv("TMPDIR")); len(left) > 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

// Property: for random ids (few distinct values, so many repeats) and
// chunk sizes, the idSet reports exactly what the map reference does, with
// every hash colliding too.
func TestIDSetMatchesReference(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	state := uint64(1)
	rnd := func(n int) int {
		state = state*6364136223846793005 + 1442695040888963407
		return int((state >> 33) % uint64(n))
	}
	for trial := range 300 {
		n := 1 + rnd(200)
		alphabet := 1 + rnd(2*n)
		ids := make([]string, n)
		for i := range ids {
			ids[i] = fmt.Sprintf("case-%d", rnd(alphabet))
		}
		max := 1 + rnd(20)
		var hash func(string) uint64
		if trial%5 == 0 {
			hash = func(string) uint64 { return 1 }
		}
		got, want := runIDSet(t, ids, max, hash), referenceDups(ids, max)
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d (max %d, ids %v):\n got %v\nwant %v", trial, max, ids, got, want)
		}
	}
}

func FuzzIDSet(f *testing.F) {
	f.Add([]byte("abcabd"), uint8(2))
	f.Add([]byte("aaaaaaaaab"), uint8(1))
	f.Add([]byte("the quick brown fox"), uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, max uint8) {
		// Ids of one or two bytes of data, so repeats are common.
		var ids []string
		for len(data) > 0 {
			k := min(len(data), 1+int(data[0]%2))
			ids = append(ids, string(data[:k]))
			data = data[k:]
		}
		m := 1 + int(max%16)
		if got, want := runIDSet(t, ids, m, nil), referenceDups(ids, m); !slices.Equal(got, want) {
			t.Fatalf("max %d, ids %q:\n got %v\nwant %v", m, ids, got, want)
		}
	})
}

// Through the Reader: late duplicates come after every other record,
// marked Late, with the same message as an early one (both file:lines and
// the id); nothing is left in TMPDIR, and a temporary file that cannot be
// created is a fatal error that says what it was for.
func TestReaderLateDuplicates(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dir := t.TempDir()
	line := func(id string) string { return `{"id":"` + id + `","tool":{"name":"Bash"}}` + "\n" }
	a := writeFile(t, dir, "a.jsonl", line("c1")+line("c2")+"\n"+line("c2")+line("c3"))
	b := writeFile(t, dir, "b.jsonl", line("c4")+line("c5")+line("c1")+line("c6")+line("c4"))
	r := Open([]string{a, b}, nil)
	r.MaxIDsInMemory = 3
	var got []string
	for r.Scan() {
		rec := r.Record()
		if left, _ := os.ReadDir(tmp); len(left) > 0 {
			t.Fatalf("temporary file visible while reading: %v", left)
		}
		switch {
		case rec.Err != nil && rec.Case != nil:
			t.Fatalf("record with both Case and Err: %+v", rec)
		case rec.Err != nil:
			got = append(got, fmt.Sprintf("%v late=%v", rec.Err, rec.Late))
		default:
			got = append(got, rec.Case.ID)
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"c1", "c2",
		a + `:4: id: duplicate id "c2" (first at ` + a + `:2) late=false`,
		"c3",
		"c4", "c5", "c1", "c6", "c4",
		b + `:3: id: duplicate id "c1" (first at ` + a + `:1) late=true`,
		b + `:5: id: duplicate id "c4" (first at ` + b + `:1) late=true`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("temporary files left behind: %v", left)
	}

	// Under the default chunk the same input reports every duplicate at once.
	recs, err := readAll(t, Open([]string{a, b}, nil))
	if err != nil {
		t.Fatal(err)
	}
	var errs []string
	for _, rec := range recs {
		if rec.Late {
			t.Errorf("late record under the default chunk: %v", rec.Err)
		}
		if rec.Err != nil {
			errs = append(errs, rec.Err.Error())
		}
	}
	if len(errs) != 3 || !strings.Contains(errs[1], `"c1" (first at `+a+`:1)`) {
		t.Errorf("default chunk: got %q", errs)
	}

	t.Setenv("TMPDIR", filepath.Join(tmp, "missing"))
	r = Open([]string{b}, nil)
	r.MaxIDsInMemory = 2
	n := 0
	for r.Scan() {
		n++
	}
	_ = r.Close()
	if err := r.Err(); err == nil || !strings.Contains(err.Error(), "duplicate-id check") || n != 1 {
		t.Errorf("unwritable TMPDIR: %d records, err %v", n, err)
	}
}

// BenchmarkIDSetSpill adds 3M benchmark-style ids through chunks of 1M
// (two sorted runs written, the last chunk written and all merged at the
// end) against one chunk holding them all; per id.
func BenchmarkIDSetSpill(b *testing.B) {
	const n = 3_000_000
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("c-%07d", (i*7919)%n)
	}
	b.Setenv("TMPDIR", b.TempDir())
	for _, max := range []int{1_000_000, n} {
		b.Run(fmt.Sprint("chunk=", max), func(b *testing.B) {
			for b.Loop() {
				if got := runIDSet(b, ids, max, nil); len(got) != 0 {
					b.Fatal(got[0])
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/id")
		})
	}
}

// A reserved set holds its ids without growing, stays exact, and reserves
// no more than a chunk.
func TestIDSetReserve(t *testing.T) {
	t.Parallel()
	s := &idSet{}
	s.reserve(5000)
	n := len(s.slots)
	if n < 10000 {
		t.Fatalf("reserve(5000): %d slots", n)
	}
	for i := range uint32(5000) {
		if _, dup, _ := s.add(fmt.Sprint("id-", i), i); dup {
			t.Fatalf("id-%d reported as a duplicate", i)
		}
	}
	if first, dup, _ := s.add("id-4321", 9999); !dup || first != 4321 {
		t.Errorf("re-adding id-4321: first=%d dup=%v", first, dup)
	}
	if len(s.slots) != n {
		t.Errorf("the set grew from %d to %d slots", n, len(s.slots))
	}
	c := &idSet{max: 100}
	c.reserve(1 << 20)
	if len(c.slots) > 1024 || cap(c.ends) > 100 {
		t.Errorf("reserve past a chunk of 100: %d slots, room for %d ids", len(c.slots), cap(c.ends))
	}
}

// The Reader sizes the set for a local file from its first batch.
func TestReaderPresizesIDSet(t *testing.T) {
	t.Parallel()
	var sb strings.Builder
	const n = 20_000
	for i := range n {
		fmt.Fprintf(&sb, `{"id":"c-%07d","tool":{"name":"Bash"}}`+"\n", i)
	}
	r := Open([]string{writeFile(t, t.TempDir(), "a.jsonl", sb.String())}, nil)
	defer r.Close()
	if !r.Scan() {
		t.Fatal(r.Err())
	}
	if got := len(r.seen.slots); got < 2*n || got > 8*n {
		t.Errorf("%d slots for %d ids", got, n)
	}
}

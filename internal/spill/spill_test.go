package spill

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func drain(t *testing.T, l *List) []Rec {
	t.Helper()
	var out []Rec
	it := l.Iter()
	for r, ok := it.Next(); ok; r, ok = it.Next() {
		out = append(out, r)
	}
	if err := l.p.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func sorted(in []Rec) []Rec {
	out := slices.Clone(in)
	slices.SortFunc(out, cmpRec)
	return out
}

// TestListsMatchSortedCopies feeds several lists (in order, shuffled, with
// duplicates, empty) through pools of different budgets, down to one that
// forces a run every few records, and checks each reads back as exactly
// the sorted multiset appended, twice, and with iterators interleaved.
func TestListsMatchSortedCopies(t *testing.T) {
	t.Parallel()
	for _, budget := range []int64{-1, 0, 64 * RecSize, 200 * RecSize} {
		p := NewPool(t.TempDir(), budget)
		rng := rand.New(rand.NewPCG(1, uint64(budget)))
		const nLists = 7
		lists := make([]*List, nLists)
		want := make([][]Rec, nLists)
		for i := range lists {
			lists[i] = p.NewList()
		}
		for step := range 20000 {
			i := rng.IntN(nLists)
			var r Rec
			switch i {
			case 0: // never appended to
				continue
			case 1: // ascending, with runs of equal records
				r = Rec{uint64(step / 3), 7}
			case 2: // few distinct values: many duplicates
				r = Rec{uint64(rng.IntN(4)), uint64(rng.IntN(2))}
			case 3: // equal keys, values out of order
				r = Rec{5, rng.Uint64()}
			default:
				r = Rec{rng.Uint64() >> rng.IntN(64), rng.Uint64()}
			}
			lists[i].Append(r)
			want[i] = append(want[i], r)
		}
		if budget > 0 && budget < 1000*RecSize {
			if p.held > budget {
				t.Errorf("budget %d: %d bytes held", budget, p.held)
			}
			if _, runs := p.Spilled(); runs < 20 {
				t.Errorf("budget %d: only %d runs", budget, runs)
			}
		}
		if budget < 0 || budget == 0 {
			if n, _ := p.Spilled(); n != 0 {
				t.Errorf("budget %d: %d bytes spilled for a small list", budget, n)
			}
		}
		for i, l := range lists {
			if l.Len() != int64(len(want[i])) {
				t.Errorf("budget %d list %d: Len %d, want %d", budget, i, l.Len(), len(want[i]))
			}
			w := sorted(want[i])
			for pass := range 2 {
				if got := drain(t, l); !slices.Equal(got, w) {
					t.Fatalf("budget %d list %d pass %d: %d records, want %d (first difference at %d)", budget, i, pass, len(got), len(w), firstDiff(got, w))
				}
			}
		}
		// Two iterators over different lists and the same list, interleaved.
		a, b, c := lists[4].Iter(), lists[5].Iter(), lists[4].Iter()
		var ga, gb, gc []Rec
		for {
			ra, oka := a.Next()
			rb, okb := b.Next()
			rc, okc := c.Next()
			if !oka && !okb && !okc {
				break
			}
			if oka {
				ga = append(ga, ra)
			}
			if okb {
				gb = append(gb, rb)
			}
			if okc {
				gc = append(gc, rc)
			}
		}
		if !slices.Equal(ga, sorted(want[4])) || !slices.Equal(gb, sorted(want[5])) || !slices.Equal(gc, ga) {
			t.Errorf("budget %d: interleaved iterators differ", budget)
		}
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func firstDiff(a, b []Rec) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestInOrderListIsReadSequentially: a list appended in order is written
// unsorted-free and read without merging, and still comes back whole.
func TestInOrderListIsReadSequentially(t *testing.T) {
	t.Parallel()
	p := NewPool(t.TempDir(), 256*RecSize)
	l := p.NewList()
	for i := range 10000 {
		l.Append(Rec{uint64(i), uint64(i % 3)})
	}
	if !l.sorted || len(l.runs) < 10 {
		t.Fatalf("sorted=%v runs=%d", l.sorted, len(l.runs))
	}
	it := l.Iter()
	if !it.seq {
		t.Fatal("an in-order list is merged")
	}
	got := drain(t, l)
	if len(got) != 10000 || got[9999] != (Rec{9999, 0}) {
		t.Fatalf("%d records, last %v", len(got), got[len(got)-1])
	}
	_ = p.Close()
}

// TestFileLeavesNothingBehind: the temporary file is gone from its
// directory while the pool is in use and after Close.
func TestFileLeavesNothingBehind(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := NewPool(dir, 64*RecSize)
	l := p.NewList()
	for i := range 5000 {
		l.Append(Rec{uint64(5000 - i), 0})
	}
	if n, _ := p.Spilled(); n == 0 {
		t.Fatal("nothing spilled")
	}
	ls := func() []string {
		m, _ := filepath.Glob(filepath.Join(dir, "*"))
		return m
	}
	if m := ls(); len(m) != 0 && p.f.remove == "" {
		t.Errorf("files in the spill directory while in use: %v", m)
	}
	if got := drain(t, l); len(got) != 5000 || got[0] != (Rec{1, 0}) {
		t.Fatalf("%d records, first %v", len(got), got[0])
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if m := ls(); len(m) != 0 {
		t.Errorf("files left after Close: %v", m)
	}
	// Reading after Close is an error, not a crash or a silent success.
	l2 := &List{p: p, runs: []run{{0, 10}}, sorted: true, bufSorted: true}
	if got := drain2(l2); len(got) != 0 || p.Err() == nil {
		t.Errorf("read after Close: %d records, err %v", len(got), p.Err())
	}
}

func drain2(l *List) []Rec {
	var out []Rec
	it := l.Iter()
	for r, ok := it.Next(); ok; r, ok = it.Next() {
		out = append(out, r)
	}
	return out
}

// TestWriteFailureKeepsRecords: when the file cannot be created, lists
// keep everything in memory and say why.
func TestWriteFailureKeepsRecords(t *testing.T) {
	t.Parallel()
	p := NewPool(filepath.Join(t.TempDir(), "missing", "dir"), 64*RecSize)
	l := p.NewList()
	var want []Rec
	for i := range 3000 {
		r := Rec{uint64((i * 7919) % 3000), 1}
		l.Append(r)
		want = append(want, r)
	}
	if p.WriteErr() == nil {
		t.Fatal("no write error")
	}
	if got := drain(t, l); !slices.Equal(got, sorted(want)) {
		t.Fatal("records lost after a failed write")
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestEmptyList(t *testing.T) {
	t.Parallel()
	p := NewPool("", 0)
	l := p.NewList()
	if _, ok := l.Iter().Next(); ok || l.Len() != 0 {
		t.Fatal("empty list yields a record")
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(os.TempDir()); err != nil {
		t.Fatal(err)
	}
}

// TestChunksEqualNext: reading by chunks gives what Next gives, merged or
// sequential.
func TestChunksEqualNext(t *testing.T) {
	t.Parallel()
	p := NewPool(t.TempDir(), 128*RecSize)
	inOrder, shuffled := p.NewList(), p.NewList()
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 7000 {
		inOrder.Append(Rec{uint64(i / 2), 0})
		shuffled.Append(Rec{uint64(rng.IntN(500)), uint64(rng.IntN(3))})
	}
	for _, l := range []*List{inOrder, shuffled} {
		want := drain(t, l)
		var got []Rec
		it := l.Iter()
		for c := it.Chunk(); len(c) > 0; c = it.Chunk() {
			got = append(got, c...)
		}
		if !slices.Equal(got, want) || len(got) != 7000 {
			t.Errorf("chunks: %d records, Next: %d", len(got), len(want))
		}
	}
	_ = p.Close()
}

package metrics

import (
	"math/rand/v2"
	"testing"

	"github.com/apeval/apeval/replay"
)

// TestCheckDistinct: cases numbered as they come under Config.CheckDistinct
// give the Summary and comparison of an accumulator keeping every case ID,
// bit for bit, when each case's results come together, once; a case that
// comes back, within the check's chunk in memory or from an earlier chunk
// on disk, makes Distinct false. Not parallel: it sets seenInMemory.
func TestCheckDistinct(t *testing.T) {
	defer func(n int) { seenInMemory = n }(seenInMemory)
	seenInMemory = 16
	cfg := Config{Criteria: replay.DefaultKillCriteria(), Baseline: "A", Slices: []string{SliceTag, SliceTool}, SpillDir: t.TempDir()}
	results := randomResults(3, 400)
	feed := func(cfg Config, results []*replay.Result) (*Accumulator, bool) {
		a := New(cfg)
		for _, r := range results {
			a.Add(r)
		}
		ok, err := a.Distinct()
		if err != nil {
			t.Fatal(err)
		}
		return a, ok
	}
	ref, ok := feed(cfg, results)
	if !ok {
		t.Fatal("Distinct false without the check")
	}
	want, _ := closeJSON(t, ref)
	check := cfg
	check.CheckDistinct = true
	a, ok := feed(check, results)
	if !ok {
		t.Fatal("cases that came together, once, not found distinct")
	}
	if got, _ := closeJSON(t, a); got != want {
		t.Fatalf("summary with cases numbered as they come differs:\n%s", firstJSONDiff(got, want))
	}
	for name, back := range map[string]int{"late": 0, "in the chunk": len(results) - 8} {
		again := append(append([]*replay.Result(nil), results...), results[back])
		if r := results[len(results)-1]; r.CaseID == results[back].CaseID {
			t.Fatalf("%s: the repeat is adjacent", name)
		}
		a, ok := feed(check, again)
		if ok {
			t.Errorf("%s: a case that came back was not found", name)
		}
		if err := a.Discard(); err != nil {
			t.Fatal(err)
		}
	}
}

// pairedStreams are the results of judge B (stream 0) and recorded/C
// (stream 1) on the cases both have, in case order.
func pairedStreams(seed uint64, n int) (s0, s1 []*replay.Result) {
	var b, c []*replay.Result
	have := map[string]int{}
	all := randomResults(seed, n)
	for _, r := range all {
		if r.Judge != "A" {
			have[r.CaseID]++
		}
	}
	for _, r := range all {
		switch {
		case have[r.CaseID] != 2:
		case r.Judge == "B":
			b = append(b, r)
		case r.Judge == "recorded/C":
			c = append(c, r)
		}
	}
	return b, c
}

// TestPairedStreams: two streams of the same cases, interleaved at random
// (as compare decodes two runs at once), numbered by position under
// Config.PairedStreams, give the Summary and comparison of an accumulator
// keeping every case ID fed the same interleaving, bit for bit; a stream
// whose cases differ from the other's (order, one case missing, another
// session), or one too far ahead, makes Distinct false. Not parallel: it
// sets seenInMemory and maxAhead.
func TestPairedStreams(t *testing.T) {
	defer func(n, m int) { seenInMemory, maxAhead = n, m }(seenInMemory, maxAhead)
	seenInMemory = 16
	cfg := Config{Criteria: replay.DefaultKillCriteria(), Baseline: "B", SpillDir: t.TempDir()}
	paired := cfg
	paired.CheckDistinct, paired.PairedStreams = true, true
	type fed struct {
		s int
		r *replay.Result
	}
	interleave := func(seed uint64, s0, s1 []*replay.Result) []fed {
		rng := rand.New(rand.NewPCG(seed, 1))
		var out []fed
		for len(s0)+len(s1) > 0 {
			if len(s1) == 0 || (len(s0) > 0 && rng.IntN(2) == 0) {
				out, s0 = append(out, fed{0, s0[0]}), s0[1:]
			} else {
				out, s1 = append(out, fed{1, s1[0]}), s1[1:]
			}
		}
		return out
	}
	feed := func(cfg Config, in []fed) (*Accumulator, bool) {
		a := New(cfg)
		for _, f := range in {
			a.AddFrom(f.s, f.r)
		}
		ok, err := a.Distinct()
		if err != nil {
			t.Fatal(err)
		}
		return a, ok
	}
	for seed := range uint64(3) {
		s0, s1 := pairedStreams(seed, 300)
		in := interleave(seed, s0, s1)
		ref, _ := feed(cfg, in)
		want, _ := closeJSON(t, ref)
		maxAhead = 1 << 18
		a, ok := feed(paired, in)
		if !ok {
			t.Fatalf("seed %d: the same cases in the same order not found paired", seed)
		}
		if got, _ := closeJSON(t, a); got != want {
			t.Fatalf("seed %d: summary with cases numbered by position differs:\n%s", seed, firstJSONDiff(got, want))
		}
		swapped := append([]*replay.Result(nil), s1...)
		swapped[3], swapped[4] = swapped[4], swapped[3]
		other := *s1[5]
		other.SessionID += "x"
		moved := append(append([]*replay.Result(nil), s1[:5]...), &other)
		moved = append(moved, s1[6:]...)
		for name, bad := range map[string][]*replay.Result{"swapped": swapped, "missing": s1[:len(s1)-1], "session": moved} {
			a, ok := feed(paired, interleave(seed, s0, bad))
			if ok {
				t.Errorf("seed %d, %s: streams that differ found paired", seed, name)
			}
			a.Discard()
		}
		maxAhead = 4
		var ahead []fed
		for _, r := range s0 {
			ahead = append(ahead, fed{0, r})
		}
		for _, r := range s1 {
			ahead = append(ahead, fed{1, r})
		}
		if a, ok := feed(paired, ahead); ok {
			t.Errorf("seed %d: a stream far ahead of the other found paired", seed)
		} else {
			a.Discard()
		}
	}
}

package metrics

import (
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

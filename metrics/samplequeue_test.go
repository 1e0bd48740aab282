package metrics

import (
	"fmt"
	"reflect"
	"testing"
)

func queuePairs() []QueuePair {
	var ps []QueuePair
	add := func(rule string, n int, res ...string) {
		for i := range n {
			ps = append(ps, QueuePair{CaseID: fmt.Sprintf("%s-%s-%d", rule, res, i), RuleID: rule, Results: res})
		}
	}
	add("r1", 1000, QueueNoMatch, QueueNoMatch)
	add("r1", 40, QueueMatch, QueueNoMatch)
	add("r1", 3, QueueNoMatch, QueueMatch)
	add("r1", 100, QueueMatch, QueueMatch)
	add("r2", 500, QueueNoMatch, QueueUndecided)
	add("r2", 8, QueueMatch, QueueMatch)
	return ps
}

func TestBuildQueueAllocation(t *testing.T) {
	t.Parallel()
	q, err := BuildQueue(queuePairs(), QueueConfig{Budget: 120, Seed: 1, Letters: []string{"A", "B"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(q.Items) != 120 || q.MinTotal != 5+5+3+5+5+5 {
		t.Fatalf("items %d, min total %d", len(q.Items), q.MinTotal)
	}
	got := map[string]int{}
	for _, s := range q.Strata {
		got[s.RuleID+" "+s.Name] = s.Allocated
		if s.Allocated < int(min(5, s.Size)) || int64(s.Allocated) > s.Size {
			t.Errorf("%s %s: %d of %d", s.RuleID, s.Name, s.Allocated, s.Size)
		}
	}
	// Rules get the rest evenly: (120 − 28)/2 = 46 each.
	r1 := got["r1 A:match B:match"] + got["r1 A:match B:no_match"] + got["r1 A:no_match B:match"] + got["r1 A:no_match B:no_match"]
	r2 := got["r2 A:match B:match"] + got["r2 A:no_match B:undecided"]
	if r1 != 18+46 || r2 != 10+46 || got["r1 A:no_match B:match"] != 3 {
		t.Errorf("allocation %v", got)
	}
	// Neyman inside r1: the 40-pair disagreement stratum (S = 0.5) gets
	// more per pair than the 1000-pair agreement stratum (S ≈ 0.21).
	if float64(got["r1 A:match B:no_match"])/40 <= float64(got["r1 A:no_match B:no_match"])/1000 {
		t.Errorf("disagreement stratum under-sampled: %v", got)
	}
}

func TestBuildQueuePrefixIsStratified(t *testing.T) {
	t.Parallel()
	q, err := BuildQueue(queuePairs(), QueueConfig{Budget: 200, Seed: 9, Letters: []string{"A", "B"}})
	if err != nil {
		t.Fatal(err)
	}
	alloc := map[string]int{}
	for _, s := range q.Strata {
		alloc[s.RuleID+" "+s.Name] = s.Allocated
	}
	// The first 2·strata items hold two of every stratum (one of a
	// one-pair stratum), disagreement strata first.
	first := map[string]int{}
	for _, it := range q.Items[:12] {
		first[it.RuleID+" "+it.Stratum]++
	}
	for k, n := range first {
		if n != min(2, alloc[k]) {
			t.Errorf("first items: %s has %d", k, n)
		}
	}
	if q.Items[0].Stratum == "A:no_match B:no_match" {
		t.Errorf("first item from an agreement stratum")
	}
	// Any prefix holds each stratum in proportion to its allocation
	// (within one item plus the two up front).
	for _, n := range []int{50, 100, 150} {
		seen := map[string]int{}
		for _, it := range q.Items[:n] {
			seen[it.RuleID+" "+it.Stratum]++
		}
		for k, a := range alloc {
			want := float64(n) * float64(a) / 200
			if d := float64(seen[k]) - want; d > 3 || d < -3 {
				t.Errorf("prefix %d: %s has %d, proportional share %.1f", n, k, seen[k], want)
			}
		}
	}
	for i, it := range q.Items {
		if it.Order != i+1 {
			t.Fatalf("item %d has order %d", i, it.Order)
		}
	}
}

func TestBuildQueueSeeded(t *testing.T) {
	t.Parallel()
	a, _ := BuildQueue(queuePairs(), QueueConfig{Budget: 60, Seed: 3, Letters: []string{"A", "B"}, Overlap: 0.1})
	b, _ := BuildQueue(queuePairs(), QueueConfig{Budget: 60, Seed: 3, Letters: []string{"A", "B"}, Overlap: 0.1})
	c, _ := BuildQueue(queuePairs(), QueueConfig{Budget: 60, Seed: 4, Letters: []string{"A", "B"}, Overlap: 0.1})
	if !reflect.DeepEqual(a, b) {
		t.Error("same seed, different queues")
	}
	if reflect.DeepEqual(a.Items, c.Items) {
		t.Error("different seeds, same queue")
	}
	// Below the minimums the queue holds the minimums.
	m, _ := BuildQueue(queuePairs(), QueueConfig{Budget: 3, Seed: 3, Letters: []string{"A", "B"}})
	if len(m.Items) != m.MinTotal {
		t.Errorf("budget 3: %d items, minimum %d", len(m.Items), m.MinTotal)
	}
}

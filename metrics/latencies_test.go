package metrics

import (
	"slices"
	"testing"

	"github.com/apeval/apeval/replay"
)

// The summary keeps each judge's call latencies, ascending: a cache hit at
// the latency stored with its answer, failed calls kept (the latency chart
// draws them).
func TestSummaryKeepsCallLatencies(t *testing.T) {
	t.Parallel()
	a := New(Config{Criteria: replay.DefaultKillCriteria()})
	a.Add(&replay.Result{CaseID: "c1", Judge: "J", JudgeCalled: true,
		Calls: []replay.Call{call(300, "ok", false), call(100, "ok", true)},
		Rules: []replay.RuleResult{rr("R1", "style", "judge", "match", "match", "ok", true, 0)}})
	a.Add(&replay.Result{CaseID: "c2", Judge: "J", JudgeCalled: true,
		Calls: []replay.Call{call(200, "timeout", false)},
		Rules: []replay.RuleResult{rr("R1", "style", "failure", "unknown", "", "timeout", false, 0)}})
	s := a.Close()
	// Calls: 300 (ok), 100 (a cache hit, measured when it was made) and
	// 200 (timeout).
	if got := s.Judge("J").Latencies; !slices.Equal(got, []float64{100, 200, 300}) {
		t.Errorf("Latencies = %v, want [100 200 300]", got)
	}
	if tot := s.Judge("J").Total; tot.Calls != 3 || tot.CachedCalls != 1 {
		t.Errorf("calls %d (cached %d), want 3 (1)", tot.Calls, tot.CachedCalls)
	}
}

package metrics

import (
	"slices"
	"testing"

	"github.com/apeval/apeval/replay"
)

// The summary keeps each judge's live-call latencies, ascending: cache hits
// left out, failed calls kept (the latency chart draws them).
func TestSummaryKeepsLiveLatencies(t *testing.T) {
	a := New(Config{Criteria: replay.DefaultKillCriteria()})
	a.Add(&replay.Result{CaseID: "c1", Judge: "J", JudgeCalled: true,
		Calls: []replay.Call{call(300, "ok", false), call(100, "ok", true)},
		Rules: []replay.RuleResult{rr("R1", "style", "judge", "match", "match", "ok", true, 0)}})
	a.Add(&replay.Result{CaseID: "c2", Judge: "J", JudgeCalled: true,
		Calls: []replay.Call{call(200, "timeout", false)},
		Rules: []replay.RuleResult{rr("R1", "style", "failure", "unknown", "", "timeout", false, 0)}})
	s := a.Close()
	// Live calls: 300 (ok) and 200 (timeout); the 100 ms cache hit is not one.
	if got := s.Judge("J").Latencies; !slices.Equal(got, []float64{200, 300}) {
		t.Errorf("Latencies = %v, want [200 300]", got)
	}
}

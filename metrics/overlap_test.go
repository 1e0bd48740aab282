package metrics

import (
	"testing"

	"github.com/apeval/apeval/replay"
)

// Compare counts the cases the two judges share and those only one of
// them replayed.
func TestCaseOverlap(t *testing.T) {
	t.Parallel()
	s := summarize(t, Config{Criteria: replay.DefaultKillCriteria(), Baseline: "B"}, compareSet())
	cmp := s.Comparisons[0]
	// compareSet: x01..x40, x42, x43 both; x41 only the candidate.
	if want := (CaseOverlap{Shared: 42, CandidateOnly: 1}); cmp.Cases != want {
		t.Fatalf("cases = %+v, want %+v", cmp.Cases, want)
	}
	// Two judges with disjoint cases: nothing in common.
	var rs []*replay.Result
	for _, id := range []string{"a1", "a2"} {
		rs = append(rs, &replay.Result{CaseID: id, Judge: "B", Rules: []replay.RuleResult{rr("X", "style", "judge", "match", "match", "ok", true, -1)}})
	}
	for _, id := range []string{"b1", "b2", "b3"} {
		rs = append(rs, &replay.Result{CaseID: id, Judge: "C", Rules: []replay.RuleResult{rr("X", "style", "judge", "match", "match", "ok", true, -1)}})
	}
	s2 := summarize(t, Config{Criteria: replay.DefaultKillCriteria(), Baseline: "B"}, rs)
	ov := s2.Comparisons[0].Cases
	if want := (CaseOverlap{BaselineOnly: 2, CandidateOnly: 3}); ov != want {
		t.Fatalf("disjoint cases = %+v, want %+v", ov, want)
	}
}

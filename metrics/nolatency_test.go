package metrics

import (
	"fmt"
	"strings"
	"testing"

	"github.com/apeval/apeval/replay"
)

// TestNoRecordedLatency: a judge whose calls carry no recorded latency
// (every call at 0 ms, as a vendor's decisions imported from its logs) has
// no P50/P95/P99, judge_p95_max N/A with the reason, a warning, and no
// latency comparison with another judge — never a "significant" latency
// difference. A judge with one measured call keeps its figures.
func TestNoRecordedLatency(t *testing.T) {
	t.Parallel()
	var rs []*replay.Result
	for i := range 40 {
		id := fmt.Sprintf("c%02d", i)
		for _, j := range []struct {
			name string
			ms   float64
		}{{"vendor", 0}, {"cand", 150 + float64(i)}} {
			rs = append(rs, &replay.Result{CaseID: id, SessionID: fmt.Sprintf("s%02d", i), Judge: j.name,
				Rules: []replay.RuleResult{rr("X", "style", "judge", "no_match", "", "ok", false, 0)},
				Calls: []replay.Call{call(j.ms, "ok", false)}})
		}
	}
	s := summarize(t, Config{Criteria: replay.DefaultKillCriteria(), Baseline: "vendor"}, rs)
	v, c := s.Judge("vendor"), s.Judge("cand")
	if v == nil || c == nil {
		t.Fatal("judges missing")
	}
	if v.Total.LatencyP50MS != nil || v.Total.LatencyP95MS != nil || v.Total.LatencyP99MS != nil || v.Total.Calls != 40 {
		t.Errorf("vendor latency figures %v %v %v over %d calls, want none", v.Total.LatencyP50MS, v.Total.LatencyP95MS, v.Total.LatencyP99MS, v.Total.Calls)
	}
	p95 := v.Total.Criterion(CriterionJudgeP95Max)
	if p95 == nil || p95.Status != StatusNA || !strings.Contains(p95.Reason, "no recorded latency") {
		t.Errorf("vendor judge_p95_max = %+v, want N/A with the reason", p95)
	}
	if !strings.Contains(strings.Join(v.Warnings, "\n"), "no recorded latency") {
		t.Errorf("vendor warnings %q lack the no-latency note", v.Warnings)
	}
	// The candidate's calls were measured: P95 by nearest rank of 150..189
	// is the 38th value, 187.
	if c.Total.LatencyP95MS == nil || *c.Total.LatencyP95MS != 187 {
		t.Errorf("candidate P95 = %v, want 187", c.Total.LatencyP95MS)
	}
	if p := c.Total.Criterion(CriterionJudgeP95Max); p == nil || p.Status == StatusNA {
		t.Errorf("candidate judge_p95_max = %+v, want decided", p)
	}
	if len(s.Comparisons) != 1 || s.Comparisons[0].Total == nil {
		t.Fatal("no comparison")
	}
	for _, f := range s.Comparisons[0].Total.Figures {
		switch f.Figure {
		case FigureLatencyP50, FigureLatencyP95, FigureLatencyShift:
			if f.Delta != nil || f.PValue != nil || f.Significant(0.95) {
				t.Errorf("%s compared against a judge without recorded latency: delta %v p %v", f.Figure, f.Delta, f.PValue)
			}
		}
	}
}

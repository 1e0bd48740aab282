package reports_test

import (
	"os"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports"
)

// A gate-action summary tallies what the gate would have done per judge.
func ExampleGateSummary() {
	s := reports.NewGateSummary()
	s.Add(&replay.Result{Judge: "recorded/v1", GateAction: datasets.ActionAllow, ExpectedAction: datasets.ActionAllow})
	s.Add(&replay.Result{Judge: "recorded/v1", GateAction: datasets.ActionRequestApproval,
		ExpectedAction: datasets.ActionDenyCurrentTool,
		Calls:          []replay.Call{{Rules: 1, Status: "timeout", LatencyMS: 1000}}})
	if err := s.Render(os.Stdout, reports.FormatTSV); err != nil {
		panic(err)
	}
	// Output:
	// judge	cases	allow	audit_only	notify_admin	inject_instruction	request_approval	deny_current_tool	stop_task	expected	matched	match_rate	calls	cache_hits	failures
	// recorded/v1	2	1	0	0	0	1	0	0	2	1	0.5	1	0	1
}

package datasets

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestStats(t *testing.T) {
	t.Parallel()
	in := strings.Join([]string{
		`{"id":"1","session_id":"s1","tool":{"name":"Bash"},"labels":{"r1":"match","r2":"no_match"},"expected_action":"request_approval","approval_outcome":"denied","tags":["ja","deletion"],` +
			`"recorded":[{"judge":"b","latency_ms":10,"decisions":[{"rule_id":"r1","result":"match"}]},{"judge":"b","latency_ms":12,"status":"timeout"},{"judge":"a","latency_ms":5,"decisions":[{"rule_id":"r1","result":"unknown"},{"rule_id":"r2","result":"no_match"}]}]}`,
		`{"id":"2","session_id":"s1","tool":{"name":"Write","arguments_valid":false},"labels":{"r1":"match"},"expected_action":"allow","tags":["ja"]}`,
		`{"id":"3","session_id":"s2","hook_point":"tool.after","tool":{"name":"WebFetch"},"recorded":[{"judge":"a","latency_ms":7,"status":"invalid"}]}`,
		`bad line`,
	}, "\n")
	s := NewStats()
	r := Open([]string{"-"}, strings.NewReader(in))
	for r.Scan() {
		s.AddRecord(r.Record())
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	want := &Stats{
		Cases: 3, Invalid: 1, Sessions: 2,
		HookPoints:       map[string]int{"tool.before": 2, "tool.after": 1},
		Categories:       map[string]int{"command_execution": 1, "file_change": 1, "web_search": 1},
		Tools:            map[string]int{"Bash": 1, "Write": 1, "WebFetch": 1},
		Tags:             map[string]int{"ja": 2, "deletion": 1},
		Labels:           map[string]LabelCounts{"r1": {Match: 2}, "r2": {NoMatch: 1}},
		LabeledCases:     2,
		ExpectedActions:  map[string]int{"request_approval": 1, "allow": 1},
		ApprovalOutcomes: map[string]int{"denied": 1},
		InvalidArguments: 1,
		Judges: map[string]JudgeStats{
			"a": {Cases: 2, Calls: 2, Decisions: 2, Statuses: map[string]int{"ok": 1, "invalid": 1}, Results: map[string]int{"unknown": 1, "no_match": 1}},
			"b": {Cases: 1, Calls: 2, Decisions: 1, Statuses: map[string]int{"ok": 1, "timeout": 1}, Results: map[string]int{"match": 1}},
		},
	}
	got, _ := json.Marshal(s)
	exp, _ := json.Marshal(want)
	if string(got) != string(exp) {
		t.Errorf("stats\n got %s\nwant %s", got, exp)
	}
	if names := s.RecordedJudgeNames(); !reflect.DeepEqual(names, []string{"a", "b"}) {
		t.Errorf("RecordedJudgeNames = %v", names)
	}
}

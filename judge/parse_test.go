package judge

import (
	"strings"
	"testing"

	"github.com/apeval/apeval/judge/internal/fake"
)

func TestParseOutput(t *testing.T) {
	t.Parallel()
	asked := []string{"rule-12", "rule-18"}
	tests := []struct {
		name    string
		body    string
		status  Status
		errPart string
		want    []Decision
	}{
		{
			name:   "valid, returned in asked order",
			body:   `{"version":1,"decisions":[{"rule_id":"rule-18","result":"unknown","confidence":0.42},{"rule_id":"rule-12","result":"match","confidence":0.91}]}`,
			status: StatusOK,
			want:   []Decision{{RuleID: "rule-12", Result: Match, Confidence: fake.Ptr(0.91)}, {RuleID: "rule-18", Result: Unknown, Confidence: fake.Ptr(0.42)}},
		},
		{
			name:   "json fence and whitespace tolerated",
			body:   "\n ```json\n{\"version\":1,\"decisions\":[{\"rule_id\":\"rule-12\",\"result\":\"no_match\",\"confidence\":0},{\"rule_id\":\"rule-18\",\"result\":\"match\",\"confidence\":1}]}\n```\n",
			status: StatusOK,
			want:   []Decision{{RuleID: "rule-12", Result: NoMatch, Confidence: fake.Ptr(0)}, {RuleID: "rule-18", Result: Match, Confidence: fake.Ptr(1)}},
		},
		{
			name:   "bare fence, extra field, missing confidence",
			body:   "```\n{\"version\":1,\"decisions\":[{\"rule_id\":\"rule-12\",\"result\":\"no_match\",\"reason\":\"x\"},{\"rule_id\":\"rule-18\",\"result\":\"match\"}]}\n```",
			status: StatusOK,
			want:   []Decision{{RuleID: "rule-12", Result: NoMatch}, {RuleID: "rule-18", Result: Match}},
		},
		{name: "empty", body: "  ", status: StatusInvalid, errPart: "empty"},
		{name: "prose", body: `Sure! {"version":1}`, status: StatusInvalid, errPart: "not a JSON object"},
		{name: "python fence", body: "```python\n{}\n```", status: StatusInvalid, errPart: "not a JSON object"},
		{name: "truncated", body: `{"version":1,"decisions":[`, status: StatusInvalid, errPart: "not valid JSON"},
		{name: "trailing garbage", body: `{"version":1,"decisions":[]} ok`, status: StatusInvalid, errPart: "not valid JSON"},
		{name: "array", body: `[{"version":1}]`, status: StatusInvalid, errPart: "not a JSON object"},
		{name: "no version", body: `{"decisions":[{"rule_id":"rule-12","result":"match"},{"rule_id":"rule-18","result":"match"}]}`, status: StatusInvalid, errPart: "no version"},
		{name: "version 2", body: `{"version":2,"decisions":[{"rule_id":"rule-12","result":"match"},{"rule_id":"rule-18","result":"match"}]}`, status: StatusInvalid, errPart: "unsupported answer version 2"},
		{name: "version string", body: `{"version":"1","decisions":[]}`, status: StatusInvalid, errPart: "not valid JSON"},
		{name: "unasked rule", body: `{"version":1,"decisions":[{"rule_id":"rule-12","result":"match"},{"rule_id":"rule-18","result":"match"},{"rule_id":"rule-99","result":"match"}]}`, status: StatusInvalid, errPart: `"rule-99" that was not asked`},
		{name: "duplicate rule", body: `{"version":1,"decisions":[{"rule_id":"rule-12","result":"match"},{"rule_id":"rule-12","result":"no_match"},{"rule_id":"rule-18","result":"match"}]}`, status: StatusInvalid, errPart: `duplicate decision for rule "rule-12"`},
		{name: "missing rule", body: `{"version":1,"decisions":[{"rule_id":"rule-12","result":"match"}]}`, status: StatusInvalid, errPart: `no decision for rule "rule-18"`},
		{name: "no decisions", body: `{"version":1}`, status: StatusInvalid, errPart: `no decision for rule "rule-12"`},
		{name: "bad result", body: `{"version":1,"decisions":[{"rule_id":"rule-12","result":"yes"},{"rule_id":"rule-18","result":"match"}]}`, status: StatusInvalid, errPart: `result "yes"`},
		{name: "result case", body: `{"version":1,"decisions":[{"rule_id":"rule-12","result":"Match"},{"rule_id":"rule-18","result":"match"}]}`, status: StatusInvalid, errPart: `result "Match"`},
		{name: "no result", body: `{"version":1,"decisions":[{"rule_id":"rule-12"},{"rule_id":"rule-18","result":"match"}]}`, status: StatusInvalid, errPart: "has no result"},
		{name: "no rule_id", body: `{"version":1,"decisions":[{"result":"match"}]}`, status: StatusInvalid, errPart: "has no rule_id"},
		{name: "confidence above 1", body: `{"version":1,"decisions":[{"rule_id":"rule-12","result":"match","confidence":1.01},{"rule_id":"rule-18","result":"match"}]}`, status: StatusInvalid, errPart: "outside [0, 1]"},
		{name: "confidence negative", body: `{"version":1,"decisions":[{"rule_id":"rule-12","result":"match","confidence":-0.1},{"rule_id":"rule-18","result":"match"}]}`, status: StatusInvalid, errPart: "outside [0, 1]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, status, err := ParseOutput([]byte(tt.body), asked)
			if status != tt.status {
				t.Fatalf("status = %q, want %q (err %v)", status, tt.status, err)
			}
			if tt.status == StatusOK {
				if err != nil {
					t.Fatalf("err = %v", err)
				}
				if !fake.EqualDecisions(got, tt.want) {
					t.Fatalf("decisions = %s, want %s", fake.JS(got), fake.JS(tt.want))
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.errPart) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.errPart)
			}
			if got != nil {
				t.Fatalf("invalid answer returned decisions %s", fake.JS(got))
			}
		})
	}
}

// FuzzParseOutput checks that no body crashes the parser and that every
// accepted answer satisfies the contract: one decision per asked rule, in
// order, with a valid result and confidence.
func FuzzParseOutput(f *testing.F) {
	f.Add([]byte(`{"version":1,"decisions":[{"rule_id":"a","result":"match","confidence":0.5},{"rule_id":"b","result":"unknown"}]}`))
	f.Add([]byte("```json\n{\"version\":1,\"decisions\":[]}\n```"))
	f.Add([]byte(`{"version":2}`))
	f.Add([]byte(`not json`))
	f.Add([]byte(`{"version":1,"decisions":[{"rule_id":"a","result":"match"},{"rule_id":"a","result":"match"}]}`))
	asked := []string{"a", "b"}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, status, err := ParseOutput(body, asked)
		switch status {
		case StatusOK:
			if err != nil || len(got) != len(asked) {
				t.Fatalf("ok with err %v and %d decisions", err, len(got))
			}
			for i, d := range got {
				if d.RuleID != asked[i] {
					t.Fatalf("decision %d is for %q", i, d.RuleID)
				}
				if d.Result != Match && d.Result != NoMatch && d.Result != Unknown {
					t.Fatalf("result %q accepted", d.Result)
				}
				if c := d.Confidence; c != nil && (*c < 0 || *c > 1) {
					t.Fatalf("confidence %v accepted", *c)
				}
			}
		case StatusInvalid:
			if err == nil || got != nil {
				t.Fatalf("invalid with err %v and decisions %v", err, got)
			}
		default:
			t.Fatalf("status %q", status)
		}
	})
}

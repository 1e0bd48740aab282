package metrics

import (
	"strings"
	"testing"
)

func TestAnnotateKeepsTheLineAndShowsItsLabel(t *testing.T) {
	conf := 0.9
	c := CaseDisagreements{CaseID: "c-7", Rules: []Disagreement{
		{CaseID: "c-7", RuleID: "rule-12", Kind: DisagreeOpposite,
			Baseline:  PairDecision{Judge: "a", Result: "match", Confidence: &conf, Status: "ok", Source: "judge"},
			Candidate: PairDecision{Judge: "b<c>", Result: "no_match", Status: "ok", Source: "judge"}},
		{CaseID: "c-7", RuleID: "rule-3", Kind: DisagreeUnknown,
			Baseline:  PairDecision{Judge: "a", Result: "unknown", Status: "timeout", Source: "failure"},
			Candidate: PairDecision{Judge: "b<c>", Result: "match", Status: "ok", Source: "judge"}},
	}}
	line := `{"id":"c-7", "zz":"é",  "labels":{"rule-3":"no_match"}}`
	out, err := c.Annotate([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	want := `"apeval_disagreement":{"rules":[{"rule_id":"rule-12","kind":"opposite","baseline":{"judge":"a","result":"match","confidence":0.9,"status":"ok","source":"judge"},"candidate":{"judge":"b<c>","result":"no_match","confidence":null,"status":"ok","source":"judge"},"label":null},{"rule_id":"rule-3","kind":"unknown","baseline":{"judge":"a","result":"unknown","confidence":null,"status":"timeout","source":"failure"},"candidate":{"judge":"b<c>","result":"match","confidence":null,"status":"ok","source":"judge"},"label":"no_match"}]}`
	if !strings.Contains(string(out), want) {
		t.Errorf("annotated line:\n%s\nwant it to hold\n%s", out, want)
	}
	if !strings.HasPrefix(string(out), `{"id":"c-7", "zz":"é",  "labels":{"rule-3":"no_match"}`) {
		t.Errorf("the original members changed: %s", out)
	}
	if _, err := c.Annotate([]byte(`{"id":"c-7","labels":[1]}`)); err == nil || !strings.HasPrefix(err.Error(), "labels:") {
		t.Errorf("labels not an object: err %v", err)
	}
}

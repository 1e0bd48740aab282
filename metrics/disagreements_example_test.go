package metrics_test

import (
	"fmt"
	"slices"

	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/replay"
)

func ExampleDisagreements() {
	conf := func(v float64) *float64 { return &v }
	results := []*replay.Result{
		{Judge: "old", CaseID: "c-1", Rules: []replay.RuleResult{{RuleID: "rule-12", Source: "judge", Status: "ok", Result: "match", Confidence: conf(0.9)}}},
		{Judge: "new", CaseID: "c-1", Rules: []replay.RuleResult{{RuleID: "rule-12", Source: "judge", Status: "ok", Result: "no_match", Confidence: conf(0.8)}}},
		{Judge: "old", CaseID: "c-2", Rules: []replay.RuleResult{{RuleID: "rule-12", Source: "judge", Status: "ok", Result: "match", Confidence: conf(0.7)}}},
		{Judge: "new", CaseID: "c-2", Rules: []replay.RuleResult{{RuleID: "rule-12", Source: "failure", Status: "timeout", Result: "match"}}},
	}
	for _, d := range metrics.Disagreements("old", "new", slices.Values(results)) {
		fmt.Printf("%s %s %s %.2f: old %s, new %s (%s)\n", d.CaseID, d.RuleID, d.Kind, d.Score, d.Baseline.Result, d.Candidate.Result, d.Candidate.Status)
	}
	// Output:
	// c-1 rule-12 opposite 0.72: old match, new no_match (ok)
	// c-2 rule-12 unknown 0.70: old match, new match (timeout)
}

package reports

import (
	"fmt"

	"github.com/apeval/apeval/replay"
)

func fp(v float64) *float64 { return &v }
func ip(v int64) *int64     { return &v }

// fixtureResults covers the values that are easy to get wrong in a codec:
// nil vs empty tags, nil confidence, unlabeled rules, a case with no rule in
// scope, cached calls, calls with and without server timings, failures.
func fixtureResults() []*replay.Result {
	const run = "run-1"
	a := "ollama/qwen2.5:3b@sha256:abc+p1"
	b := "recorded/judge-v2"
	return []*replay.Result{
		{
			RunID: run, CaseID: "c-1", SessionID: "s-1", Seq: 1, Judge: a,
			Model: "qwen2.5:3b", ModelDigest: "sha256:abc", PromptVersion: "p1",
			Permission: "allow", GateAction: replay.ActionRequestApproval, ExpectedAction: replay.ActionRequestApproval,
			ApprovalOutcome: "denied", RulesInScope: 3, RulesJudged: 2, JudgeCalled: true,
			LatencyMS: fp(412.5), Status: "ok", Tags: []string{"ja", "deletion"},
			Rules: []replay.RuleResult{
				{RuleID: "rule-12", RuleVersion: 3, Class: "dangerous", Label: "match", Source: replay.SourceJudge,
					Result: "match", Confidence: fp(0.91), Fired: true, Action: replay.ActionRequestApproval,
					Status: "ok", Fingerprint: "f12", BaselineResult: "match", Call: 0},
				{RuleID: "rule-18", RuleVersion: 1, Class: "style", Label: "", Source: replay.SourceJudge,
					Result: "no_match", Confidence: nil, Fired: false, Action: replay.ActionInjectInstruction,
					Status: "ok", Fingerprint: "f18", Call: 0},
				{RuleID: "rule-1", RuleVersion: 1, Class: "always", Label: "no_match", Source: replay.SourceDeterministic,
					Result: "match", Fired: true, Action: replay.ActionAuditOnly, Status: "ok", Fingerprint: "f1", Call: -1},
			},
			Calls: []replay.Call{{Rules: 2, Status: "ok", LatencyMS: 412.5, Attempts: 1,
				ServerTotalMS: fp(400), ServerLoadMS: fp(0), ServerPromptEvalMS: fp(120.25), ServerEvalMS: fp(279.75),
				PromptTokens: ip(812), CompletionTokens: ip(40)}},
		},
		{ // no rule in scope: a gates row only; empty (not nil) tags
			RunID: run, CaseID: "c-2", SessionID: "s-1", Seq: 2, Judge: a,
			Model: "qwen2.5:3b", ModelDigest: "sha256:abc", PromptVersion: "p1",
			Permission: "off", GateAction: replay.ActionAllow, Tags: []string{},
		},
		{ // cached call and a timed-out call, no server timings; failure policy
			RunID: run, CaseID: "c-3", SessionID: "s-2", Seq: 1, Judge: a,
			Model: "qwen2.5:3b", ModelDigest: "sha256:abc", PromptVersion: "p1",
			Permission: "ask", GateAction: replay.ActionRequestApproval, ExpectedAction: replay.ActionDenyCurrentTool,
			RulesInScope: 2, RulesJudged: 2, JudgeCalled: true, LatencyMS: fp(1000), Status: "timeout",
			Rules: []replay.RuleResult{
				{RuleID: "rule-12", RuleVersion: 3, Class: "dangerous", Label: "match", Source: replay.SourceCache,
					Result: "unknown", Confidence: fp(0), Action: replay.ActionRequestApproval, Status: "unknown",
					Fingerprint: "g12", BaselineResult: "no_match", Call: 0},
				{RuleID: "rule-20", RuleVersion: 2, Class: "stop", Label: "no_match", Source: replay.SourceFailure,
					Result: "unknown", Action: replay.ActionStopTask, Status: "timeout",
					Error: "context deadline exceeded", Fingerprint: "g20", Call: 1},
			},
			Calls: []replay.Call{
				{Rules: 1, Status: "ok", LatencyMS: 0.25, Cached: true},
				{Rules: 1, Status: "timeout", Error: "context deadline exceeded", LatencyMS: 1000, Attempts: 2},
			},
		},
		{ // second judge, no model fields, scope-skipped rule
			RunID: run, CaseID: "c-1", SessionID: "s-1", Seq: 1, Judge: b,
			Permission: "allow", GateAction: replay.ActionAllow, ExpectedAction: replay.ActionRequestApproval,
			ApprovalOutcome: "denied", RulesInScope: 1, Tags: []string{"ja", "deletion"},
			Rules: []replay.RuleResult{
				{RuleID: "rule-12", RuleVersion: 3, Class: "dangerous", Label: "match", Source: replay.SourceScope,
					Result: "no_match", Action: replay.ActionRequestApproval, Status: "ok", Fingerprint: "f12", Call: -1},
			},
		},
	}
}

// bulkResults generates n plausible results for benchmarks and batching tests.
func bulkResults(n int) []*replay.Result {
	out := make([]*replay.Result, n)
	for i := range out {
		r := &replay.Result{RunID: "bulk", CaseID: fmt.Sprintf("c-%07d", i), SessionID: fmt.Sprintf("s-%05d", i/16),
			Seq: int64(i % 16), Judge: "none", Permission: "allow", GateAction: replay.ActionAllow,
			ExpectedAction: replay.ActionAllow, Tags: []string{"en"}}
		for k := range i % 5 {
			label := []string{"match", "no_match", ""}[(i+k)%3]
			r.Rules = append(r.Rules, replay.RuleResult{RuleID: fmt.Sprintf("rule-%d", k), RuleVersion: 1,
				Class: "dangerous", Label: label, Source: replay.SourceDeterministic, Result: "no_match",
				Action: replay.ActionDenyCurrentTool, Status: "ok", Fingerprint: fmt.Sprintf("%064x", i*7+k), Call: -1})
		}
		r.RulesInScope = len(r.Rules)
		out[i] = r
	}
	return out
}

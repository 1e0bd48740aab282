package reports

import (
	"crypto/sha256"
	"fmt"

	"github.com/apeval/apeval/datasets"
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
			Permission: "allow", GateAction: datasets.ActionRequestApproval, ExpectedAction: datasets.ActionRequestApproval,
			ApprovalOutcome: "denied", RulesInScope: 3, RulesJudged: 2, JudgeCalled: true,
			LatencyMS: fp(412.5), Status: "ok", Tags: []string{"ja", "deletion"}, ToolName: "Bash", Category: "command_execution",
			Rules: []replay.RuleResult{
				{RuleID: "rule-12", RuleVersion: 3, Class: "dangerous", Label: "match", Source: replay.SourceJudge,
					Result: "match", Confidence: fp(0.91), Fired: true, Action: datasets.ActionRequestApproval,
					Status: "ok", Fingerprint: fingerprint("f12"), BaselineResult: "match", Call: 0},
				{RuleID: "rule-18", RuleVersion: 1, Class: "style", Label: "", Source: replay.SourceJudge,
					Result: "no_match", Confidence: nil, Fired: false, Action: datasets.ActionInjectInstruction,
					Status: "ok", Fingerprint: fingerprint("f18"), Call: 0},
				{RuleID: "rule-1", RuleVersion: 1, Class: "always", Label: "no_match", Source: replay.SourceDeterministic,
					Result: "match", Fired: true, Action: datasets.ActionAuditOnly, Status: "ok", Fingerprint: fingerprint("f1"), Call: -1},
			},
			Calls: []replay.Call{{Rules: 2, Status: "ok", LatencyMS: 412.5, Attempts: 1,
				ServerTotalMS: fp(400), ServerLoadMS: fp(0), ServerPromptEvalMS: fp(120.25), ServerEvalMS: fp(279.75),
				PromptTokens: ip(812), CompletionTokens: ip(40)}},
		},
		{ // no rule in scope: a gates row only; empty (not nil) tags
			RunID: run, CaseID: "c-2", SessionID: "s-1", Seq: 2, Judge: a,
			Model: "qwen2.5:3b", ModelDigest: "sha256:abc", PromptVersion: "p1",
			Permission: "off", GateAction: datasets.ActionAllow, Tags: []string{},
		},
		{ // cached call and a timed-out call, no server timings; failure policy
			RunID: run, CaseID: "c-3", SessionID: "s-2", Seq: 1, Judge: a,
			Model: "qwen2.5:3b", ModelDigest: "sha256:abc", PromptVersion: "p1",
			Permission: "ask", GateAction: datasets.ActionRequestApproval, ExpectedAction: datasets.ActionDenyCurrentTool,
			RulesInScope: 2, RulesJudged: 2, JudgeCalled: true, LatencyMS: fp(1000), Status: "timeout",
			Rules: []replay.RuleResult{
				{RuleID: "rule-12", RuleVersion: 3, Class: "dangerous", Label: "match", Source: replay.SourceCache,
					Result: "unknown", Confidence: fp(0), Action: datasets.ActionRequestApproval, Status: "unknown",
					Fingerprint: fingerprint("g12"), BaselineResult: "no_match", Call: 0},
				{RuleID: "rule-20", RuleVersion: 2, Class: "stop", Label: "no_match", Source: replay.SourceFailure,
					Result: "unknown", Action: datasets.ActionStopTask, Status: "timeout",
					Error: "context deadline exceeded", Fingerprint: fingerprint("g20"), Call: 1},
			},
			Calls: []replay.Call{
				{Rules: 1, Status: "ok", LatencyMS: 0.25, Cached: true},
				{Rules: 1, Status: "timeout", Error: "context deadline exceeded", Cause: "timeout", LatencyMS: 1000, Attempts: 2},
			},
		},
		{ // second judge, no model fields, scope-skipped rule
			RunID: run, CaseID: "c-1", SessionID: "s-1", Seq: 1, Judge: b,
			Permission: "allow", GateAction: datasets.ActionAllow, ExpectedAction: datasets.ActionRequestApproval,
			ApprovalOutcome: "denied", RulesInScope: 1, Tags: []string{"ja", "deletion"},
			Rules: []replay.RuleResult{
				{RuleID: "rule-12", RuleVersion: 3, Class: "dangerous", Label: "match", Source: replay.SourceScope,
					Result: "no_match", Action: datasets.ActionRequestApproval, Status: "ok", Fingerprint: fingerprint("f12"), Call: -1},
			},
		},
	}
}

// bulkResults generates n plausible results for benchmarks and batching tests.
func bulkResults(n int) []*replay.Result {
	out := make([]*replay.Result, n)
	for i := range out {
		r := &replay.Result{RunID: "bulk", CaseID: fmt.Sprintf("c-%07d", i), SessionID: fmt.Sprintf("s-%05d", i/16),
			Seq: int64(i % 16), Judge: "none", Permission: "allow", GateAction: datasets.ActionAllow,
			ExpectedAction: datasets.ActionAllow, Tags: []string{"en"}}
		for k := range i % 5 {
			label := []datasets.Label{"match", "no_match", ""}[(i+k)%3]
			r.Rules = append(r.Rules, replay.RuleResult{RuleID: fmt.Sprintf("rule-%d", k), RuleVersion: 1,
				Class: "dangerous", Label: label, Source: replay.SourceDeterministic, Result: "no_match",
				Action: datasets.ActionDenyCurrentTool, Status: "ok", Fingerprint: fingerprint(fmt.Sprint(i*7 + k)), Call: -1})
		}
		r.RulesInScope = len(r.Rules)
		out[i] = r
	}
	return out
}

// fixtureRule describes one rule of the summary fixture.
type fixtureRule struct {
	id       string
	class    replay.Class
	action   datasets.Action
	baseline bool
}

var summaryRules = []fixtureRule{
	{"rule-12", "dangerous", datasets.ActionRequestApproval, true},
	{"rule-18", "style", datasets.ActionInjectInstruction, false},
	{"rule-20", "stop", datasets.ActionStopTask, false},
	{"rule-30", "approval", datasets.ActionRequestApproval, false},
}

var actionRank = map[datasets.Action]int{
	datasets.ActionStopTask: 6, datasets.ActionDenyCurrentTool: 5, datasets.ActionRequestApproval: 4,
	datasets.ActionInjectInstruction: 3, datasets.ActionAuditOnly: 2, datasets.ActionNotifyAdmin: 2, datasets.ActionAllow: 1,
}

// summaryResults replays a small synthetic run for two recorded judge
// versions: v1 (the baseline, slower and noisier) and v2. Values come from
// integer arithmetic on the case number, so the run is the same every time.
func summaryResults() []*replay.Result {
	judges := []struct {
		id, model string
		errEvery  int // every n-th label flips
		latBase   float64
	}{
		{"recorded/judge-v1", "judge-v1", 5, 380},
		{"recorded/judge-v2", "judge-v2", 11, 240},
	}
	var out []*replay.Result
	for ci := range 120 {
		for ji, jd := range judges {
			r := &replay.Result{RunID: "run-fixture", CaseID: fmt.Sprintf("c-%03d", ci),
				SessionID: fmt.Sprintf("s-%02d", ci/6), Seq: int64(ci % 6), Judge: jd.id, Model: jd.model,
				PromptVersion: "p1", Permission: "off", GateAction: datasets.ActionAllow, Tags: []string{"ja"}}
			if ci%4 == 0 {
				r.ExpectedAction = datasets.ActionRequestApproval
			}
			judged := 0
			for ri, rule := range summaryRules {
				if (ci+ri)%3 == 2 || (rule.id == "rule-20" && ci%5 != 0) {
					continue // out of scope
				}
				truth := (ci*7+ri*3)%4 == 0
				label := datasets.LabelNoMatch
				if truth {
					label = datasets.LabelMatch
				}
				if (ci+ri)%9 == 0 {
					label = ""
				}
				guess := truth
				if (ci+ri*2)%jd.errEvery == 0 {
					guess = !guess
				}
				rr := replay.RuleResult{RuleID: rule.id, RuleVersion: 1 + ri, Class: rule.class, Label: label,
					Source: replay.SourceJudge, Result: "no_match", Action: rule.action, Status: "ok",
					Fingerprint: fingerprint(fmt.Sprintf("fp-%d-%d", ci, ri)), Call: 0}
				if guess {
					rr.Result = "match"
				}
				if (ci+ji+ri)%23 == 0 {
					rr.Result, rr.Status = "unknown", "unknown"
				}
				conf := 0.5 + float64((ci+ri)%50)/100
				rr.Confidence = &conf
				if rule.baseline {
					rr.BaselineResult = "no_match"
					if truth && ci%3 == 0 {
						rr.BaselineResult = "match"
					}
				}
				rr.Fired = rr.Result == "match"
				if rr.Fired && actionRank[rule.action] > actionRank[r.GateAction] {
					r.GateAction = rule.action
				}
				judged++
				r.Rules = append(r.Rules, rr)
			}
			r.RulesInScope = len(r.Rules)
			if judged > 0 {
				lat := jd.latBase + float64((ci*37)%400)
				if ci%40 == 39 {
					lat += 900 // a slow tail
				}
				r.RulesJudged, r.JudgeCalled, r.LatencyMS, r.Status = judged, true, &lat, "ok"
				r.Calls = []replay.Call{{Rules: judged, Status: "ok", LatencyMS: lat, Attempts: 1}}
			}
			if r.GateAction == datasets.ActionRequestApproval {
				r.ApprovalOutcome = []datasets.ApprovalOutcome{"approved", "denied", "approved", "ignored", "approved"}[ci%5]
			}
			out = append(out, r)
		}
	}
	return out
}

// fingerprint is one for fixtures: the SHA-256 of s, as replay.Digest
// holds it and decisions.parquet stores it.
func fingerprint(s string) replay.Digest {
	return sha256.Sum256([]byte(s))
}

package metrics

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/replay"
)

// benchDecisions is issue 3's target: 10,000,000 decisions at ≥ 2,000,000
// decisions/s in ≤ 200 MB. Shape: 1,000,000 cases × 2 judges × 5 rules in
// scope, 3 of them judged in one call per case (every tenth call a cache
// hit), labels on most pairs, a dangerous rule with a baseline.
const (
	benchCases  = 1_000_000
	benchJudges = 2
	benchRules  = 5
	benchMaxMB  = 200
)

func benchTemplates() [][]replay.RuleResult {
	var out [][]replay.RuleResult
	results := []judge.Result{"match", "no_match", "unknown"}
	labels := []datasets.Label{"match", "no_match", ""}
	for v := 0; v < 27; v++ {
		res, lab := results[v%3], labels[(v/3)%3]
		rules := []replay.RuleResult{
			{RuleID: "always-audit", RuleVersion: 1, Class: "always", Source: "deterministic", Result: "match", Fired: true, Action: "audit_only", Status: "ok", Call: -1},
			{RuleID: "no-force-push", RuleVersion: 2, Class: "dangerous", Source: "judge", Result: res, Label: lab, Fired: res == "match", Action: "deny_current_tool", Status: map[bool]judge.Status{true: "unknown", false: "ok"}[res == "unknown"], BaselineResult: judge.Result(labels[v%2]), Call: 0},
			{RuleID: "style-tests", RuleVersion: 1, Class: "style", Source: "judge", Result: results[(v/9)%3], Label: labels[v%3], Fired: results[(v/9)%3] == "match", Action: "inject_instruction", Status: "ok", Call: 0},
			{RuleID: "approve-deploy", RuleVersion: 1, Class: "approval", Source: "judge", Result: "no_match", Label: "no_match", Action: "request_approval", Status: "ok", Call: 0},
			{RuleID: "audit-net", RuleVersion: 1, Class: "audit", Source: "deterministic", Result: "no_match", Label: labels[v%3], Action: "audit_only", Status: "ok", Call: -1},
		}
		out = append(out, rules)
	}
	return out
}

func BenchmarkAccumulate(b *testing.B) { benchAccumulate(b, false) }

// BenchmarkAccumulateDistinct is BenchmarkAccumulate as `apeval run`
// accumulates: cases numbered as they come (Config.DistinctCases), no case
// interner.
func BenchmarkAccumulateDistinct(b *testing.B) { benchAccumulate(b, true) }

func benchAccumulate(b *testing.B, distinct bool) {
	ids := make([]string, benchCases)
	for i := range ids {
		ids[i] = fmt.Sprintf("case-%07d", i)
	}
	templates := benchTemplates()
	judges := []string{"ollama/qwen3:1.7b@abc+v1", "ollama/gemma3:1b@def+v1"}
	results := make([]replay.Result, benchJudges)
	for k := range results {
		results[k] = replay.Result{Judge: judges[k], RunID: "bench", Model: "m", PromptVersion: "v1",
			GateAction: "allow", JudgeCalled: true, Calls: make([]replay.Call, 1)}
	}
	cfg := Config{Criteria: replay.DefaultKillCriteria(), Baseline: judges[0], DistinctCases: distinct}
	decisions := int64(benchCases * benchJudges * benchRules)

	var before, after runtime.MemStats
	var peakMB, allocMB float64
	var elapsed time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&before)
		start := time.Now()
		b.StartTimer()

		a := New(cfg)
		for i, id := range ids {
			for k := range results {
				r := &results[k]
				r.CaseID = id
				r.Rules = templates[(i+k*7)%len(templates)]
				r.Calls[0] = replay.Call{Rules: 3, Status: "ok", LatencyMS: float64(50 + (i*31+k*17)%900), Cached: i%10 == 9}
				a.Add(r)
			}
		}
		b.StopTimer()
		runtime.GC()
		var mid runtime.MemStats
		runtime.ReadMemStats(&mid)
		b.StartTimer()

		s := a.Close()

		b.StopTimer()
		elapsed += time.Since(start)
		runtime.GC()
		runtime.ReadMemStats(&after)
		// Live heap held for the results: at its largest either just
		// before Close (all counts and paired data) or after it (the
		// Summary owns the paired data).
		live := max(mid.HeapAlloc, after.HeapAlloc) - before.HeapAlloc
		peakMB = max(peakMB, float64(live)/(1<<20))
		allocMB = float64(after.TotalAlloc-before.TotalAlloc) / (1 << 20)
		if s.Judge(judges[1]).Total.InScope != int64(benchCases*benchRules) {
			b.Fatalf("in scope = %d", s.Judge(judges[1]).Total.InScope)
		}
		runtime.KeepAlive(s)
		b.StartTimer()
	}
	b.StopTimer()
	b.ReportMetric(float64(decisions)*float64(b.N)/elapsed.Seconds(), "decisions/s")
	b.ReportMetric(peakMB, "live-MB")
	b.ReportMetric(allocMB, "alloc-MB/op")
	if peakMB > benchMaxMB {
		b.Errorf("accumulating %d decisions held %.0f MB, over the %d MB budget", decisions, peakMB, benchMaxMB)
	}
}

package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apeval/apeval/reports"
	"github.com/apeval/apeval/reports/rundir"
)

// TestCostFromWireUsage: token counts come from the real wire responses
// (Ollama prompt_eval_count/eval_count, OpenAI usage), prices from
// apeval.toml and --judge-option, and the cost per 1,000 tool calls is in
// summary.json, summary.md and compare, beside latency and quality. Price
// options never reach a backend.
func TestCostFromWireUsage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	liveDataset(t, dir, 10)
	pol := filepath.Join(dir, "policy.toml")
	os.WriteFile(pol, []byte(livePolicy), 0o644)
	ol := newOllamaServer(t, time.Millisecond)
	oa := newOpenAIServer(t, time.Millisecond, true)
	cfg := filepath.Join(dir, "apeval.toml")
	os.WriteFile(cfg, []byte(`schema = "apeval.config/v1"
datasets = ["cases.jsonl"]
policy = "policy.toml"

[[judge]]
spec = "ollama:tiny-judge"
options = { num_ctx = 2048 }
price_in = 0.0
price_out = 0.0

[[judge]]
spec = "openai:judge-large"
price_in = 0.15
`), 0o644)
	out := filepath.Join(dir, "run")
	// price_out of every judge from the command line: it overrides the
	// file's 0 for the Ollama judge too.
	code, _, stderr := apeval(t, "", "run", "--config", cfg, "--ollama-host", ol.URL, "--openai-base-url", oa.URL+"/v1",
		"--no-cache", "--judge-option", "price_out=0.60", "--out", out, "-q")
	if code == exitUsage {
		t.Fatalf("exit 2: %s", stderr)
	}
	close(ol.bodies)
	close(oa.bodies)
	for _, ch := range []chan string{ol.bodies, oa.bodies} {
		for body := range ch {
			if strings.Contains(body, "price_") {
				t.Fatalf("a price option reached the backend: %s", body)
			}
		}
	}
	var sum struct {
		Cost map[string]reports.JudgeCost `json:"cost"`
	}
	data, _ := os.ReadFile(filepath.Join(out, "summary.json"))
	if err := json.Unmarshal(data, &sum); err != nil {
		t.Fatal(err)
	}
	var o, a *reports.JudgeCost
	for id, c := range sum.Cost {
		c := c
		switch {
		case strings.HasPrefix(id, "ollama/"):
			o = &c
		case strings.HasPrefix(id, "openai/"):
			a = &c
		}
	}
	if o == nil || a == nil {
		t.Fatalf("cost entries %v", sum.Cost)
	}
	near := func(name string, got *float64, want float64) {
		t.Helper()
		if got == nil || math.Abs(*got-want) > 1e-9 {
			t.Errorf("%s = %v, want %g", name, got, want)
		}
	}
	// 10 tool calls, one judge call each. Ollama answers prompt_eval_count
	// 120, eval_count 30: per 1,000 tool calls 120 × 1000 = 120,000 and
	// 30,000; price 0 in, 0.60 out (flag over file) → 30,000/1e6 × 0.60 = 0.018.
	if o.Cases != 10 || o.Calls != 10 || o.CallsWithUsage != 10 {
		t.Errorf("ollama counts %+v", o)
	}
	near("ollama prompt/call", o.PromptTokensPerCall, 120)
	near("ollama completion/call", o.CompletionTokensPerCall, 30)
	near("ollama prompt/1k", o.PromptTokensPer1k, 120000)
	near("ollama completion/1k", o.CompletionTokensPer1k, 30000)
	near("ollama cost/1k", o.CostPer1kToolCalls, 0.018)
	// OpenAI usage 150 / 25: 150,000 × 0.15/1e6 + 25,000 × 0.60/1e6
	// = 0.0225 + 0.015 = 0.0375.
	near("openai prompt/call", a.PromptTokensPerCall, 150)
	near("openai completion/1k", a.CompletionTokensPer1k, 25000)
	near("openai cost/1k", a.CostPer1kToolCalls, 0.0375)
	if a.LatencyP95MS == nil || *a.LatencyP95MS < 1 {
		t.Errorf("latency beside cost: %v", a.LatencyP95MS)
	}
	// run.json keeps the prices.
	info, err := rundir.ReadRunInfo(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range info.Judges {
		if j.Backend == "openai" && (j.PriceIn == nil || *j.PriceIn != 0.15 || j.PriceOut == nil || *j.PriceOut != 0.60) {
			t.Errorf("run.json prices of %s: %v %v", j.Identity, j.PriceIn, j.PriceOut)
		}
	}
	md, _ := os.ReadFile(filepath.Join(out, "summary.md"))
	if !strings.Contains(string(md), "cost/1k tool calls") || !strings.Contains(string(md), "0.0375") && !strings.Contains(string(md), "0.038") {
		t.Errorf("summary.md lacks the cost row:\n%s", md)
	}
	// compare shows cost, latency and quality of both judges together.
	code, stdout, stderr := apeval(t, "", "compare", "--baseline", "ollama", "--format", "table", out)
	if code == exitUsage {
		t.Fatalf("compare: %s", stderr)
	}
	if !strings.Contains(stdout, "cost/1k tool calls") || !strings.Contains(stdout, "0.018") || !strings.Contains(stdout, "150 / 25") {
		t.Errorf("compare lacks the cost table:\n%s", stdout)
	}
	// A bad price is a usage error.
	if code, _, stderr := apeval(t, "", "run", "--config", cfg, "--judge-option", "price_in=cheap", "-q", "--out", filepath.Join(dir, "x")); code != exitUsage || !strings.Contains(stderr, "price_in") {
		t.Errorf("bad price: exit %d: %s", code, stderr)
	}
}

// TestRecordedTokens: a recorded judge's cost comes from the token counts
// recorded with its calls.
func TestRecordedTokens(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pol := filepath.Join(dir, "policy.toml")
	os.WriteFile(pol, []byte(livePolicy), 0o644)
	var b strings.Builder
	// Four cases, each one recorded call: 200/40 tokens on two, 100/20 on
	// one, none recorded on the fourth.
	toks := []string{`,"prompt_tokens":200,"completion_tokens":40`, `,"prompt_tokens":200,"completion_tokens":40`, `,"prompt_tokens":100,"completion_tokens":20`, ``}
	for i, tk := range toks {
		b.WriteString(`{"id":"c` + string(rune('0'+i)) + `","tool":{"name":"Bash","arguments":{"command":"rm -rf x"}},"labels":{"nl-delete":"match"},` +
			`"recorded":[{"judge":"prod","latency_ms":100,"decisions":[{"rule_id":"nl-delete","result":"match"}]` + tk + `}]}` + "\n")
	}
	ds := filepath.Join(dir, "cases.jsonl")
	os.WriteFile(ds, []byte(b.String()), 0o644)
	out := filepath.Join(dir, "run")
	if code, _, stderr := apeval(t, "", "run", "--dataset", ds, "--policy", pol, "--judge", "recorded:prod", "--judge-option", "price_in=1", "--judge-option", "price_out=2", "--out", out, "-q"); code == exitUsage {
		t.Fatal(stderr)
	}
	var sum struct {
		Cost map[string]reports.JudgeCost `json:"cost"`
	}
	data, _ := os.ReadFile(filepath.Join(out, "summary.json"))
	json.Unmarshal(data, &sum)
	c, ok := sum.Cost["recorded/prod"]
	if !ok {
		t.Fatalf("cost %v", sum.Cost)
	}
	// 3 of 4 calls carry usage: prompt (200+200+100)/3 = 166.67 per call,
	// completion 100/3 = 33.33; 4 calls per 4 tool calls → ×1000 per 1k.
	// Cost per 1k: 166,666.7/1e6 × 1 + 33,333.3/1e6 × 2 = 0.1667 + 0.0667 = 0.2333.
	if c.CallsWithUsage != 3 || c.Calls != 4 || c.Cases != 4 {
		t.Fatalf("counts %+v", c)
	}
	if c.PromptTokensPerCall == nil || math.Abs(*c.PromptTokensPerCall-500.0/3) > 1e-9 ||
		c.CostPer1kToolCalls == nil || math.Abs(*c.CostPer1kToolCalls-(500.0/3*1000/1e6+100.0/3*1000/1e6*2)) > 1e-12 {
		t.Fatalf("recorded cost %+v", c)
	}
}

// `apeval compare --json` carries each judge's tokens and cost beside the
// figures, as summary.json does: two recorded judges, one with 300/60
// tokens on every call, one with 100/10, one call per case.
func TestCompareJSONCarriesCost(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pol := filepath.Join(dir, "policy.toml")
	os.WriteFile(pol, []byte(livePolicy), 0o644)
	var b strings.Builder
	for i := range 4 {
		b.WriteString(`{"id":"c` + string(rune('0'+i)) + `","tool":{"name":"Bash","arguments":{"command":"rm -rf x"}},"labels":{"nl-delete":"match"},"recorded":[` +
			`{"judge":"old","latency_ms":300,"prompt_tokens":300,"completion_tokens":60,"decisions":[{"rule_id":"nl-delete","result":"match"}]},` +
			`{"judge":"new","latency_ms":100,"prompt_tokens":100,"completion_tokens":10,"decisions":[{"rule_id":"nl-delete","result":"match"}]}]}` + "\n")
	}
	ds := filepath.Join(dir, "cases.jsonl")
	os.WriteFile(ds, []byte(b.String()), 0o644)
	out := filepath.Join(dir, "run")
	if code, _, stderr := apeval(t, "", "run", "--dataset", ds, "--policy", pol, "--out", out, "-q"); code == exitUsage {
		t.Fatal(stderr)
	}
	code, stdout, stderr := apeval(t, "", "compare", "--baseline", "recorded/old", "--json", out)
	if code == exitUsage {
		t.Fatal(stderr)
	}
	var cmp struct {
		Baseline, Candidate string
		Cost                map[string]reports.JudgeCost `json:"cost"`
		Total               struct {
			Figures []json.RawMessage `json:"figures"`
		} `json:"total"`
	}
	if err := json.Unmarshal([]byte(stdout), &cmp); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if len(cmp.Total.Figures) == 0 {
		t.Errorf("the comparison's own keys are gone: %s", stdout)
	}
	for judge, want := range map[string][2]float64{"recorded/old": {300, 60}, "recorded/new": {100, 10}} {
		c, ok := cmp.Cost[judge]
		if !ok || c.PromptTokensPerCall == nil || c.CompletionTokensPerCall == nil {
			t.Fatalf("%s: cost %+v", judge, cmp.Cost)
		}
		if *c.PromptTokensPerCall != want[0] || *c.CompletionTokensPerCall != want[1] {
			t.Errorf("%s: tokens per call %v/%v, want %v/%v", judge, *c.PromptTokensPerCall, *c.CompletionTokensPerCall, want[0], want[1])
		}
	}
}

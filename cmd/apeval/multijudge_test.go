package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apeval/apeval/judge"
)

// promptVariant is a prompt file: the built-in prompt's shape with its own
// version and a marker the test server can see.
func promptVariant(version, marker string) string {
	return "version: " + version + "\n" + marker + ` Answer {"version":1,"decisions":[{"rule_id":"<id>","result":"match|no_match|unknown","confidence":0.9}]}` +
		"\n=== user ===\nRules to decide: {{rule_ids}}\n<data>\n{{input}}\n</data>\n"
}

// Two [[judge]] tables with one spec, each with its own server, API key
// variable and prompt: two identities, and every call reaches its own
// server with its own prompt and key.
func TestJudgeTablesEachTheirOwn(t *testing.T) {
	dir := t.TempDir()
	liveDataset(t, dir, 10)
	pol := filepath.Join(dir, "policy.toml")
	os.WriteFile(pol, []byte(livePolicy), 0o644)
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte(promptVariant("pa", "PROMPT-A")), 0o644)
	os.WriteFile(filepath.Join(dir, "b.txt"), []byte(promptVariant("pb", "PROMPT-B")), 0o644)
	a := newOpenAIServer(t, time.Millisecond, false)
	b := newOpenAIServer(t, time.Millisecond, true)
	t.Setenv("JUDGE_B_KEY", "sk-test-bbbbbbbbbbbbbbbbbbbbbbbb")
	cfg := fmt.Sprintf(`datasets = ["cases.jsonl"]
policy = "policy.toml"

[[judge]]
spec = "openai:judge-large"
base_url = %q
prompt = "a.txt"
price_in = 0.1

[[judge]]
spec = "openai:judge-large"
base_url = %q
api_key_env = "JUDGE_B_KEY"
prompt = "b.txt"
options = { max_tokens = 64 }
price_in = 2.5
`, a.URL+"/v1", b.URL+"/v1")
	cfgPath := filepath.Join(dir, "apeval.toml")
	os.WriteFile(cfgPath, []byte(cfg), 0o644)
	out := filepath.Join(dir, "run")
	code, stdout, stderr := apeval(t, "", "run", "--config", cfgPath, "--no-cache", "--out", out, "-q", "--json")
	if code == exitUsage {
		t.Fatalf("exit 2: %s", stderr)
	}
	if a.calls.Load() != 10 || b.calls.Load() != 10 {
		t.Fatalf("calls: server A %d, server B %d; want 10 each", a.calls.Load(), b.calls.Load())
	}
	close(a.bodies)
	close(b.bodies)
	for body := range a.bodies {
		if !strings.Contains(body, "PROMPT-A") || strings.Contains(body, "PROMPT-B") || strings.Contains(body, "max_tokens") {
			t.Fatalf("server A got another judge's request: %.200s", body)
		}
	}
	for body := range b.bodies {
		if !strings.Contains(body, "PROMPT-B") || !strings.Contains(body, `"max_tokens":64`) {
			t.Fatalf("server B got another judge's request: %.300s", body)
		}
	}
	var sum struct {
		Judges []metricsRow `json:"judges"`
	}
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatalf("--json: %v\n%s", err, stdout)
	}
	if len(sum.Judges) != 2 {
		t.Fatalf("judges %+v", sum.Judges)
	}
	ids := map[string]metricsRow{}
	for _, j := range sum.Judges {
		ids[j.Judge] = j
	}
	ja, jb := ids["openai/judge-large+pa@"+promptHash(t, dir, "a.txt")], ids["openai/judge-large+pb@"+promptHash(t, dir, "b.txt")]
	if ja.Judge == "" || jb.Judge == "" {
		t.Fatalf("identities %v", ids)
	}
	// Server A answers like the truth, server B says match to everything.
	if ja.Total.FP != 0 || jb.Total.FP != 4 {
		t.Errorf("FP: A %d (want 0), B %d (want 4)", ja.Total.FP, jb.Total.FP)
	}
	// run.json: each judge's own settings and prices; the key's variable, never the key.
	raw, _ := os.ReadFile(filepath.Join(out, "run.json"))
	if strings.Contains(string(raw), "sk-test-bbbb") {
		t.Fatal("run.json carries the API key")
	}
	for _, want := range []string{`"api_key_env": "JUDGE_B_KEY"`, `"price_in": 2.5`, `"price_in": 0.1`, b.URL} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("run.json lacks %s:\n%s", want, raw)
		}
	}
}

// The key of server B's judge reaches server B only.
func TestJudgeTableKeyGoesToItsServer(t *testing.T) {
	dir := t.TempDir()
	ds := liveDataset(t, dir, 4)
	pol := filepath.Join(dir, "policy.toml")
	os.WriteFile(pol, []byte(livePolicy), 0o644)
	a := newOpenAIServer(t, 0, false)
	b := newOpenAIServer(t, 0, false)
	t.Setenv("JUDGE_B_KEY", "sk-test-bbbbbbbbbbbbbbbbbbbbbbbb")
	var authA, authB []string
	a.auth, b.auth = &authA, &authB
	os.WriteFile(filepath.Join(dir, "b.txt"), []byte(promptVariant("pb", "PROMPT-B")), 0o644)
	cfgPath := filepath.Join(dir, "apeval.toml")
	os.WriteFile(cfgPath, []byte(fmt.Sprintf(`
[[judge]]
spec = "openai:judge-large"
base_url = %q

[[judge]]
spec = "openai:judge-large"
base_url = %q
api_key_env = "JUDGE_B_KEY"
prompt = "b.txt"
`, a.URL+"/v1", b.URL+"/v1")), 0o644)
	code, _, stderr := apeval(t, "", "run", "--config", cfgPath, "--dataset", ds, "--policy", pol, "--no-cache",
		"--out", filepath.Join(dir, "run"), "-q", "--openai-api-key-env", "NO_SUCH_KEY_VAR")
	if code == exitUsage {
		t.Fatalf("exit 2: %s", stderr)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, h := range authA {
		if h != "" {
			t.Fatalf("server A got an Authorization header %q", h)
		}
	}
	if len(authB) == 0 {
		t.Fatal("server B saw no request")
	}
	for _, h := range authB {
		if h != "Bearer sk-test-bbbbbbbbbbbbbbbbbbbbbbbb" {
			t.Fatalf("server B got Authorization %q", h)
		}
	}
}

// --judge SPEC@URL carries a server on the command line: two flags, two
// servers, and the identities differ by prompt.
func TestJudgeFlagWithServer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ds := liveDataset(t, dir, 6)
	pol := filepath.Join(dir, "policy.toml")
	os.WriteFile(pol, []byte(livePolicy), 0o644)
	a := newOpenAIServer(t, 0, false)
	ol := newOllamaServer(t, 0)
	code, stdout, stderr := apeval(t, "", "run", "--dataset", ds, "--policy", pol, "--no-cache", "-q", "--json",
		"--out", filepath.Join(dir, "run"),
		"--judge", "openai:judge-large@"+a.URL+"/v1", "--judge", "ollama:tiny-judge@"+ol.URL)
	if code == exitUsage {
		t.Fatalf("exit 2: %s", stderr)
	}
	if a.calls.Load() != 6 || ol.calls.Load() != 6 {
		t.Fatalf("calls: openai %d, ollama %d; want 6 each", a.calls.Load(), ol.calls.Load())
	}
	if !strings.Contains(stdout, `"openai/judge-large+p1"`) {
		t.Errorf("no openai/judge-large judge in %s", stdout)
	}
	// A bad server is a usage error naming the flag.
	code, _, stderr = apeval(t, "", "run", "--dataset", ds, "--policy", pol, "--no-cache", "-q",
		"--out", filepath.Join(dir, "bad"), "--judge", "openai:judge-large@http://")
	if code != exitUsage || !strings.Contains(stderr, "--judge openai:judge-large@http://") {
		t.Fatalf("bad URL: exit %d, %s", code, stderr)
	}
}

func promptHash(t *testing.T, dir, name string) string {
	t.Helper()
	p, err := judge.LoadPrompt(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	_, h, _ := strings.Cut(p.Version, "@")
	return h
}

// One model and prompt on two servers (a local vLLM and a hosted
// endpoint): the servers tell the two identities apart; the same server
// twice is refused.
func TestSameModelOnTwoServers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ds := liveDataset(t, dir, 6)
	pol := filepath.Join(dir, "policy.toml")
	os.WriteFile(pol, []byte(livePolicy), 0o644)
	a := newOpenAIServer(t, 0, false)
	b := newOpenAIServer(t, 0, true)
	code, stdout, stderr := apeval(t, "", "run", "--dataset", ds, "--policy", pol, "--cache", filepath.Join(dir, "cache"), "-q", "--json",
		"--out", filepath.Join(dir, "run"), "--judge", "openai:judge-large@"+a.URL+"/v1", "--judge", "openai:judge-large@"+b.URL+"/v1")
	if code == exitUsage {
		t.Fatalf("exit 2: %s", stderr)
	}
	if a.calls.Load() != 6 || b.calls.Load() != 6 {
		t.Fatalf("calls: A %d, B %d; want 6 each", a.calls.Load(), b.calls.Load())
	}
	for _, s := range []*liveServer{a, b} {
		id := "openai/judge-large@" + strings.TrimPrefix(s.URL, "http://") + "+p1"
		if !strings.Contains(stdout, `"judge": "`+id+`"`) {
			t.Errorf("no judge %s in the summary", id)
		}
	}
	// Each has its own cache entries: a rerun asks neither server again.
	apeval(t, "", "run", "--dataset", ds, "--policy", pol, "--cache", filepath.Join(dir, "cache"), "-q",
		"--out", filepath.Join(dir, "rerun"), "--judge", "openai:judge-large@"+a.URL+"/v1", "--judge", "openai:judge-large@"+b.URL+"/v1")
	if a.calls.Load() != 6 || b.calls.Load() != 6 {
		t.Fatalf("rerun calls: A %d, B %d", a.calls.Load(), b.calls.Load())
	}
	code, _, stderr = apeval(t, "", "run", "--dataset", ds, "--policy", pol, "--no-cache", "-q",
		"--out", filepath.Join(dir, "dup"), "--judge", "openai:judge-large@"+a.URL+"/v1", "--judge", "openai:judge-large@"+a.URL+"/v1")
	if code != exitUsage || !strings.Contains(stderr, "on the same server") {
		t.Fatalf("same server twice: exit %d, %s", code, stderr)
	}
}

package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

const importTestdata = "../../datasets/importers/testdata/"

// Every importer, through the command: the cases it writes pass
// `datasets validate` and replay end to end; bad records make exit 2 with
// file:line on stderr, and --summary writes the counts.
func TestImportCommandEndToEnd(t *testing.T) {
	policy := `schema = "apeval.policy/v1"
[[rule]]
id = "unsafe-action"
condition = "the call can cause harm that is hard to undo"
action = "request_approval"
class = "dangerous"
hook_points = ["tool.before", "completion.before_accept"]
[rule.when]
command_prefix = ["rm", "sudo", "psql", "curl"]
`
	dir := writeFiles(t, map[string]string{"policy.toml": policy})
	for _, tc := range []struct {
		format, src, badLine string
		cases                int
	}{
		{"claude-code-transcript", "claude-code-transcript", "7d3f0c1e-5a2b-4c6d-9e8f-0a1b2c3d4e5f.jsonl:15: truncated JSON object", 4},
		{"claude-code-hooks", "claude-code-hooks/hooks.jsonl", "hooks.jsonl:9: truncated JSON object", 3},
		{"codex-rollout", "codex-rollout", ".jsonl:15: truncated JSON object", 6},
		{"r-judge", "r-judge", "Finance/harmful.json:19: record 1: truncated JSON object", 12},
		{"trajectory-events", "trajectory-events/events.jsonl", "events.jsonl:5: target: required", 4},
		{"opencode", "opencode", "prt_c0e5d4a1b205Be.json:1: truncated JSON object", 3},
		{"claude-code-stream-json", "claude-code-stream-json/run.jsonl", "run.jsonl:11: truncated JSON object", 3},
		{"codex-exec-json", "codex-exec-json/exec.jsonl", "exec.jsonl:12: truncated JSON object", 4},
		{"gemini-cli", "gemini-cli", "session-2026-01-20T08-30-7a8b9c0d.jsonl:9: truncated JSON object", 4},
		{"otel-genai-spans", "otel-genai-spans", "traces.jsonl:3: not an OTLP JSON trace export", 3},
		{"claude-code-otel", "claude-code-otel/logs.jsonl", "logs.jsonl:3: not an OTLP JSON log export", 4},
	} {
		t.Run(tc.format, func(t *testing.T) {
			out := filepath.Join(dir, tc.format+".jsonl")
			sumFile := filepath.Join(dir, tc.format+".summary.json")
			src := importTestdata + tc.src
			if tc.format == "claude-code-hooks" {
				// transcript_path in the payloads is relative to the importers package.
				wd, _ := os.Getwd()
				t.Chdir("../../datasets/importers")
				src = "testdata/" + tc.src
				out, sumFile = filepath.Join(dir, "hooks.jsonl"), filepath.Join(dir, "hooks.summary.json")
				defer t.Chdir(wd)
			}
			code, _, stderr := apeval(t, "", "datasets", "import", "--from", tc.format, src, "--out", out, "--summary", sumFile)
			if code != exitUsage || !strings.Contains(stderr, tc.badLine) {
				t.Fatalf("exit %d (want 2 for the bad records), stderr:\n%s", code, stderr)
			}
			if !strings.Contains(stderr, tc.format+": ") || !strings.Contains(stderr, " cases, ") {
				t.Errorf("no summary line on stderr:\n%s", stderr)
			}
			// Without --from the same format is detected, and named.
			if _, _, stderr := apeval(t, "", "datasets", "import", src, "--out", out+".auto"); !strings.Contains(stderr, "format "+tc.format+" (detected from ") {
				t.Errorf("auto detection:\n%s", stderr)
			}
			var sum struct {
				Cases  int `json:"cases"`
				Errors int `json:"errors"`
			}
			data, err := os.ReadFile(sumFile)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(data, &sum); err != nil || sum.Cases != tc.cases || sum.Errors == 0 {
				t.Fatalf("summary %s: %+v %v", data, sum, err)
			}
			if code, stdout, stderr := apeval(t, "", "datasets", "validate", out); code != 0 {
				t.Fatalf("validate: exit %d\n%s%s", code, stdout, stderr)
			}
			run := filepath.Join(dir, tc.format+"-run")
			code, _, stderr = apeval(t, "", "run", "--dataset", out, "--policy", filepath.Join(dir, "policy.toml"), "--judge", "none", "--out", run, "-q")
			if code == exitUsage {
				t.Fatalf("run: exit 2: %s", stderr)
			}
			if rs := readResults(t, run); len(rs) != tc.cases {
				t.Errorf("run replayed %d cases, want %d", len(rs), tc.cases)
			}
		})
	}
}

// Four trajectory events, imported and replayed with a network boundary
// rule, come out ALLOW, ALLOW, REVIEW, PAUSE.
func TestImportTrajectorySeed002(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{"policy.toml": `schema = "apeval.policy/v1"
[[rule]]
id = "network-boundary"
class = "approval"
[rule.boundary]
kind = "network"
review_at = 1
pause_at = 2
`, "events.jsonl": `{"kind": "command", "target": "/tmp/agent-demo/tests"}
{"kind": "write", "target": "/tmp/agent-demo/report.json"}
{"kind": "network", "target": "https://example.test/api"}
{"kind": "network", "target": "https://example.test/api"}
`})
	cases := filepath.Join(dir, "cases.jsonl")
	if code, _, stderr := apeval(t, "", "datasets", "import", "--from", "trajectory-events", "--workspace", "/tmp/agent-demo",
		filepath.Join(dir, "events.jsonl"), "--out", cases); code != 0 {
		t.Fatalf("import: exit %d: %s", code, stderr)
	}
	run := filepath.Join(dir, "run")
	apeval(t, "", "run", "--dataset", cases, "--policy", filepath.Join(dir, "policy.toml"), "--judge", "none", "--out", run, "-q")
	var got []string
	for _, r := range readResults(t, run) {
		got = append(got, string(r.GateAction))
	}
	want := "allow,allow,request_approval,stop_task"
	if strings.Join(got, ",") != want {
		t.Errorf("gate actions %v, want %s", got, want)
	}
}

func TestImportCommandUsage(t *testing.T) {
	t.Parallel()
	// Without --from the format is detected and named.
	code, _, stderr := apeval(t, "", "datasets", "import", importTestdata+"codex-rollout-current", "--out", filepath.Join(t.TempDir(), "c.jsonl"))
	if code != 0 || !strings.Contains(stderr, "format codex-rollout (detected from the first records of") {
		t.Errorf("no --from: exit %d %s", code, stderr)
	}
	// A wrong --from is an error naming the format the records look like.
	code, _, stderr = apeval(t, "", "datasets", "import", "--from", "claude-code-transcript", importTestdata+"codex-rollout-current", "--out", filepath.Join(t.TempDir(), "c.jsonl"))
	if code != exitUsage || !strings.Contains(stderr, "look like codex-rollout, not claude-code-transcript") {
		t.Errorf("wrong --from: exit %d %s", code, stderr)
	}
	if code, _, stderr := apeval(t, "", "datasets", "import", "--from", "bogus", "x"); code != exitUsage || !strings.Contains(stderr, "unknown format") {
		t.Errorf("bad format: exit %d %s", code, stderr)
	}
	// Stdin to stdout, a clean input: exit 0, cases on stdout.
	code, stdout, stderr := apeval(t, `{"kind":"network","target":"https://x.test","session":"s"}`+"\n", "datasets", "import", "--from", "trajectory-events", "-", "--out", "-")
	if code != 0 || !strings.Contains(stdout, `"id":"traj-s-L1"`) || !strings.Contains(stderr, "stdin: 1 records, 1 cases") {
		t.Errorf("stdin: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

func TestStatsByTool(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{
		"policy.toml": "schema = \"apeval.policy/v1\"\n[categories]\ndeploy = \"external_send\"\n",
		"cases.jsonl": `{"id":"a","tool":{"name":"GmailReadEmail"}}
{"id":"b","tool":{"name":"FooTransferFunds"}}
{"id":"c","tool":{"name":"deploy"}}
{"id":"d","tool":{"name":"Bash","category":"remote_shell"}}
{"id":"e","tool":{"name":"GmailReadEmail"}}
`})
	code, stdout, stderr := apeval(t, "", "datasets", "stats", "--by-tool", "--format", "tsv", "--policy", filepath.Join(dir, "policy.toml"), filepath.Join(dir, "cases.jsonl"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := "tool\tcases\tcategory\tsource\n" +
		"GmailReadEmail\t2\tother\ttable\n" +
		"Bash\t1\tremote_shell\trecord\n" +
		"FooTransferFunds\t1\texternal_send\theuristic\n" +
		"deploy\t1\texternal_send\tpolicy\n"
	if stdout != want {
		t.Errorf("got\n%s\nwant\n%s", stdout, want)
	}
}

// The team's own Claude Code rules as the baseline: datasets stats and the
// gate-action table count what they would allow, ask or deny.
func TestPermissionsFrom(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{
		"settings.json": `{"permissions": {"allow": ["Bash(ls:*)"], "ask": ["Bash(git push:*)"], "deny": ["Bash(rm:*)"]}}`,
		"policy.toml":   "schema = \"apeval.policy/v1\"\n[[rule]]\nid = \"r\"\naction = \"audit_only\"\nclass = \"audit\"\n[rule.when]\ncommand_prefix = [\"rm\"]\n",
		"cases.jsonl": `{"id":"a","tool":{"name":"Bash","arguments":{"command":"ls -la"}}}
{"id":"b","tool":{"name":"Bash","arguments":{"command":"rm -rf build"}}}
{"id":"c","tool":{"name":"Bash","arguments":{"command":"git push origin main"}}}
{"id":"d","tool":{"name":"Bash","arguments":{"command":"make"}}}
{"id":"e","tool":{"name":"Read","arguments":{"file_path":"README.md"}}}
`})
	spec := "claude-code:" + filepath.Join(dir, "settings.json")
	pol, cases := filepath.Join(dir, "policy.toml"), filepath.Join(dir, "cases.jsonl")
	// ls allow, Read allow (no permission needed), rm deny, git push ask,
	// make: no rule, the layer's default ask.
	code, stdout, stderr := apeval(t, "", "datasets", "stats", "--json", "--policy", pol, "--permissions-from", spec, cases)
	var st struct {
		Permissions map[string]int `json:"permissions"`
	}
	if err := json.Unmarshal([]byte(stdout), &st); code != 0 || err != nil {
		t.Fatalf("exit %d: %v\n%s", code, err, stderr)
	}
	if st.Permissions["allow"] != 2 || st.Permissions["ask"] != 2 || st.Permissions["deny"] != 1 {
		t.Errorf("permissions %v, want allow 2, ask 2, deny 1", st.Permissions)
	}
	run := filepath.Join(dir, "run")
	code, stdout, stderr = apeval(t, "", "run", "--dataset", cases, "--policy", pol, "--permissions-from", spec, "--judge", "none", "--out", run, "--format", "table")
	if code == exitUsage {
		t.Fatalf("run: %s", stderr)
	}
	if !strings.Contains(stdout, "allow 2, ask 2, deny 1") {
		t.Errorf("gate table lacks the permission counts:\n%s", stdout)
	}
	gates := map[string]string{}
	for _, r := range readResults(t, run) {
		gates[r.CaseID] = r.Permission + "/" + string(r.GateAction)
	}
	if gates["b"] != "deny/deny_current_tool" || gates["c"] != "ask/request_approval" || gates["a"] != "allow/allow" {
		t.Errorf("gates %v", gates)
	}
	if code, _, stderr := apeval(t, "", "datasets", "stats", "--permissions-from", "claude-code:/nope.json", cases); code != exitUsage || !strings.Contains(stderr, "nope.json") {
		t.Errorf("missing file: exit %d %s", code, stderr)
	}
}

// Compressed datasets read in run and datasets commands, by their magic
// bytes (the .data name says nothing).
func TestCompressedDatasets(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{"policy.toml": twoRulePolicy})
	cases := `{"id":"a","tool":{"name":"Bash","arguments":{"command":"git push origin main"}},"labels":{"git-audit":"match"}}
{"id":"b","tool":{"name":"Bash","arguments":{"command":"ls"}},"labels":{"git-audit":"no_match"}}
`
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(cases))
	zw.Close()
	enc, _ := zstd.NewWriter(nil)
	zst := enc.EncodeAll([]byte(cases), nil)
	enc.Close()
	gzPath, zstPath := filepath.Join(dir, "cases.jsonl.gz"), filepath.Join(dir, "cases.data")
	os.WriteFile(gzPath, gz.Bytes(), 0o644)
	os.WriteFile(zstPath, zst, 0o644)
	for _, p := range []string{gzPath, zstPath} {
		if code, _, stderr := apeval(t, "", "datasets", "validate", p); code != 0 || !strings.Contains(stderr, "2 valid, 0 invalid") {
			t.Errorf("validate %s: exit %d %s", p, code, stderr)
		}
		out := filepath.Join(dir, filepath.Base(p)+"-run")
		if code, _, stderr := apeval(t, "", "run", "--dataset", p, "--policy", filepath.Join(dir, "policy.toml"), "--judge", "none", "--out", out, "-q"); code == exitUsage {
			t.Fatalf("run %s: %s", p, stderr)
		}
		if rs := readResults(t, out); len(rs) != 2 {
			t.Errorf("run %s: %d results", p, len(rs))
		}
	}
	labels := filepath.Join(dir, "labels.jsonl")
	os.WriteFile(labels, []byte(`{"id":"b","labels":{"other":"match"}}`+"\n"), 0o644)
	merged := filepath.Join(dir, "merged.jsonl")
	if code, _, stderr := apeval(t, "", "datasets", "label-import", "--dataset", zstPath, "--labels", labels, "--out", merged); code != 0 {
		t.Fatalf("label-import: exit %d %s", code, stderr)
	}
	if data, _ := os.ReadFile(merged); !strings.Contains(string(data), `"other":"match"`) {
		t.Errorf("merged %s", data)
	}
}

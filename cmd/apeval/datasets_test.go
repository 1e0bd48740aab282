package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A session whose seq goes backwards is refused by datasets validate as by
// run (one shared check), and a run that fails on its input leaves no run
// directory behind.
func TestValidateAndRunShareSeqCheck(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{
		"policy.toml": twoRulePolicy,
		"back.jsonl": `{"id":"a","session_id":"s","seq":4,"tool":{"name":"Bash","arguments":{"command":"ls"}}}
{"id":"b","session_id":"s","seq":1,"tool":{"name":"Bash","arguments":{"command":"ls"}}}
`,
	})
	ds, pol := filepath.Join(dir, "back.jsonl"), filepath.Join(dir, "policy.toml")
	const want = `back.jsonl:2: session "s": seq 1 comes after seq 4`
	code, stdout, _ := apeval(t, "", "datasets", "validate", ds)
	if code != exitUsage || !strings.Contains(stdout, want) {
		t.Errorf("validate: exit %d, stdout %q; want exit 2 and %q", code, stdout, want)
	}
	out := filepath.Join(dir, "nested", "run")
	code, _, stderr := apeval(t, "", "run", "--dataset", ds, "--policy", pol, "--judge", "none", "--out", out, "-q")
	if code != exitUsage || !strings.Contains(stderr, want) {
		t.Errorf("run: exit %d, stderr %q; want exit 2 and %q", code, stderr, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "nested")); !os.IsNotExist(err) {
		t.Errorf("a run that failed on its input left its directory: %v", err)
	}
}

// Zero-based sessions and a session split across two files replay.
func TestSeqZeroAndSplitSession(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{
		"policy.toml": twoRulePolicy,
		"zero.jsonl": `{"id":"a","session_id":"s","seq":0,"tool":{"name":"Bash","arguments":{"command":"ls"}}}
{"id":"b","session_id":"s","seq":1,"tool":{"name":"Bash","arguments":{"command":"ls"}}}
{"id":"c","session_id":"t","tool":{"name":"Bash","arguments":{"command":"ls"}}}
`,
		"more.jsonl": `{"id":"d","session_id":"t","tool":{"name":"Bash","arguments":{"command":"ls"}}}
`,
	})
	out := filepath.Join(dir, "run")
	code, _, stderr := apeval(t, "", "run", "--dataset", filepath.Join(dir, "zero.jsonl"), "--dataset", filepath.Join(dir, "more.jsonl"),
		"--policy", filepath.Join(dir, "policy.toml"), "--judge", "none", "--out", out, "-q")
	if code == exitUsage {
		t.Fatalf("exit 2: %s", stderr)
	}
	seqs := map[string]int64{}
	for _, r := range readResults(t, out) {
		seqs[r.CaseID] = r.Seq
	}
	// a, b keep 0 and 1; c and d are records 3 and 4 of the whole input.
	if seqs["a"] != 0 || seqs["b"] != 1 || seqs["c"] != 3 || seqs["d"] != 4 {
		t.Errorf("seqs %v, want a=0 b=1 c=3 d=4", seqs)
	}
}

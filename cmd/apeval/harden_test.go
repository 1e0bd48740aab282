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

// A second run into one directory replaces the first one's files (a chart
// the new run does not draw goes), removes a killed run's temporary files,
// and keeps files apeval does not own; a non-empty directory that is not a
// run directory is refused.
func TestRunDirReuse(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "run")
	if code, _, stderr := apeval(t, "", "run", "--out", out, "-q", "--no-cache"); code == exitUsage {
		t.Fatalf("first run: %s", stderr)
	}
	for name, body := range map[string]string{"old_chart.svg": "<svg/>", "decisions.parquet.123.tmp": "", "notes.txt": "mine"} {
		if err := os.WriteFile(filepath.Join(out, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code, _, stderr := apeval(t, "", "run", "--out", out, "-q", "--no-cache"); code == exitUsage {
		t.Fatalf("second run: %s", stderr)
	}
	for name, want := range map[string]bool{"old_chart.svg": false, "decisions.parquet.123.tmp": false, "notes.txt": true,
		"summary.json": true, ".apeval.lock": false} {
		if _, err := os.Stat(filepath.Join(out, name)); (err == nil) != want {
			t.Errorf("%s: present=%v, want %v", name, err == nil, want)
		}
	}

	foreign := filepath.Join(dir, "mine")
	if err := os.MkdirAll(foreign, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(foreign, "thesis.tex"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := apeval(t, "", "run", "--out", foreign, "-q", "--no-cache")
	if code != exitUsage || !strings.Contains(stderr, "not an apeval run directory") {
		t.Errorf("foreign dir: exit %d, stderr %q", code, stderr)
	}
	if entries, _ := os.ReadDir(foreign); len(entries) != 1 {
		t.Errorf("foreign dir changed: %v", entries)
	}
}

// Absurd values of the flags that size the run are usage errors (exit 2),
// not gigabytes of workers.
func TestAbsurdFlagValues(t *testing.T) {
	for _, args := range [][]string{
		{"run", "--concurrency", "100000"},
		{"run", "--concurrency", "10000000"},
		{"run", "--retries", "1000"},
		{"run", "--max-response-bytes", "1"},
		{"run", "--max-response-bytes", "100000000000"},
	} {
		code, _, stderr := apeval(t, "", append(args, "--out", filepath.Join(t.TempDir(), "x"), "-q")...)
		if code != exitUsage || !strings.Contains(stderr, args[1]+" must be between") {
			t.Errorf("apeval %v: exit %d, %s", args, code, stderr)
		}
	}
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A bad line late in the dataset stops the run before any judge call: the
// answers for the valid lines before it would be paid for and, with
// --no-cache, lost. The whole input is validated first, from a file and
// from stdin alike (stdin is spooled to a temporary file to be read twice).
func TestRunValidatesTheInputBeforeAnyJudgeCall(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ds := liveDataset(t, dir, 400)
	raw, err := os.ReadFile(ds)
	if err != nil {
		t.Fatal(err)
	}
	bad := string(raw) + `{"id":"late","tool":{"name":"Bash","arguments":{"command":"rm x"}},"context":{"recent_messages":[{"role":"user","content":"a"},{"role":"user","content":7}]}}` + "\n"
	if err := os.WriteFile(ds, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	pol := filepath.Join(dir, "policy.toml")
	if err := os.WriteFile(pol, []byte(livePolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, dataset, stdin, where string }{
		{"file", ds, "", ds + ":401"},
		{"stdin", "-", bad, "stdin:401"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			oa := newOpenAIServer(t, time.Millisecond, true)
			out := filepath.Join(dir, "run-"+tt.name)
			code, _, stderr := apeval(t, tt.stdin, "run", "--dataset", tt.dataset, "--policy", pol, "--judge", "openai:judge-large",
				"--openai-base-url", oa.URL+"/v1", "--no-cache", "--out", out, "-q")
			if code != exitUsage {
				t.Fatalf("exit %d, want %d (a bad line); stderr:\n%s", code, exitUsage, stderr)
			}
			if n := oa.calls.Load(); n != 0 {
				t.Errorf("%d judge calls were sent before the bad line stopped the run, want 0", n)
			}
			want := tt.where + ": context.recent_messages[1].content: expected string, got number"
			if !strings.Contains(stderr, want) {
				t.Errorf("stderr does not name %q:\n%s", want, stderr)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("a run directory was left: %v", err)
			}
		})
	}
	// --skip-invalid still streams: the valid lines are judged, the bad one
	// counted.
	oa := newOpenAIServer(t, time.Millisecond, true)
	code, _, stderr := apeval(t, "", "run", "--dataset", ds, "--policy", pol, "--judge", "openai:judge-large",
		"--openai-base-url", oa.URL+"/v1", "--no-cache", "--skip-invalid", "--out", filepath.Join(dir, "skip"), "-q")
	if code == exitUsage || oa.calls.Load() != 400 {
		t.Errorf("--skip-invalid: exit %d, %d calls (want 400); %s", code, oa.calls.Load(), stderr)
	}
}

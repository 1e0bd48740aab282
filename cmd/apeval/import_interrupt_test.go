package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Ctrl-C during `datasets import` from a pipe whose writer stays open (a
// hook log followed with tail -f): the import ignored the signal (the
// handler caught it, the import never looked) and waited for the end of
// input. It now stops, writes the cases it read, says how many and where,
// and exits 130.
func TestImportInterruptKeepsCases(t *testing.T) {
	t.Parallel()
	bin := selfBinary(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "cases.jsonl")
	var payloads strings.Builder
	for i, cmd := range []string{"ls", "git status", "rm -rf build"} {
		payloads.WriteString(`{"session_id":"s1","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"` + cmd + `"},"tool_use_id":"toolu_` + string(rune('a'+i)) + `"}` + "\n")
	}
	var stderr bytes.Buffer
	// The pipe holds all three cases before apeval starts, but on a loaded
	// machine the signal can still come before the import read them (CI
	// saw "the 0 cases imported so far"): such a run is started again with
	// a longer pause; the assertions below hold of the run that read them.
	early := func(stderr string) bool { return !strings.Contains(stderr, "claude-code-hooks: 1 sources, 3 records") }
	cmd := sigintWhenReady(t, 100*time.Millisecond, func() *exec.Cmd {
		pr, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { pw.Close(); pr.Close() })
		if _, err := pw.WriteString(payloads.String()); err != nil {
			t.Fatal(err)
		}
		stderr = bytes.Buffer{}
		cmd := exec.Command(bin, "datasets", "import", "--from", "claude-code-hooks", "-", "--out", out)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = pr, &bytes.Buffer{}, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		pr.Close()
		return cmd
	}, &stderr, early)
	if got := cmd.ProcessState.ExitCode(); got != exitInterrupted {
		t.Errorf("exit %d, want 130; stderr:\n%s", got, stderr.String())
	}
	if want := "interrupted; the 3 cases imported so far are in " + out; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n != 3 || !strings.Contains(string(b), `"rm -rf build"`) {
		t.Errorf("%s holds %d lines, want the 3 cases read:\n%s", out, n, b)
	}
}

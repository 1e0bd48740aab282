package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Ctrl-C works while apeval waits for input: a stdin that sends nothing
// (a pipe whose writer stays open) must not keep `run` or `datasets
// validate` from stopping. run exits 130 and says it was interrupted;
// validate names the stop.
func TestInterruptWhileWaitingForStdin(t *testing.T) {
	t.Parallel()
	bin := selfBinary(t)
	dir := t.TempDir()
	pol := filepath.Join(dir, "policy.toml")
	if err := os.WriteFile(pol, []byte(benchDeterministicPolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"run", []string{"run", "--dataset", "-", "--policy", pol, "--judge", "none", "--out", filepath.Join(dir, "run"), "--quiet"}, 130, "interrupted; 0 finished cases"},
		{"validate", []string{"datasets", "validate", "-"}, 2, "stopped before its end (interrupted)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pr, pw, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer pw.Close()
			// One case without its newline, then nothing: the reader is
			// inside a line when the interrupt comes.
			if _, err := pw.WriteString(`{"id":"c1","session_id":"s","tool":{"name":"Bash","arguments":{"command":"ls"}}}`); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bin, tc.args...)
			cmd.Stdin = pr
			var stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &bytes.Buffer{}, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			pr.Close()
			time.Sleep(500 * time.Millisecond)
			if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				_ = cmd.Process.Kill()
				<-done
				t.Fatalf("still running 20 s after SIGINT; stderr:\n%s", stderr.String())
			}
			if got := cmd.ProcessState.ExitCode(); got != tc.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", got, tc.code, stderr.String())
			}
			if !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("stderr lacks %q:\n%s", tc.want, stderr.String())
			}
		})
	}
}

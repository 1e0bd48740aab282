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
			// The signal must come after apeval set up its handler, which no
			// fixed pause guarantees on a loaded machine: a process the
			// signal reached before (killed by SIGINT, not exiting 130) is
			// started again with a longer pause. No clock is asserted.
			var stderr bytes.Buffer
			cmd := sigintOnceHandled(t, 50*time.Millisecond, func() *exec.Cmd {
				cmd := startWaitingForStdin(t, bin, tc.args)
				stderr = bytes.Buffer{}
				cmd.Stderr = &stderr
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				cmd.Stdin.(*os.File).Close()
				return cmd
			}, &stderr)
			if got := cmd.ProcessState.ExitCode(); got != tc.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", got, tc.code, stderr.String())
			}
			if !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("stderr lacks %q:\n%s", tc.want, stderr.String())
			}
		})
	}
}

// sigintOnceHandled sends SIGINT to the process start returns, after a
// pause, and waits for it to end. The signal must come after apeval set up
// its handler, which no fixed pause guarantees on a loaded machine: a
// process the signal reached before (killed by SIGINT, not exiting 130)
// is started again with twice the pause, up to 30 s. No clock is asserted.
func sigintOnceHandled(t *testing.T, pause time.Duration, start func() *exec.Cmd, stderr *bytes.Buffer) *exec.Cmd {
	t.Helper()
	return sigintWhenReady(t, pause, start, stderr, nil)
}

// sigintWhenReady is sigintOnceHandled where the signal must also come
// after the process got somewhere: early reports, from the finished
// process's stderr, that it had not (say, a stdin import that had read
// none of the pipe's cases yet when a loaded machine let the signal in
// first); such a run is started again with twice the pause, as one the
// signal reached before the handler. Past 30 s the last run is returned
// as it is, for the caller's assertions to fail on.
func sigintWhenReady(t *testing.T, pause time.Duration, start func() *exec.Cmd, stderr *bytes.Buffer, early func(stderr string) bool) *exec.Cmd {
	t.Helper()
	for ; ; pause *= 2 {
		cmd := start()
		time.Sleep(pause)
		if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(time.Minute):
			_ = cmd.Process.Kill()
			<-done
			t.Fatalf("still running a minute after SIGINT; stderr:\n%s", stderr.String())
		}
		ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
		if pause > 30*time.Second {
			return cmd
		}
		if ws.Signaled() {
			t.Logf("SIGINT after %v came before apeval's handler; again with a longer pause", pause)
			continue
		}
		if early == nil || !early(stderr.String()) {
			return cmd
		}
		t.Logf("SIGINT after %v came before the process got far enough; again with a longer pause", pause)
	}
}

// startWaitingForStdin prepares apeval with args reading a pipe that holds
// one case without its newline and whose writer stays open until the test
// ends: the reader is inside a line when the interrupt comes. cmd.Stdin is
// the pipe's read end, for the caller to close once the process started.
func startWaitingForStdin(t *testing.T, bin string, args []string) *exec.Cmd {
	t.Helper()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pw.Close(); pr.Close() })
	if _, err := pw.WriteString(`{"id":"c1","session_id":"s","tool":{"name":"Bash","arguments":{"command":"ls"}}}`); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdin = pr
	cmd.Stdout = &bytes.Buffer{}
	return cmd
}

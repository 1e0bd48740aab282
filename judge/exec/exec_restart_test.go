package exec

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/judge/internal/fake"
)

// A plugin whose helper leaves the process group (setsid) and keeps stdout
// open must not hang the call, the restart or Close past the timeout.
func TestExecDaemonisedHelperDoesNotHang(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "helper.pid")
	t.Cleanup(func() {
		if b, err := os.ReadFile(pidFile); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	cmd := fmt.Sprintf(`setsid sh -c 'echo $$ > %s; exec sleep 30' 2>/dev/null </dev/null & read line; exit 3`, pidFile)
	e := openExec(t, cmd, judge.Config{Timeout: 2 * time.Second})
	start := time.Now()
	resp := e.Judge(context.Background(), execRequest("ls"))
	fake.Within(t, "the call (a helper holding stdout must not hold it)", time.Since(start), 3*time.Second)
	if resp.Status != judge.StatusError && resp.Status != judge.StatusTimeout {
		t.Fatalf("response %+v", resp)
	}
	start = time.Now()
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	fake.Within(t, "close", time.Since(start), 3*time.Second)
}

// A helper holding both stdout and stderr (a double fork, as a Python
// plugin's daemon does) must not hold Close either: both pipes are closed
// after the grace. Before, the grace timer fired once, for stdout, and
// Close waited for stderr until the helper exited (issue: a run that
// printed "reports in …" and never exited). The helper here lives until
// the test kills it, so a Close that waits for it is a hang the test sees.
func TestExecHelperHoldingStdoutAndStderrDoesNotHoldClose(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "helper.pid")
	killHelper := func() {
		if b, err := os.ReadFile(pidFile); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}
	t.Cleanup(killHelper)
	answer := `{"version":1,"decisions":[{"rule_id":"del","result":"no_match"},{"rule_id":"send","result":"no_match"},{"rule_id":"style","result":"no_match"}]}`
	cmd := fmt.Sprintf(`setsid sh -c 'echo $$ > %s; exec sleep 1000' </dev/null & while read line; do echo '%s'; done`, pidFile, answer)
	j, err := judge.Open(context.Background(), "exec:"+cmd, judge.Config{Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	e := j.(*Judge)
	if resp := e.Judge(context.Background(), execRequest("ls")); resp.Status != judge.StatusOK {
		t.Fatalf("response %+v", resp)
	}
	closed := make(chan error, 1)
	go func() { closed <- e.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second):
		// Not a timing assertion: the helper sleeps 1000 s, so a Close
		// still waiting after a minute waits for the helper.
		killHelper()
		<-closed
		t.Fatal("Close waited for the helper holding stdout and stderr")
	}
}

func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	return len(ents)
}

// Every restart used to leak the write end of the old child's stdin.
// Not parallel: it counts the whole process's descriptors, which parallel
// tests' servers and plugins open and close at any moment.
func TestExecRestartLeaksNoDescriptor(t *testing.T) {
	e := openExec(t, `read line; sleep 10`, judge.Config{Timeout: 30 * time.Millisecond})
	e.Judge(context.Background(), execRequest("ls")) // first start
	before := openFDs(t)
	for i := 0; i < 20; i++ {
		if resp := e.Judge(context.Background(), execRequest("ls")); resp.Status != judge.StatusTimeout {
			t.Fatalf("call %d: %+v", i, resp)
		}
	}
	if after := openFDs(t); after > before+3 {
		t.Fatalf("descriptors %d → %d after 20 restarts", before, after)
	}
}

// Plugin stderr is bounded (a total and a rate per judge) and says how
// much it dropped; every line is masked; --quiet drops it.
func TestExecStderrBoundedMaskedQuiet(t *testing.T) {
	t.Parallel()
	plugin := fake.ExamplePlugin(t)
	flood := `echo 'login with token=hunter2secret' >&2; head -c 30000000 /dev/zero | tr '\0' 'x' >&2; exec ` + plugin
	log := &fake.SyncBuffer{}
	e := openExec(t, flood, judge.Config{Timeout: 20 * time.Second, Log: log})
	for i := 0; i < 2; i++ {
		if resp := e.Judge(context.Background(), execRequest("ls")); resp.Status != judge.StatusOK {
			t.Fatalf("response %+v", resp)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	out := log.String()
	if len(out) > maxPluginStderr+4096 {
		t.Fatalf("%d bytes of plugin stderr reached the log", len(out))
	}
	if !strings.Contains(out, "plugin stderr dropped") {
		t.Fatalf("no dropped count: %q", out[max(0, len(out)-300):])
	}
	if strings.Contains(out, "hunter2secret") || !strings.Contains(out, "login with token=[MASKED]") {
		t.Fatalf("unmasked plugin stderr: %.300q", out)
	}

	quiet := &fake.SyncBuffer{}
	q := openExec(t, `echo 'a plugin line' >&2; exec `+plugin, judge.Config{Log: quiet, Quiet: true})
	if resp := q.Judge(context.Background(), execRequest("ls")); resp.Status != judge.StatusOK {
		t.Fatalf("response %+v", resp)
	}
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(quiet.String(), "a plugin line") {
		t.Fatalf("--quiet printed plugin stderr: %q", quiet.String())
	}
}

// A plugin that answers one request and exits (one process per call, no
// ready line) costs no call its answer: the warm-up's answer is its only
// one, so it is restarted without a warm-up, and every call is answered
// with --retries 0 (issue 35 point 17).
func TestExecOneShotPluginAnswersEveryCall(t *testing.T) {
	t.Parallel()
	starts := filepath.Join(t.TempDir(), "starts")
	answer := `{"version":1,"decisions":[{"rule_id":"del","result":"no_match"},{"rule_id":"send","result":"no_match"},{"rule_id":"style","result":"no_match"}]}`
	cmd := fmt.Sprintf(`echo start >> %s; read line; echo '%s'; exit 0`, starts, answer)
	e := openExec(t, cmd, judge.Config{Timeout: 20 * time.Second})
	const calls = 12
	for i := 0; i < calls; i++ {
		if resp := e.Judge(context.Background(), execRequest("ls")); resp.Status != judge.StatusOK {
			t.Fatalf("call %d: %+v", i, resp)
		}
	}
	b, _ := os.ReadFile(starts)
	// One process per call, plus the first one's warm-up.
	if n := strings.Count(string(b), "start"); n > calls+1 {
		t.Fatalf("%d processes for %d calls", n, calls)
	}
}

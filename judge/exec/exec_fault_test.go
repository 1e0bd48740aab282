package exec

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/judge/internal/fake"
)

// An exec plugin that writes an endless line (no newline, ever): the call
// ends as invalid as soon as the line passes the cap, well inside the
// timeout, without holding the line in memory; the plugin is restarted and
// the next call is answered by a fresh process.
func TestExecEndlessLine(t *testing.T) {
	t.Parallel()
	var log fake.SyncBuffer
	// First call: an endless line. Later processes answer properly.
	marker := t.TempDir() + "/flooded"
	cmd := `if [ ! -e ` + marker + ` ]; then touch ` + marker + `; read l; yes | tr -d '\n'; fi; while read l; do echo '{"version":1,"decisions":[{"rule_id":"del","result":"match"},{"rule_id":"send","result":"no_match"},{"rule_id":"style","result":"no_match"}]}'; done`
	e := openExec(t, cmd, judge.Config{Log: &log, Timeout: 20 * time.Second, MaxResponseBytes: 1 << 20})
	start := time.Now()
	r := e.Judge(context.Background(), execRequest("ls"))
	if r.Status != judge.StatusInvalid || !strings.Contains(r.Error, "larger than 1048576 bytes") {
		t.Fatalf("endless line: %s %q", r.Status, r.Error)
	}
	fake.Within(t, "giving up on the endless line", time.Since(start), 10*time.Second)
	r = e.Judge(context.Background(), execRequest("ls"))
	if r.Status != judge.StatusOK {
		t.Fatalf("after the restart: %s %q", r.Status, r.Error)
	}
}

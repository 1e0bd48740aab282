package importers

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apeval/apeval/datasets"
)

// `opencode run --format json` output (headless OpenCode in CI): apeval
// could not tell its format, and `--from opencode` read the file as one
// storage object ("invalid character '{' after top-level value"). The lines
// follow the shape of a CI fix run's events published in a public issue;
// ids and texts are written for the test.
func TestOpenCodeRunJSON(t *testing.T) {
	t.Parallel()
	lines := `{"type":"step_start","timestamp":1774670700702,"sessionID":"ses_t1","part":{"id":"prt_1","sessionID":"ses_t1","messageID":"msg_1","type":"step-start"}}
{"type":"tool_use","timestamp":1774670702616,"sessionID":"ses_t1","part":{"id":"prt_2","sessionID":"ses_t1","messageID":"msg_1","type":"tool","callID":"call_a","tool":"read","state":{"status":"completed","input":{"filePath":"/w/ci.yml"},"output":"…","time":{"start":1774670702601,"end":1774670702611}}}}
{"type":"text","timestamp":1774670703000,"sessionID":"ses_t1","part":{"id":"prt_3","type":"text","text":"Now I will commit the fix."}}
{"type":"tool_use","timestamp":1774670719690,"sessionID":"ses_t1","part":{"id":"prt_4","type":"tool","callID":"call_b","tool":"bash","state":{"status":"error","input":{"command":"git push --force"},"error":"rejected","time":{"start":1774670719672}}}}
{"type":"tool_use","timestamp":1774670719700,"sessionID":"ses_t1","part":{"id":"prt_5","type":"tool"}}
{"type":"step_finish","timestamp":1774670724105,"sessionID":"ses_t1","part":{"type":"step-finish","reason":"stop"}}
{"type":"tool_use","timestamp":17746707
`
	p := filepath.Join(t.TempDir(), "run.jsonl")
	if err := os.WriteFile(p, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	if f, why, err := Detect([]string{p}, nil); err != nil || f != "opencode-run-json" {
		t.Fatalf("Detect = %q (%s), %v", f, why, err)
	}
	var got []*datasets.Case
	sum, err := Import("opencode-run-json", []string{p}, Options{Workspace: "/w"}, func(c *datasets.Case) error { got = append(got, c); return nil }, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || sum.Errors != 2 || sum.Skipped["step_start"] != 1 || sum.Skipped["step_finish"] != 1 {
		t.Fatalf("%d cases, %d errors, skipped %v; want 2 cases, 2 errors (line 5 without state, line 7 cut), step events skipped", len(got), sum.Errors, sum.Skipped)
	}
	a, b := got[0], got[1]
	if a.ID != "opencode-call_a" || a.SessionID != "ses_t1" || a.Tool.Name != "read" || a.Tool.Arguments["filePath"] != "/w/ci.yml" || a.Workspace != "/w" {
		t.Errorf("first case: %+v", a)
	}
	if a.Time == nil || !a.Time.Equal(time.UnixMilli(1774670702601).UTC()) {
		t.Errorf("time %v, want state.time.start", a.Time)
	}
	if b.Tool.Arguments["command"] != "git push --force" || b.Provenance["status"] != "error" || b.Provenance["tool_result_error"] != "rejected" {
		t.Errorf("second case: %+v, provenance %v", b, b.Provenance)
	}
	if len(b.Context.RecentMessages) != 1 || !strings.Contains(b.Context.RecentMessages[0].Content, "commit the fix") {
		t.Errorf("the text event is not the second call's context: %+v", b.Context)
	}
	var errs []string
	for _, s := range sum.Sources {
		errs = append(errs, s.Errors...)
	}
	if j := strings.Join(errs, "\n"); !strings.Contains(j, "run.jsonl:5: part.tool and part.state: required for tool_use") || !strings.Contains(j, "run.jsonl:7:") {
		t.Errorf("errors do not name file:line and the field:\n%s", j)
	}
}

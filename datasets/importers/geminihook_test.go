package importers

import (
	"strings"
	"testing"
	"time"

	"github.com/apeval/apeval/datasets"
)

// Gemini CLI's hooks send a tool call about to run as BeforeTool, with the
// fields Claude Code's PreToolUse has (tool_name, tool_input, session_id,
// cwd, transcript_path) and a timestamp (geminicli.com, hooks reference).
// apeval record, wired as a BeforeTool hook, recorded nothing, and an
// import of such a log skipped every line as "event BeforeTool". The
// payloads here are written for the test in that shape.
func TestGeminiBeforeToolHook(t *testing.T) {
	t.Parallel()
	before := `{"session_id":"gs1","cwd":"/home/u/proj","hook_event_name":"BeforeTool","timestamp":"2026-04-01T11:12:19.213Z","tool_name":"run_shell_command","tool_input":{"command":"rm -rf build","description":"clean"}}`
	c, err := RecordCase([]byte(before), RecordOptions{Now: time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatalf("record: %v", err)
	}
	if c.Tool.Name != "run_shell_command" || c.Tool.Arguments["command"] != "rm -rf build" || c.SessionID != "gs1" || c.Workspace != "/home/u/proj" {
		t.Errorf("recorded case: %+v", c)
	}
	if c.Time == nil || !c.Time.Equal(time.Date(2026, 4, 1, 11, 12, 19, 213e6, time.UTC)) {
		t.Errorf("time %v, want the payload's timestamp", c.Time)
	}
	after := strings.Replace(before, `"BeforeTool"`, `"AfterTool"`, 1)
	if _, err := RecordCase([]byte(after), RecordOptions{}); err == nil {
		t.Error("AfterTool recorded; want ErrNotToolCall")
	}
	var got []*datasets.Case
	sum, err := Import("claude-code-hooks", []string{"-"}, Options{Stdin: strings.NewReader(before + "\n" + after + "\n")},
		func(c *datasets.Case) error { got = append(got, c); return nil }, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || sum.Skipped["event AfterTool"] != 1 {
		t.Fatalf("import: %d cases, skipped %v; want 1 case from BeforeTool, AfterTool skipped", len(got), sum.Skipped)
	}
	if got[0].Provenance["hook_event_name"] != "BeforeTool" {
		t.Errorf("provenance %v; want hook_event_name BeforeTool", got[0].Provenance)
	}
}

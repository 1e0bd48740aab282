package importers

import (
	"path/filepath"
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

// A hook log holds records a developer typed to try the hook script
// (echo '{"test": "…"}' | .claude/hooks/notification.py), as the
// .claude/logs of a public repository do (14 of its 844 records): with
// neither hook_event_name nor a tool field they are no call, skipped and
// counted under one reason and one warning per file, not an error each
// (they were: exit 2). A record with a tool call but no hook_event_name is
// still an error naming its line.
func TestHookLogTypedLines(t *testing.T) {
	log := filepath.Join(t.TempDir(), "notification.json")
	writeFile(t, log, []byte(`[
  {"session_id": "71df9206", "transcript_path": "/home/dev/.claude/projects/-home-dev-shop/71df9206.jsonl", "cwd": "/home/dev/shop", "hook_event_name": "Notification", "message": "Claude needs your permission to use Bash"},
  {"test": "does the hook run?", "timestamp": "2026-11-30"},
  {"session_id": "test", "prompt": "hello"},
  {"session_id": "try-2", "transcript_path": "/home/dev/.claude/projects/-home-dev-shop/71df9206.jsonl", "generated_summary": "Nothing was done."},
  {"session_id": "71df9206", "cwd": "/home/dev/shop", "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "make test"}, "tool_use_id": "toolu_01A"},
  {"session_id": "71df9206", "tool_name": "Bash", "tool_input": {"command": "rm -rf build"}}
]
`))
	var msgs []string
	var cases int
	sum, err := Import("claude-code-hooks", []string{log}, Options{}, func(*datasets.Case) error { cases++; return nil }, func(m string) { msgs = append(msgs, m) })
	if err != nil {
		t.Fatal(err)
	}
	src := sum.Sources[0]
	if cases != 1 || sum.Errors != 1 || sum.Skipped[skipNoEvent] != 3 || sum.Skipped["event Notification"] != 1 {
		t.Errorf("%d cases, %d errors %v, skipped %v; want the PreToolUse, the tool record without its event an error, the 3 typed records skipped", cases, sum.Errors, msgs, sum.Skipped)
	}
	if len(msgs) != 1 || msgs[0] != log+`:7: hook_event_name: required (the record has a tool call: tool_name "Bash")` {
		t.Errorf("errors %q", msgs)
	}
	if len(src.Warnings) != 1 || !strings.Contains(src.Warnings[0], "3 records are not hook payloads") || !strings.Contains(src.Warnings[0], "lines 3, 4 and 5") {
		t.Errorf("warnings %q", src.Warnings)
	}
}

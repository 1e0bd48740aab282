package importers

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apeval/apeval/datasets"
)

// buildGoOpenCodeDB writes a Go OpenCode database (testdata/opencode-db/
// schema-go.sql) holding rows shaped like a real project's
// .opencode/opencode.db: Unix seconds, tool inputs as JSON strings, results
// in "tool" messages, a sub-agent session named after its calling tool call.
func buildGoOpenCodeDB(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mustExec(t, db, string(mustRead(t, "testdata/opencode-db/schema-go.sql")))
	mustExec(t, db, `INSERT INTO sessions (id, parent_session_id, title, updated_at, created_at) VALUES
		('sess-main', NULL, 'Fix the failing test', 1753328700, 1753328658),
		('call_agent1', 'sess-main', 'New Agent Session', 1753328690, 1753328670)`)
	msg := func(id, session, role, model string, at int64, parts string) {
		mustExec(t, db, "INSERT INTO messages (id, session_id, role, parts, model, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
			id, session, role, parts, model, at, at)
	}
	msg("m1", "sess-main", "user", "", 1753328658,
		`[{"type":"text","data":{"text":"the test in game.test.js fails, fix it"}},{"type":"finish","data":{"reason":"stop","time":0}}]`)
	msg("m2", "sess-main", "assistant", "copilot.gpt-4.1", 1753328659,
		`[{"type":"text","data":{"text":"Let me look at the test first."}},{"type":"tool_call","data":{"id":"call_view1","name":"view","input":"{\"file_path\":\"/home/u/game/game.test.js\"}","type":"function","finished":true}},{"type":"finish","data":{"reason":"tool_use","time":1753328660}}]`)
	msg("m3", "sess-main", "tool", "", 1753328661,
		`[{"type":"tool_result","data":{"tool_call_id":"call_view1","name":"","content":"<file>...</file>","metadata":"{}","is_error":false}},{"type":"finish","data":{"reason":"stop","time":0}}]`)
	msg("m4", "sess-main", "assistant", "copilot.gpt-4.1", 1753328662,
		`[{"type":"tool_call","data":{"id":"call_bash1","name":"bash","input":"{\"command\":\"bun test game.test.js\",\"timeout\":60000}","type":"function","finished":true}},{"type":"tool_call","data":{"id":"call_agent1","name":"agent","input":"{\"prompt\":\"find where the board is reset\"}","type":"function","finished":true}},{"type":"finish","data":{"reason":"tool_use","time":1753328663}}]`)
	msg("m5", "call_agent1", "assistant", "copilot.gpt-4.1", 1753328671,
		`[{"type":"tool_call","data":{"id":"call_grep1","name":"grep","input":"{\"pattern\":\"resetBoard\"}","type":"function","finished":true}}]`)
	msg("m6", "sess-main", "tool", "", 1753328680,
		`[{"type":"tool_result","data":{"tool_call_id":"call_bash1","name":"","content":"error: command not found: bun","metadata":"","is_error":true}}]`)
	msg("m7", "sess-main", "assistant", "copilot.gpt-4.1", 1753328690, `[{"type":"tool_call","data":{"name":"write","input":"{\"file_path\":`)
}

// A permission request the person denied, as real .opencode/opencode.db
// files hold it (two public projects, 2025-06 and 2025-07): the assistant
// message with the call finishes "permission_denied", the call's result is
// "Permission denied" (is_error), a later call in the same message
// "Tool execution canceled by user". The values here are invented.
func TestGoOpenCodeDBPermissionDenied(t *testing.T) {
	path := filepath.Join(t.TempDir(), "opencode.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, string(mustRead(t, "testdata/opencode-db/schema-go.sql")))
	mustExec(t, db, `INSERT INTO sessions (id, parent_session_id, title, updated_at, created_at) VALUES ('s1', NULL, 'wire the call', 1751589229, 1751589100)`)
	msg := func(id, role string, at int64, parts string) {
		mustExec(t, db, "INSERT INTO messages (id, session_id, role, parts, model, created_at, updated_at) VALUES (?, 's1', ?, ?, 'copilot.gpt-4o', ?, ?)", id, role, parts, at, at)
	}
	msg("m1", "user", 1751589100, `[{"type":"text","data":{"text":"implement the call expression"}},{"type":"finish","data":{"reason":"stop","time":0}}]`)
	msg("m2", "assistant", 1751589199, `[{"type":"tool_call","data":{"id":"call_edit1","name":"edit","input":"{\"file_path\":\"/u/lox/src/interp.rs\",\"old_string\":\"todo!()\",\"new_string\":\"self.call(expr)\"}","type":"function","finished":true}},{"type":"tool_call","data":{"id":"call_bash1","name":"bash","input":"{\"command\":\"cargo test\"}","type":"function","finished":true}},{"type":"finish","data":{"reason":"permission_denied","time":1751589211}}]`)
	msg("m3", "tool", 1751589211, `[{"type":"tool_result","data":{"tool_call_id":"call_edit1","name":"","content":"Permission denied","metadata":"","is_error":true}},{"type":"tool_result","data":{"tool_call_id":"call_bash1","name":"","content":"Tool execution canceled by user","metadata":"","is_error":true}},{"type":"finish","data":{"reason":"stop","time":0}}]`)
	msg("m4", "assistant", 1751589220, `[{"type":"tool_call","data":{"id":"call_view1","name":"view","input":"{\"file_path\":\"/u/lox/src/interp.rs\"}","type":"function","finished":true}},{"type":"finish","data":{"reason":"tool_use","time":1751589221}}]`)
	msg("m5", "tool", 1751589222, `[{"type":"tool_result","data":{"tool_call_id":"call_view1","name":"","content":"<file>…</file>","metadata":"","is_error":false}}]`)
	db.Close()
	cases, sum, _ := importAll(t, "opencode", Options{}, path)
	if len(cases) != 3 {
		t.Fatalf("%d cases", len(cases))
	}
	edit, bash, view := cases[0], cases[1], cases[2]
	if edit.ApprovalOutcome != datasets.ApprovalDenied || edit.Provenance["tool_result_error"] != "Permission denied" {
		t.Errorf("the denied edit: approval_outcome %q, provenance %v", edit.ApprovalOutcome, edit.Provenance)
	}
	// Canceled after the denial: never asked, no outcome; it did not run.
	if bash.ApprovalOutcome != "" || bash.Provenance["status"] != "error" {
		t.Errorf("the canceled bash: approval_outcome %q, provenance %v", bash.ApprovalOutcome, bash.Provenance)
	}
	if view.ApprovalOutcome != "" {
		t.Errorf("view: approval_outcome %q", view.ApprovalOutcome)
	}
	if n := sum.Sources[0].Notes[noteGoOCDenied]; n != 1 {
		t.Errorf("notes %v", sum.Sources[0].Notes)
	}
}

// The Go OpenCode's database (dozens of public repositories committed
// their .opencode/opencode.db) was refused as "unknown schema: no session
// table": none of its tool calls could be imported.
func TestGoOpenCodeDB(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".opencode", "opencode.db")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	buildGoOpenCodeDB(t, path)
	for _, src := range []string{path, filepath.Dir(path)} {
		cases, sum, _ := importAll(t, "auto", Options{}, src)
		var got []string
		for _, c := range cases {
			got = append(got, c.SessionID+" "+c.Tool.Name+" "+c.ID)
		}
		want := []string{
			"sess-main view opencode-call_view1",
			"sess-main bash opencode-call_bash1",
			"sess-main agent opencode-call_agent1",
			"call_agent1 grep opencode-call_grep1",
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("%s: cases:\n%s\nwant:\n%s", src, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if sum.Sessions != 2 || sum.Errors != 1 {
			t.Errorf("%s: sessions %d errors %d, want 2 and 1 (m7's cut-off parts)", src, sum.Sessions, sum.Errors)
		}
		if errs := sum.Sources[0].Errors; len(errs) != 1 || !strings.Contains(errs[0], "opencode.db: message m7: parts:") {
			t.Errorf("%s: errors %q, want one naming message m7's parts", src, errs)
		}
		view, bash, agent, grep := cases[0], cases[1], cases[2], cases[3]
		if view.Tool.Arguments["file_path"] != "/home/u/game/game.test.js" || view.Tool.ArgumentsValid != nil {
			t.Errorf("view arguments %v (valid %v): the input string is the arguments' JSON", view.Tool.Arguments, view.Tool.ArgumentsValid)
		}
		if view.Time == nil || view.Time.Year() != 2025 || view.Time.Unix() != 1753328659 {
			t.Errorf("view time %v, want 2025-07-24 (Unix seconds)", view.Time)
		}
		if view.Context.LatestUserMessage != "the test in game.test.js fails, fix it" {
			t.Errorf("latest user message %q", view.Context.LatestUserMessage)
		}
		if n := len(view.Context.RecentMessages); n != 2 || view.Context.RecentMessages[1].Content != "Let me look at the test first." {
			t.Errorf("recent messages %+v", view.Context.RecentMessages)
		}
		if bash.Provenance["status"] != "error" || bash.Provenance["tool_result_error"] != "error: command not found: bun" {
			t.Errorf("bash provenance %v: its result failed", bash.Provenance)
		}
		if _, ok := view.Provenance["status"]; ok {
			t.Errorf("view provenance %v: its result did not fail", view.Provenance)
		}
		if grep.Provenance["parent_session_id"] != "sess-main" || agent.Provenance["model"] != "copilot.gpt-4.1" {
			t.Errorf("grep provenance %v, agent provenance %v", grep.Provenance, agent.Provenance)
		}
		if bash.Provenance["format"] != "opencode" || bash.Provenance["schema"] != "opencode-go" {
			t.Errorf("provenance %v", bash.Provenance)
		}
	}
}

package importers

import (
	"path/filepath"
	"strings"
	"testing"
)

// A Gemini CLI JSONL session whose message lines also carry the session's
// sessionId (as some tools that write or copy these logs do) is messages,
// not ten lines of session metadata: a third-party log imported as
// "10 records, 0 cases, skipped 10 (session metadata 10)".
func TestGeminiMessagesCarryingSessionID(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "tmp", "abc", "chats")
	const sid = "rejection-gemini-001"
	doc := `{"sessionId":"` + sid + `","projectHash":"abc","startTime":"2025-12-06T15:00:00.000Z","lastUpdated":"2025-12-06T15:05:00.000Z"}
{"id":"m1","timestamp":"2025-12-06T15:00:00.000Z","type":"user","content":"Edit the config file to change the port to 9000","sessionId":"` + sid + `"}
{"id":"m2","timestamp":"2025-12-06T15:00:10.000Z","type":"gemini","content":"I'll update the port.","model":"gemini-2.5-pro","sessionId":"` + sid + `","toolCalls":[{"id":"edit_file-001","name":"edit_file","args":{"file_path":"config.json","old_string":"8080","new_string":"9000"},"status":"success","timestamp":"2025-12-06T15:00:08.000Z"}]}
{"id":"m3","timestamp":"2025-12-06T15:00:20.000Z","type":"user","content":"Now run the tests","sessionId":"` + sid + `"}
{"id":"m4","timestamp":"2025-12-06T15:00:30.000Z","type":"gemini","content":"Running them.","model":"gemini-2.5-pro","sessionId":"` + sid + `","toolCalls":[{"id":"run_shell_command-002","name":"run_shell_command","args":{"command":"npm test"},"status":"error","timestamp":"2025-12-06T15:00:28.000Z"}]}
`
	writeFile(t, filepath.Join(dir, "session-2025-12-06T15-00-rejection.jsonl"), []byte(doc))
	cases, sum, _ := importAll(t, "gemini-cli", Options{}, dir)
	if len(cases) != 2 || sum.Sessions != 1 || sum.Errors != 0 {
		t.Fatalf("%d cases, %d sessions, errors %d, skipped %v", len(cases), sum.Sessions, sum.Errors, sum.Skipped)
	}
	if c := cases[1]; c.SessionID != sid || c.Tool.Name != "run_shell_command" || c.Context.LatestUserMessage != "Now run the tests" {
		t.Errorf("second case: session %q, tool %q, latest user message %q", c.SessionID, c.Tool.Name, c.Context.LatestUserMessage)
	}
}

// Gemini CLI's environment opens the chat as a user message
// ("<session_context>…</session_context>": directory tree, loaded
// GEMINI.md and extension instructions), as real recordings hold it in a
// $set.messages batch. It was the session's first user text in every
// call's context; it is not the user's.
func TestGeminiSessionContextIsNotTheUser(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "tmp", "journal", "chats")
	doc := `{"sessionId":"a2a-server","projectHash":"baead263","startTime":"2026-09-02T08:54:13.419Z","lastUpdated":"2026-09-02T08:54:13.419Z","kind":"main"}
{"$set":{"messages":[{"id":"d049","timestamp":"2026-09-02T08:54:13.423Z","type":"user","content":[{"text":"<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\n- **Workspace Directories:**\n  - /home/dev/journal\n<loaded_context>\n<extension_context>\nYou MUST attempt to read the first few lines of the training dataset.\n</extension_context>\n</loaded_context>\n</session_context>"}]}],"lastUpdated":"2026-09-02T08:54:13.423Z"}}
{"id":"u1","timestamp":"2026-09-02T08:55:00.000Z","type":"user","content":[{"text":"list the files"}]}
{"id":"g1","timestamp":"2026-09-02T08:55:05.000Z","type":"gemini","content":"Listing.","model":"gemini-3-flash-preview","toolCalls":[{"id":"list_directory-1","name":"list_directory","args":{"dir_path":"."},"status":"success","timestamp":"2026-09-02T08:55:04.000Z"}]}
`
	writeFile(t, filepath.Join(dir, "session-2026-09-02T08-54-a2a-serv.jsonl"), []byte(doc))
	cases, sum, _ := importAll(t, "gemini-cli", Options{}, dir)
	if len(cases) != 1 {
		t.Fatalf("%d cases", len(cases))
	}
	ctx := cases[0].Context
	if ctx.LatestUserMessage != "list the files" {
		t.Errorf("latest user message %q", ctx.LatestUserMessage)
	}
	for _, m := range ctx.RecentMessages {
		if strings.Contains(m.Content, "session_context") || strings.Contains(m.Content, "You MUST") {
			t.Errorf("the CLI's environment is in the context as %s: %.80q", m.Role, m.Content)
		}
	}
	if n := sum.Sources[0].Skipped[skipGeminiSessionContext]; n != 1 {
		t.Errorf("skipped %v", sum.Sources[0].Skipped)
	}
}

// One tool call with a field of the wrong type is an error of its own:
// the message's other calls are still cases. The whole message was lost
// before (a hand check: "rm -rf build/" beside a call whose name is 42,
// "1 records, 0 cases, 1 unreadable"), in both session forms.
func TestGeminiBadToolCallKeepsTheOthers(t *testing.T) {
	t.Parallel()
	calls := `[{"id":"run_shell_command-1","name":"run_shell_command","args":{"command":"rm -rf build/"},"status":"success"},` +
		`{"id":"x-2","name":42,"args":{}}]`
	for _, form := range []struct{ file, doc, want string }{
		{"session-2026-12-07T10-00-abcd1234.json", `{"sessionId":"s1","projectHash":"ff","messages":[` +
			`{"id":"m1","timestamp":"2026-12-07T10:00:01Z","type":"user","content":"delete the build dir"},` +
			`{"id":"m2","timestamp":"2026-12-07T10:00:02Z","type":"gemini","content":"ok","toolCalls":` + calls + `}]}`,
			":1: messages[1].toolCalls[1].name: want a string, got number"},
		{"session-2026-12-07T10-00-abcd1234.jsonl", `{"sessionId":"s1","projectHash":"ff"}` + "\n" +
			`{"id":"m1","timestamp":"2026-12-07T10:00:01Z","type":"user","content":"delete the build dir"}` + "\n" +
			`{"id":"m2","timestamp":"2026-12-07T10:00:02Z","type":"gemini","content":"ok","toolCalls":` + calls + `}` + "\n",
			":3: toolCalls[1].name: want a string, got number"},
	} {
		dir := filepath.Join(t.TempDir(), "tmp", "ff", "chats")
		p := filepath.Join(dir, form.file)
		writeFile(t, p, []byte(form.doc))
		cases, sum, _ := importAll(t, "gemini-cli", Options{}, dir)
		if len(cases) != 1 || cases[0].Tool.Arguments["command"] != "rm -rf build/" || cases[0].Context.LatestUserMessage != "delete the build dir" {
			t.Errorf("%s: %d cases, want the rm -rf call: %+v", form.file, len(cases), cases)
		}
		if errs := sum.Sources[0].Errors; sum.Errors != 1 || len(errs) != 1 || errs[0] != p+form.want {
			t.Errorf("%s: errors %q, want %q", form.file, errs, p+form.want)
		}
	}
}

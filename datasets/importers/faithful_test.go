package importers

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apeval/apeval/datasets"
)

// Tests of issue 21's defects, each on a fixture built from the record
// shapes public logs showed (testdata/README.md names the sources).

const sessionsDir = "testdata/claude-code-sessions"

func byID(cases []*datasets.Case) map[string]*datasets.Case {
	m := map[string]*datasets.Case{}
	for _, c := range cases {
		m[c.ID] = c
	}
	return m
}

// A Claude Code 2.1 session: a slash command, a sub-agent in its own file,
// blank assistant turns, a background-task notification and a compaction.
func TestClaudeSessionRequestAndOrder(t *testing.T) {
	t.Parallel()
	cases, sum, _ := importAll(t, "claude-code-transcript", Options{}, sessionsDir)
	// Sub-agent calls take their place by time: the two web calls made at
	// 14:12:35 come right after the Task call of 14:12:30, before the main
	// thread's later calls (one session, seq in time order).
	want := []string{"cc-toolu_01TaskResearch", "cc-toolu_01WebSearch1", "cc-toolu_01WebFetch1",
		"cc-toolu_01NpmCreate", "cc-toolu_01Readme", "cc-toolu_01NpmTest"}
	if !slices.Equal(ids(cases), want) {
		t.Fatalf("order %v, want %v", ids(cases), want)
	}
	var last time.Time
	for i, c := range cases {
		if c.Seq != int64(i+1) || c.SessionID != "3b9f6a2e-1c4d-4e8a-9f70-5d2c8b1a6e43" {
			t.Errorf("%s: seq %d session %s", c.ID, c.Seq, c.SessionID)
		}
		if c.Time == nil || c.Time.Before(last) {
			t.Errorf("%s: time %v before %v", c.ID, c.Time, last)
		} else {
			last = *c.Time
		}
	}
	m := byID(cases)
	const request = "/orchestrator create TODO app"
	// The slash command's arguments are the request; the compaction
	// summary and the task notification are not.
	for _, id := range []string{"cc-toolu_01TaskResearch", "cc-toolu_01NpmCreate", "cc-toolu_01Readme", "cc-toolu_01NpmTest"} {
		if got := m[id].Context.LatestUserMessage; got != request {
			t.Errorf("%s: latest user message %q, want %q", id, got, request)
		}
	}
	if got := m["cc-toolu_01WebSearch1"].Context.LatestUserMessage; got != "Research TODO app frameworks and pick one" {
		t.Errorf("sub-agent's request %q", got)
	}
	// Blank assistant turns ("\n\n") take no recent-message slot.
	for _, c := range cases {
		for _, msg := range c.Context.RecentMessages {
			if strings.TrimSpace(msg.Content) == "" {
				t.Errorf("%s: blank %s turn in recent messages", c.ID, msg.Role)
			}
			if strings.HasPrefix(msg.Content, "This session is being continued") || strings.HasPrefix(msg.Content, "<task-notification>") {
				t.Errorf("%s: %q taken as a turn", c.ID, msg.Content)
			}
		}
	}
	if r := m["cc-toolu_01TaskResearch"].Context.RecentMessages; len(r) != 1 || r[0].Content != request {
		t.Errorf("Task call's recent messages %+v", r)
	}
	if r := m["cc-toolu_01Readme"].Context.RecentMessages; len(r) != 2 || r[1].Content != "Scaffolding the app." {
		t.Errorf("Write call's recent messages %+v", r)
	}
	// Ordinary words in arguments stay as they were (masking is on).
	if got := m["cc-toolu_01Readme"].Tool.Arguments["content"].(string); strings.Contains(got, "[MASKED]") ||
		!strings.Contains(got, "A basic CLAUDE.md file") || !strings.Contains(got, "key={todo.id}") ||
		!strings.Contains(got, "session_id: session_id") || !strings.Contains(got, "max_tokens: 1024") {
		t.Errorf("ordinary text masked: %q", got)
	}
	main := sum.Sources[0]
	if main.Skipped["compaction summary"] != 1 || main.Skipped["entry type system"] != 1 {
		t.Errorf("skipped %v", main.Skipped)
	}
	if len(sum.Sources) != 2 || sum.Sources[1].Cases != 2 || !strings.HasSuffix(sum.Sources[1].Source, "agent-a7c31d.jsonl") {
		t.Errorf("sources %+v", sum.Sources)
	}
}

// A session's file given alone brings its sub-agents' files with it.
func TestClaudeSessionFileAlone(t *testing.T) {
	t.Parallel()
	cases, sum, _ := importAll(t, "claude-code-transcript", Options{}, sessionsDir+"/-home-dev-todo/3b9f6a2e-1c4d-4e8a-9f70-5d2c8b1a6e43.jsonl")
	if len(cases) != 6 || len(sum.Sources) != 2 || cases[1].ID != "cc-toolu_01WebSearch1" {
		t.Errorf("%v from %d sources", ids(cases), len(sum.Sources))
	}
}

// Codex 0.104: a tool_search_call's arguments are an object, and
// web_search_call items are network calls the boundary must see.
func TestCodexCurrentItems(t *testing.T) {
	t.Parallel()
	cases, sum, _ := importAll(t, "codex-rollout", Options{}, "testdata/codex-rollout-current")
	if sum.Errors != 0 {
		t.Fatalf("errors %v", sum.Sources[0].Errors)
	}
	want := []string{"codex-019c4a1e-2b3c-7d4e-8f50-6a7b8c9d0e1f-search-1", "codex-019c4a1e-2b3c-7d4e-8f50-6a7b8c9d0e1f-ws_0a1b2c",
		"codex-019c4a1e-2b3c-7d4e-8f50-6a7b8c9d0e1f-ws_0a1b2d"}
	if !slices.Equal(ids(cases), want) {
		t.Fatalf("ids %v, want %v", ids(cases), want)
	}
	ts, search, open := cases[0], cases[1], cases[2]
	if ts.Tool.Name != "tool_search" || ts.Tool.Arguments["query"] != "calendar create" || ts.Tool.Arguments["limit"] != 1.0 ||
		!ts.Tool.Valid() || ts.Provenance["execution"] != "client" {
		t.Errorf("tool_search_call %+v %v", ts.Tool, ts.Provenance)
	}
	if search.Tool.Name != "web_search" || search.Tool.Category != "web_search" || search.Tool.Arguments["query"] != "iCalendar RFC 5545" ||
		search.Tool.Arguments["action"] != "search" {
		t.Errorf("web search %+v", search.Tool)
	}
	if open.Tool.Arguments["url"] != "https://www.rfc-editor.org/rfc/rfc5545" || open.Tool.Arguments["action"] != "open_page" {
		t.Errorf("open page %+v", open.Tool)
	}
	if search.Context.LatestUserMessage != "find the calendar tool and look up the iCalendar RFC" {
		t.Errorf("context %+v", search.Context)
	}
	if sum.Skipped["tool_search_output"] != 1 {
		t.Errorf("skipped %v", sum.Skipped)
	}
}

// A hook log committed as a pretty-printed JSON array, payloads without
// tool_use_id: every element is a record, and two identical git status
// calls are two cases.
func TestJSONArrayLogs(t *testing.T) {
	t.Parallel()
	const p = "testdata/claude-code-hooks/logs/pre_tool_use.json"
	cases, sum, _ := importAll(t, "claude-code-hooks", Options{}, p)
	if sum.Errors != 0 || len(cases) != 4 || sum.Records != 4 {
		t.Fatalf("%d cases, %d records, errors %v", len(cases), sum.Records, sum.Sources[0].Errors)
	}
	if cases[0].ID == cases[1].ID || cases[0].Tool.Arguments["command"] != "git status" || cases[1].Tool.Arguments["command"] != "git status" {
		t.Errorf("identical calls: %s %s", cases[0].ID, cases[1].ID)
	}
	if cases[3].ID != "cc-toolu_01PushMain" || cases[0].Provenance["line"] != 2 || cases[1].Provenance["line"] != 13 {
		t.Errorf("ids/lines %v %v %v", ids(cases), cases[0].Provenance["line"], cases[1].Provenance["line"])
	}
	// The same payload at the same line of another log keeps its own id.
	dir := t.TempDir()
	data := mustRead(t, p)
	writeFile(t, dir+"/a.json", data)
	writeFile(t, dir+"/b.json", data)
	both, sum2, _ := importAll(t, "claude-code-hooks", Options{}, dir+"/a.json", dir+"/b.json")
	if len(both) != 7 || sum2.Skipped["duplicate id"] != 1 { // only the tool_use_id call is the same call twice
		t.Errorf("two logs: %d cases, skipped %v", len(both), sum2.Skipped)
	}
	// A transcript saved as an array (logs/chat.json).
	tc, tsum, _ := importAll(t, "claude-code-transcript", Options{}, "testdata/claude-code-array/chat.json")
	if len(tc) != 1 || tsum.Errors != 0 || tc[0].Context.LatestUserMessage != "delete the stale branches" {
		t.Errorf("transcript array: %v %+v", ids(tc), tsum.Sources[0])
	}
}

// A wrong --from is an error naming the format the records look like; a
// hook log without tool_input warns.
func TestWrongFormatAndMissingInput(t *testing.T) {
	t.Parallel()
	cases, sum, _ := importAll(t, "claude-code-transcript", Options{}, "testdata/codex-rollout/sessions")
	if errs := sum.Sources[0].Errors; len(cases) != 0 || len(errs) == 0 || !strings.Contains(errs[len(errs)-1], "look like codex-rollout, not claude-code-transcript") {
		t.Errorf("codex read as a transcript: %d cases, %v", len(cases), sum.Sources[0].Errors)
	}
	_, sum, _ = importAll(t, "claude-code-hooks", Options{}, "testdata/claude-code-hooks/logs/no_tool_input.jsonl")
	if w := sum.Sources[0].Warnings; len(w) != 1 || !strings.Contains(w[0], "2 PreToolUse payloads have no tool_input") {
		t.Errorf("warnings %v", w)
	}
}

// The record hook gives two identical payloads without tool_use_id two ids.
func TestRecordIdenticalCalls(t *testing.T) {
	t.Parallel()
	payload := []byte(`{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git status"}}`)
	now := time.Date(2026, 2, 3, 14, 0, 0, 0, time.UTC)
	a, err := RecordCase(payload, RecordOptions{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := RecordCase(payload, RecordOptions{Now: now})
	if a.ID == b.ID || !strings.HasPrefix(a.ID, "rec-") {
		t.Errorf("ids %s %s", a.ID, b.ID)
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func writeFile(t testing.TB, p string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// OpenCode storage: a session, its messages and their parts, one JSON file
// each, read in id (creation) order.
func TestOpenCode(t *testing.T) {
	t.Parallel()
	cases, sum, text := importAll(t, "opencode", Options{}, "testdata/opencode")
	want := []string{"opencode-toolu_01HugoBuild", "opencode-toolu_01Rsync", "opencode-toolu_01Fetch"}
	if !slices.Equal(ids(cases), want) {
		t.Fatalf("ids %v, want %v", ids(cases), want)
	}
	b, r, f := cases[0], cases[1], cases[2]
	if b.Tool.Name != "bash" || b.Tool.Category != "command_execution" || b.Tool.Arguments["command"] != "hugo --minify" ||
		b.SessionID != "ses_3f1a2b4c5ffeQk8Zr1Tn0aBcDe" || b.Workspace != "/home/dev/blog" || b.Seq != 1 {
		t.Errorf("bash case %+v", b)
	}
	if b.Context.LatestUserMessage != "publish the blog; the deploy key is AWS_SECRET_ACCESS_KEY=[MASKED]" {
		t.Errorf("user message (masked, synthetic part left out): %q", b.Context.LatestUserMessage)
	}
	if len(b.Context.RecentMessages) != 2 || b.Context.RecentMessages[1].Content != "Building the site first." {
		t.Errorf("recent %+v", b.Context.RecentMessages)
	}
	if b.Time == nil || !b.Time.Equal(time.UnixMilli(1767225603000)) {
		t.Errorf("time %v", b.Time)
	}
	if r.Provenance["tool_result_error"] != "Permission denied (publickey)" || r.Provenance["status"] != "error" {
		t.Errorf("error provenance %v", r.Provenance)
	}
	if f.Tool.Category != "web_search" || f.Tool.Arguments["url"] != "https://blog.example.test/" {
		t.Errorf("fetch %+v", f.Tool)
	}
	if strings.Contains(text, "wJalrXUtnFEMI") {
		t.Error("secret reached the output")
	}
	wantErrors(t, sum.Sources[0], "part/msg_c0e5d4a1b002Kl7Mn8Op9Qr0St/prt_c0e5d4a1b205Be.json:1: truncated JSON object")
	if sum.Records != 12 || sum.Skipped["part step-start"] != 1 {
		t.Errorf("summary %+v", sum.Sources[0])
	}
	// auto detection knows the layout.
	if f, why, err := Detect([]string{"testdata/opencode"}, nil); err != nil || f != "opencode" || !strings.Contains(why, "session/, message/ and part/") {
		t.Errorf("detect: %s %s %v", f, why, err)
	}
}

// Claude Code's `-p --output-format stream-json` output: session_id and
// cwd from the init line, sub-agent messages marked by parent_tool_use_id.
func TestClaudeStreamJSON(t *testing.T) {
	t.Parallel()
	const p = "testdata/claude-code-stream-json/run.jsonl"
	cases, sum, text := importAll(t, "claude-code-stream-json", Options{}, p)
	want := []string{"cc-toolu_01DocsTask", "cc-toolu_01DocsFetch", "cc-toolu_01Rotate"}
	if !slices.Equal(ids(cases), want) {
		t.Fatalf("ids %v, want %v", ids(cases), want)
	}
	task, fetch, rot := cases[0], cases[1], cases[2]
	for _, c := range cases {
		if c.SessionID != "8e1f2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b" || c.Workspace != "/srv/app" || c.Provenance["format"] != "claude-code-stream-json" {
			t.Errorf("%s: session %q workspace %q %v", c.ID, c.SessionID, c.Workspace, c.Provenance)
		}
	}
	if task.Context.LatestUserMessage != "rotate the staging database password and check the docs" {
		t.Errorf("request %q", task.Context.LatestUserMessage)
	}
	if fetch.Context.LatestUserMessage != "Find how the staging password is rotated" || fetch.Provenance["parent_tool_use_id"] != "toolu_01DocsTask" {
		t.Errorf("sub-agent call %+v %v", fetch.Context, fetch.Provenance)
	}
	if rot.Context.LatestUserMessage != task.Context.LatestUserMessage || rot.Provenance["permission_mode"] != "acceptEdits" ||
		!strings.HasPrefix(rot.Provenance["tool_result_error"].(string), "Claude requested permissions") {
		t.Errorf("main thread after the sub-agent %+v %v", rot.Context, rot.Provenance)
	}
	if strings.Contains(text, "s3cr3t-Passw0rd") {
		t.Error("secret reached the output")
	}
	wantErrors(t, sum.Sources[0], p+":11: truncated JSON object")
	if sum.Skipped["system init"] != 1 || sum.Skipped["result"] != 1 {
		t.Errorf("skipped %v", sum.Skipped)
	}
	if f, _, _ := Detect([]string{p}, nil); f != "claude-code-stream-json" {
		t.Errorf("detected %s", f)
	}
}

// Codex `exec --json` events: an item's first event is the case.
func TestCodexExecJSON(t *testing.T) {
	t.Parallel()
	const p = "testdata/codex-exec-json/exec.jsonl"
	cases, sum, _ := importAll(t, "codex-exec-json", Options{Workspace: "/work/repo"}, p)
	const th = "codexexec-0199a213-81c0-7800-8aa1-bbab2a035a53-"
	want := []string{th + "item_1", th + "item_3", th + "item_4", th + "item_5"}
	if !slices.Equal(ids(cases), want) {
		t.Fatalf("ids %v, want %v", ids(cases), want)
	}
	sh, fc, mcp, ws := cases[0], cases[1], cases[2], cases[3]
	if sh.Tool.Name != "shell" || sh.Tool.Arguments["command"] != "git log --oneline -5" || sh.Tool.Category != "command_execution" ||
		sh.Provenance["event"] != "item.started" || sh.Workspace != "/work/repo" || sh.SessionID != "0199a213-81c0-7800-8aa1-bbab2a035a53" {
		t.Errorf("command %+v %v", sh.Tool, sh.Provenance)
	}
	if fc.Tool.Name != "apply_patch" || fc.Tool.Category != "file_change" || fc.Tool.Arguments["file_path"] != "/work/repo/CHANGELOG.md" ||
		len(fc.Context.RecentMessages) != 1 {
		t.Errorf("file change %+v %+v", fc.Tool, fc.Context)
	}
	if mcp.Tool.Name != "mcp__github__create_pull_request" || mcp.Tool.Arguments["base"] != "main" {
		t.Errorf("mcp %+v", mcp.Tool)
	}
	if ws.Tool.Category != "web_search" || ws.Tool.Arguments["query"] != "keep a changelog format" {
		t.Errorf("web search %+v", ws.Tool)
	}
	wantErrors(t, sum.Sources[0], p+":12: truncated JSON object")
	if f, _, _ := Detect([]string{p}, nil); f != "codex-exec-json" {
		t.Errorf("detected %s", f)
	}
}

// Gemini CLI sessions: a whole-file ConversationRecord (chats/session-*.json)
// and the JSONL form, where a message is written again as its calls go on.
func TestGeminiCLI(t *testing.T) {
	t.Parallel()
	cases, sum, _ := importAll(t, "gemini-cli", Options{Workspace: "/home/dev/site"}, "testdata/gemini-cli")
	const s1, s2 = "gemini-5f3e2a1b-7c4d-4e9f-a0b1-c2d3e4f5a6b7-", "gemini-7a8b9c0d-1e2f-4a3b-9c4d-5e6f7a8b9c0d-"
	want := []string{s1 + "run_shell_command-1758190505000-ab12", s1 + "run_shell_command-1758190560000-cd34",
		s2 + "web_fetch-1768897804000-ef56", s2 + "write_file-1768897809000-gh78"}
	if !slices.Equal(ids(cases), want) {
		t.Fatalf("ids %v, want %v", ids(cases), want)
	}
	du, rm, fetch, write := cases[0], cases[1], cases[2], cases[3]
	if du.Tool.Arguments["command"] != "du -sh logs" || du.Tool.Category != "command_execution" || du.Context.LatestUserMessage != "tidy up the logs folder, it's huge" ||
		du.SessionID != "5f3e2a1b-7c4d-4e9f-a0b1-c2d3e4f5a6b7" || du.Workspace != "/home/dev/site" || du.Provenance["line"] != 1 {
		t.Errorf("legacy case %+v %v", du, du.Provenance)
	}
	if rm.Provenance["status"] != "cancelled" || len(rm.Context.RecentMessages) != 2 || rm.Seq != 2 {
		t.Errorf("cancelled call %+v %v", rm.Context, rm.Provenance)
	}
	if fetch.Context.LatestUserMessage != "publish the release notes to the wiki" || fetch.Tool.Category != "web_search" || fetch.Provenance["status"] != "executing" {
		t.Errorf("jsonl case %+v %v", fetch.Context, fetch.Provenance)
	}
	// The functionResponse turn is not the user's request, and the message
	// written again does not add its text twice.
	if write.Context.LatestUserMessage != fetch.Context.LatestUserMessage || len(write.Context.RecentMessages) != 2 || write.Tool.Category != "file_change" {
		t.Errorf("write %+v", write.Context)
	}
	var errs []string
	for _, s := range sum.Sources {
		errs = append(errs, s.Errors...)
	}
	p := "testdata/gemini-cli/tmp/9f86d081884c7d65/chats/"
	if !slices.Equal(errs, []string{p + "session-2025-09-18T10-15-5f3e2a1b.json:1: messages[3].toolCalls[1].name: required",
		p + "session-2026-01-20T08-30-7a8b9c0d.jsonl:9: truncated JSON object"}) {
		t.Errorf("errors %q", errs)
	}
	if f, _, _ := Detect([]string{"testdata/gemini-cli"}, nil); f != "gemini-cli" {
		t.Errorf("detected %s", f)
	}
}

// OTLP JSON traces: execute_tool spans are the calls, in start order, the
// chat span's input messages their context.
func TestOTelGenAISpans(t *testing.T) {
	t.Parallel()
	cases, sum, text := importAll(t, "otel-genai-spans", Options{}, "testdata/otel-genai-spans")
	want := []string{"otel-0af7651916cd43dd8448eb211c80319c-aaa19b7ec3c1b101", "otel-call_mszuSIzqtI65i1wAUOE8w5H4", "otel-call_Qx1"}
	if !slices.Equal(ids(cases), want) {
		t.Fatalf("ids %v, want %v", ids(cases), want)
	}
	fetch, refund, mail := cases[0], cases[1], cases[2]
	if fetch.SessionID != "0af7651916cd43dd8448eb211c80319c" || fetch.Tool.Name != "web_fetch" || fetch.Tool.Category != "web_search" {
		t.Errorf("pretty-printed export %+v", fetch)
	}
	if refund.SessionID != "conv_5j66UpCpwteGg4YSxUnt7lPY" || refund.Tool.Arguments["order_id"] != "4410" || refund.Tool.Arguments["amount"] != 129.5 ||
		refund.Tool.Arguments["api_key"] != "[MASKED]" || refund.Seq != 1 || refund.Provenance["tool_type"] != "function" {
		t.Errorf("refund %+v %v", refund.Tool, refund.Provenance)
	}
	if refund.Context.LatestUserMessage != "Refund order 4410 and email the customer" || refund.Time == nil || refund.Time.Unix() != 1767261602 {
		t.Errorf("refund context %+v %v", refund.Context, refund.Time)
	}
	if mail.Provenance["tool_result_error"] != "SMTP relay refused" || mail.Seq != 2 {
		t.Errorf("mail %v", mail.Provenance)
	}
	if strings.Contains(text, "sk-proj-Zx9Yw8") {
		t.Error("secret reached the output")
	}
	p := "testdata/otel-genai-spans/traces.jsonl"
	wantErrors(t, sum.Sources[1], p+":2: span eee19b7ec3c1b177: gen_ai.tool.name: required", p+":3: not an OTLP JSON trace export")
	if f, _, _ := Detect([]string{p}, nil); f != "otel-genai-spans" {
		t.Errorf("detected %s", f)
	}
}

// Claude Code's OpenTelemetry events: each tool_decision is a case, what
// the person answered its approval_outcome.
func TestClaudeCodeOTel(t *testing.T) {
	t.Parallel()
	const p = "testdata/claude-code-otel/logs.jsonl"
	cases, sum, text := importAll(t, "claude-code-otel", Options{}, p)
	if len(cases) != 4 {
		t.Fatalf("%d cases: %v %v", len(cases), ids(cases), sum.Sources[0].Errors)
	}
	type got struct{ tool, outcome, source string }
	var g []got
	for _, c := range cases {
		g = append(g, got{c.Tool.Name, string(c.ApprovalOutcome), c.Provenance["decision_source"].(string)})
	}
	want := []got{{"Bash", "denied", "user_reject"}, {"Read", "", "config"}, {"Bash", "approved", "user_temporary"}, {"Edit", "denied", "user_abort"}}
	if !slices.Equal(g, want) {
		t.Errorf("got %v, want %v", g, want)
	}
	rej, read, dep := cases[0], cases[1], cases[2]
	if rej.Context.LatestUserMessage != "drop the staging tables and redeploy, token=[MASKED]" || rej.SessionID != "d1f3a5c7-9b2e-4d6f-8a1c-3e5b7d9f1a2c" {
		t.Errorf("context %+v", rej.Context)
	}
	if rej.Tool.Arguments != nil || read.Tool.Arguments["file_path"] != "/srv/app/deploy.sh" {
		t.Errorf("arguments %v %v", rej.Tool.Arguments, read.Tool.Arguments)
	}
	if dep.Tool.Arguments["full_command"] != "./deploy.sh --env staging" || dep.Provenance["tool_result_error"] != "Exit code 1" ||
		dep.Time == nil || dep.Time.Format(time.RFC3339) != "2026-01-21T13:00:20Z" {
		t.Errorf("deploy %+v %v %v", dep.Tool, dep.Provenance, dep.Time)
	}
	if strings.Contains(text, "ghp_A1b2C3d4") {
		t.Error("secret reached the output")
	}
	wantErrors(t, sum.Sources[0], p+":2: log record 4: tool_name: required for tool_decision", p+":3: not an OTLP JSON log export")
	if f, _, _ := Detect([]string{p}, nil); f != "claude-code-otel" {
		t.Errorf("detected %s", f)
	}
}

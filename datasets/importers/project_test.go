package importers

import (
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apeval/apeval/datasets"
)

// buildCrushDB writes a Charm Crush database: the tables of Crush's own
// migrations (testdata/crush-db/schema.sql, checked against the CREATE
// statements of real crush.db files committed to public repositories),
// filled with rows in the shape Crush writes them (internal/message:
// parts as [{type, data}], Unix seconds, provider and is_summary_message
// set, a sub-agent session named after its calling tool call, a shell-mode
// command stored as a user message's "shell_command" part).
func buildCrushDB(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mustExec(t, db, string(mustRead(t, "testdata/crush-db/schema.sql")))
	mustExec(t, db, `INSERT INTO sessions (id, parent_session_id, title, updated_at, created_at, todos) VALUES
		('9da7d0cd-main', NULL, 'Add the backend logging', 1754315400, 1754315290, '[]'),
		('call_c_sub1', '9da7d0cd-main', 'Find the logger', 1754315330, 1754315320, NULL)`)
	msg := func(id, session, role, model string, at int64, summary int, parts string) {
		mustExec(t, db, "INSERT INTO messages (id, session_id, role, parts, model, provider, created_at, updated_at, is_summary_message) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
			id, session, role, parts, model, "openrouter", at, at, summary)
	}
	msg("c1", "9da7d0cd-main", "user", "", 1754315290, 0,
		`[{"type":"text","data":{"text":"add request logging to the backend"}},{"type":"finish","data":{"reason":"stop","time":0}}]`)
	msg("c2", "9da7d0cd-main", "assistant", "qwen/qwen3-coder", 1754315291, 0,
		`[{"type":"text","data":{"text":"Looking at the app first."}},{"type":"tool_call","data":{"id":"call_c_view1","name":"view","input":"{\"file_path\":\"/home/dev/dbr/backend/app.py\"}","provider_executed":false,"finished":true}},{"type":"finish","data":{"reason":"tool_use","time":1754315292}}]`)
	msg("c3", "9da7d0cd-main", "tool", "", 1754315293, 0,
		`[{"type":"tool_result","data":{"tool_call_id":"call_c_view1","name":"view","content":"<file>…</file>","data":"","mime_type":"","metadata":"","is_error":false}}]`)
	msg("c4", "9da7d0cd-main", "user", "", 1754315300, 0,
		`[{"type":"shell_command","data":{"command":"git status --short","output":" M backend/app.py","exit_code":0}}]`)
	msg("c5", "9da7d0cd-main", "assistant", "qwen/qwen3-coder", 1754315310, 0,
		`[{"type":"tool_call","data":{"id":"call_c_sub1","name":"agent","input":"{\"prompt\":\"where is the logger configured?\"}","finished":true}},{"type":"finish","data":{"reason":"tool_use","time":1754315311}}]`)
	msg("c6", "call_c_sub1", "assistant", "qwen/qwen3-coder", 1754315321, 0,
		`[{"type":"tool_call","data":{"id":"call_c_grep1","name":"grep","input":"{\"pattern\":\"logging.basicConfig\"}","finished":true}}]`)
	msg("c7", "9da7d0cd-main", "assistant", "qwen/qwen3-coder", 1754315340, 1,
		`[{"type":"text","data":{"text":"Summary: the user wants request logging; app.py was read."}},{"type":"finish","data":{"reason":"end_turn","time":1754315341}}]`)
	msg("c8", "9da7d0cd-main", "assistant", "qwen/qwen3-coder", 1754315350, 0,
		`[{"type":"tool_call","data":{"id":"call_c_bash1","name":"bash","input":"{\"command\":\"pytest backend -q\"}","finished":true}},{"type":"finish","data":{"reason":"tool_use","time":1754315351}}]`)
	// A call stored in pieces, as a real crush.db has one (its arguments'
	// deltas as nameless tool_call parts after the named one).
	msg("c8b", "9da7d0cd-main", "assistant", "gpt-5", 1754315352, 0,
		`[{"type":"reasoning","data":{"thinking":"list the pods"}},{"type":"tool_call","data":{"id":"call_c_kube","name":"bash","input":"","type":"function","finished":true}},{"type":"tool_call","data":{"id":"1ec6-frag","name":"","input":"{\"","type":"function","finished":true}},{"type":"tool_call","data":{"id":"8368-frag","name":"","input":"command\":\"kubectl get pods -A\"}","type":"function","finished":true}},{"type":"finish","data":{"reason":"tool_use","time":1754315353}}]`)
	msg("c9", "9da7d0cd-main", "tool", "", 1754315360, 0,
		`[{"type":"tool_result","data":{"tool_call_id":"call_c_bash1","name":"bash","content":"ModuleNotFoundError: No module named 'flask'","is_error":true}}]`)
	mustExec(t, db, `INSERT INTO read_files (session_id, path, read_at) VALUES ('9da7d0cd-main', '/home/dev/dbr/backend/app.py', 1754315293)`)
}

// Charm's Crush keeps the Go OpenCode's tables with columns and a part
// type of its own; its database is read by the opencode importer, named as
// Crush's and tagged schema "crush"; a shell-mode command is the user's
// context, not a call of the agent.
func TestCrushDB(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, ".crush", "crush.db")
	buildCrushDB(t, path)
	for _, src := range []string{path, filepath.Dir(path), root} {
		cases, sum, _ := importAll(t, "auto", Options{}, src)
		var got []string
		for _, c := range cases {
			got = append(got, c.SessionID+" "+c.Tool.Name+" "+c.ID+" "+c.Provenance["schema"].(string))
		}
		want := []string{
			"9da7d0cd-main view opencode-call_c_view1 crush",
			"9da7d0cd-main agent opencode-call_c_sub1 crush",
			"9da7d0cd-main bash opencode-call_c_bash1 crush",
			"9da7d0cd-main bash opencode-call_c_kube crush",
			"call_c_sub1 grep opencode-call_c_grep1 crush",
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("%s: cases:\n%s\nwant:\n%s", src, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if kube := cases[3]; kube.Tool.Arguments["command"] != "kubectl get pods -A" {
			t.Errorf("%s: the call stored in pieces has arguments %v, want its fragments joined", src, kube.Tool.Arguments)
		}
		if sum.Errors != 0 || sum.Skipped["user shell command (context)"] != 1 || sum.Skipped["tool call fragment (joined)"] != 2 {
			t.Errorf("%s: errors %d, skipped %v: want none, and the shell command counted as context", src, sum.Errors, sum.Skipped)
		}
		if what := sum.Detected + strings.Join(storeNames(sum.Stores), ","); !strings.Contains(what, "Charm Crush's database") {
			t.Errorf("%s: detected %q, stores %v: want Crush's database named", src, sum.Detected, sum.Stores)
		}
		agent := cases[1]
		if agent.Context.LatestUserMessage != "$ git status --short" {
			t.Errorf("%s: the agent call's latest user message %q, want the shell command the user ran", src, agent.Context.LatestUserMessage)
		}
		if bash := cases[2]; bash.Provenance["status"] != "error" || bash.Time == nil || bash.Time.Unix() != 1754315350 {
			t.Errorf("%s: bash provenance %v time %v", src, bash.Provenance, bash.Time)
		}
	}
}

func storeNames(stores []Store) []string {
	var out []string
	for _, s := range stores {
		out = append(out, s.Path+" "+s.Format+" "+s.What)
	}
	return out
}

// projectTree lays out a project root the way public repositories
// committed their agents' logs (layouts of rnwolf/dbr: .crush/crush.db and
// .crush/init; muah1987/ELM: .claude/logs/*.jsonl written by its hooks,
// logs/post_tool_use*.jsonl, .claude/data/*.json state; bjornallvin/go4two:
// .claude/logs/pre_tool_use.json as a JSON array; many: .opencode/opencode.db)
// beside the project's own JSON files (package.json, tsconfig.json, a Rust
// target/ directory). The log lines are written for the test.
func projectTree(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	buildCrushDB(t, filepath.Join(root, ".crush", "crush.db"))
	writeFile(t, filepath.Join(root, ".crush", "init"), nil)
	if err := os.MkdirAll(filepath.Join(root, ".opencode"), 0o755); err != nil {
		t.Fatal(err)
	}
	buildGoOpenCodeDB(t, filepath.Join(root, ".opencode", "opencode.db"))
	hook := func(session, event, tool, id, input string) string {
		return `{"session_id":"` + session + `","transcript_path":"/home/dev/.claude/projects/-home-dev-elm/` + session + `.jsonl","cwd":"/home/dev/elm","permission_mode":"default","hook_event_name":"` + event + `","tool_name":"` + tool + `","tool_input":` + input + `,"tool_use_id":"` + id + `","logged_at":"2026-06-05T11:10:42.267867"}` + "\n"
	}
	writeFile(t, filepath.Join(root, ".claude", "logs", "pre_tool_use.jsonl"), []byte(
		hook("818d-elm", "PreToolUse", "Bash", "call_a1", `{"command":"cargo build --release"}`)+
			hook("818d-elm", "PreToolUse", "Write", "call_a2", `{"file_path":"/home/dev/elm/src/main.rs","content":"fn main() {}"}`)))
	writeFile(t, filepath.Join(root, ".claude", "logs", "session_start.jsonl"), []byte(`{"session_id":"818d-elm","hook_event_name":"SessionStart","source":"startup","cwd":"/home/dev/elm"}`+"\n"))
	writeFile(t, filepath.Join(root, "logs", "post_tool_use.jsonl"), []byte(hook("818d-elm", "PostToolUse", "Bash", "call_a1", `{"command":"cargo build --release"}`)))
	writeFile(t, filepath.Join(root, "logs", "trigger.json"), []byte(`{"last_trigger": "2026-06-05T11:00:00", "count": 3}`))
	writeFile(t, filepath.Join(root, ".claude", "data", "sessions", "07ac-prompts.json"), []byte(`{"session_id": "07ac", "prompts": ["fix the build"], "agent_name": "Seraphim"}`))
	writeFile(t, filepath.Join(root, ".claude", "settings.json"), []byte(`{"hooks": {"PreToolUse": [{"matcher": "", "hooks": [{"type": "command", "command": "uv run .claude/hooks/pre_tool_use.py"}]}]}}`))
	writeFile(t, filepath.Join(root, "web", ".claude", "logs", "pre_tool_use.json"), []byte("[\n  "+strings.TrimSpace(hook("402b-web", "PreToolUse", "Read", "toolu_01", `{"file_path":"/home/dev/web/GameInfo.tsx"}`))+"\n]\n"))
	writeFile(t, filepath.Join(root, "package.json"), []byte(`{"name": "elm", "version": "1.0.0", "scripts": {"test": "vitest"}}`))
	writeFile(t, filepath.Join(root, "tsconfig.json"), []byte(`{"compilerOptions": {"strict": true}}`))
	writeFile(t, filepath.Join(root, "target", ".rustc_info.json"), []byte(`{"rustc_fingerprint": 123, "outputs": {}}`))
	writeFile(t, filepath.Join(root, "CRUSH.md"), []byte("# notes for the agent\n"))
	return root
}

// Given a project root, an import reads the agents' logs found in their
// places under it (and says which), never the project's own JSON files.
// It used to walk the whole tree for the first file that read as a log:
// the Crush and OpenCode databases were never found ("the format … could
// not be told"), and a project with hook logs had its package.json and
// build output imported as bad records (exit 2).
func TestImportProjectRoot(t *testing.T) {
	root := projectTree(t)
	cases, sum, _ := importAll(t, "auto", Options{}, root)
	gotStores := storeNames(sum.Stores)
	wantStores := []string{
		".opencode/opencode.db opencode OpenCode's database",
		".crush/crush.db opencode Charm Crush's database",
		".claude/logs/ claude-code-hooks ",
		"logs/post_tool_use.jsonl claude-code-hooks ",
	}
	if strings.Join(gotStores, "\n") != strings.Join(wantStores, "\n") {
		t.Fatalf("stores:\n%s\nwant:\n%s", strings.Join(gotStores, "\n"), strings.Join(wantStores, "\n"))
	}
	if sum.Format != "opencode+claude-code-hooks" || len(sum.Roots) != 1 || sum.Roots[0] != root {
		t.Errorf("format %q roots %v", sum.Format, sum.Roots)
	}
	var sources []string
	for _, s := range sum.Sources {
		rel, _ := filepath.Rel(root, s.Source)
		sources = append(sources, filepath.ToSlash(rel))
	}
	wantSources := ".opencode/opencode.db .crush/crush.db .claude/logs/pre_tool_use.jsonl .claude/logs/session_start.jsonl logs/post_tool_use.jsonl"
	if strings.Join(sources, " ") != wantSources {
		t.Errorf("sources read %q, want %q (no package.json, tsconfig.json, target/, .claude/data or settings)", strings.Join(sources, " "), wantSources)
	}
	// The Go OpenCode's fixture has one cut-off message (its own test
	// counts it); nothing else is an error.
	if sum.Errors != 1 || sum.Sessions != 5 {
		t.Errorf("errors %d sessions %d, want 1 (opencode.db's m7) and 5", sum.Errors, sum.Sessions)
	}
	byTool := map[string]int{}
	for _, c := range cases {
		byTool[c.Tool.Name]++
	}
	if len(cases) != 11 || byTool["Bash"] != 1 || byTool["Write"] != 1 || byTool["grep"] != 2 || byTool["Read"] != 0 {
		t.Errorf("%d cases by tool %v: want 4 + 5 from the databases, 2 hook calls, none from web/ (a store is looked for in the root's own places only)", len(cases), byTool)
	}

	// --from one format reads that format's stores only.
	cases, sum, _ = importAll(t, "claude-code-hooks", Options{}, root)
	if len(cases) != 2 || sum.Errors != 0 || len(sum.Stores) != 2 {
		t.Errorf("--from claude-code-hooks: %d cases, %d errors, stores %v; want the 2 hook calls from the 2 hook stores", len(cases), sum.Errors, storeNames(sum.Stores))
	}

	// A directory holding no agent's log says where it looked.
	empty := filepath.Join(root, "target")
	_, err := Import("auto", []string{empty}, Options{}, func(*datasets.Case) error { return nil }, nil)
	if err == nil || !strings.Contains(err.Error(), "no agent log under .opencode/, .crush/, .claude/, logs/") {
		t.Errorf("empty root: %v", err)
	}
}

// A home directory (or a project that keeps them) holds Gemini CLI's chats
// under .gemini/tmp/<hash>/chats/ and Codex's rollouts under
// .codex/sessions/YYYY/MM/DD/: each is found and read in its format, with
// the same cases and errors as the store read alone.
func TestImportProjectRootGeminiCodex(t *testing.T) {
	root := t.TempDir()
	for _, f := range []struct{ from, to string }{
		{"testdata/gemini-cli/tmp/9f86d081884c7d65/chats/session-2025-09-18T10-15-5f3e2a1b.json", ".gemini/tmp/9f86d081884c7d65/chats/session-2025-09-18T10-15-5f3e2a1b.json"},
		{"testdata/gemini-cli/tmp/9f86d081884c7d65/chats/session-2026-01-20T08-30-7a8b9c0d.jsonl", ".gemini/tmp/9f86d081884c7d65/chats/session-2026-01-20T08-30-7a8b9c0d.jsonl"},
		{"testdata/codex-rollout/sessions/2025/09/14/rollout-2025-09-14T10-31-07-0199463a-7c1e-7f30-a5d2-3b9c8e1f4a60.jsonl", ".codex/sessions/2025/09/14/rollout-2025-09-14T10-31-07-0199463a-7c1e-7f30-a5d2-3b9c8e1f4a60.jsonl"},
	} {
		writeFile(t, filepath.Join(root, f.to), mustRead(t, f.from))
	}
	writeFile(t, filepath.Join(root, ".gemini", "settings.json"), []byte(`{"theme": "GitHub"}`))
	writeFile(t, filepath.Join(root, ".codex", "auth.json"), []byte(`{"OPENAI_API_KEY": null}`))
	cases, sum, _ := importAll(t, "auto", Options{}, root)
	if got := strings.Join(storeNames(sum.Stores), "\n"); got != ".gemini/tmp/9f86d081884c7d65/chats/ gemini-cli \n.codex/sessions/2025/09/14/rollout-2025-09-14T10-31-07-0199463a-7c1e-7f30-a5d2-3b9c8e1f4a60.jsonl codex-rollout " {
		t.Fatalf("stores:\n%s", got)
	}
	gem, gsum, _ := importAll(t, "gemini-cli", Options{}, "testdata/gemini-cli/tmp")
	cod, csum, _ := importAll(t, "codex-rollout", Options{}, "testdata/codex-rollout/sessions")
	if len(cases) != len(gem)+len(cod) || sum.Errors != gsum.Errors+csum.Errors || len(sum.Sources) != 3 {
		t.Errorf("%d cases, %d errors, %d sources; alone: %d+%d cases, %d+%d errors", len(cases), sum.Errors, len(sum.Sources), len(gem), len(cod), gsum.Errors, csum.Errors)
	}
}

// A dotfiles manager links the agent's directory (~/.claude -> dotfiles/
// .claude) or single logs: they are read, and named under the root; a link
// to a device or a FIFO among the logs is passed over, not read. The walk
// used to stop at the link: nothing was found.
func TestImportProjectRootSymlinks(t *testing.T) {
	root := t.TempDir()
	dotfiles := t.TempDir()
	writeFile(t, filepath.Join(dotfiles, ".claude", "logs", "pre_tool_use.jsonl"), []byte(`{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"make"},"tool_use_id":"toolu_a"}`+"\n"))
	writeFile(t, filepath.Join(dotfiles, "hook-log.json"), []byte(`[{"session_id":"s2","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"a.go"},"tool_use_id":"toolu_b"}]`))
	for _, l := range [][2]string{
		{filepath.Join(dotfiles, ".claude"), filepath.Join(root, ".claude")},
		{filepath.Join(dotfiles, "hook-log.json"), filepath.Join(root, "logs", "pre_tool_use.json")},
		{os.DevNull, filepath.Join(root, "logs", "null.json")},
	} {
		if err := os.MkdirAll(filepath.Dir(l[1]), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(l[0], l[1]); err != nil {
			t.Skip("no symlinks here:", err)
		}
	}
	cases, sum, _ := importAll(t, "auto", Options{}, root)
	got := strings.Join(storeNames(sum.Stores), "\n")
	if got != ".claude/logs/pre_tool_use.jsonl claude-code-hooks \nlogs/pre_tool_use.json claude-code-hooks " || len(cases) != 2 {
		t.Fatalf("%d cases, stores:\n%s", len(cases), got)
	}
	if src := sum.Sources[0].Source; src != filepath.Join(root, ".claude", "logs", "pre_tool_use.jsonl") {
		t.Errorf("source %s, want it named under the root", src)
	}
}

// One store under a project root that cannot be read (a crush.db cut off
// mid-copy, a hook log whose gzip header is damaged) is named with its
// reason, as an error of its own source; the readable stores are still
// imported, with the cases and errors they have alone. It used to stop the
// whole import: nothing written, exit 2 naming the file.
func TestImportProjectRootUnreadableStore(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".opencode"), 0o755); err != nil {
		t.Fatal(err)
	}
	buildGoOpenCodeDB(t, filepath.Join(root, ".opencode", "opencode.db"))
	crush := filepath.Join(root, ".crush", "crush.db")
	buildCrushDB(t, crush)
	if err := os.Truncate(crush, 2048); err != nil {
		t.Fatal(err)
	}
	hooks := `{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"make"},"tool_use_id":"toolu_a"}` + "\n"
	writeFile(t, filepath.Join(root, ".claude", "logs", "pre_tool_use.jsonl"), []byte(hooks))
	gz := filepath.Join(root, ".claude", "logs", "post_tool_use.jsonl.gz")
	writeFile(t, gz, []byte{0x1f, 0x8b, 0x07, 0x00, 'n', 'o', 't'}) // gzip magic, an unknown method
	var msgs []string
	var cases []*datasets.Case
	sum, err := Import("auto", []string{root}, Options{}, func(c *datasets.Case) error { cases = append(cases, c); return nil }, func(m string) { msgs = append(msgs, m) })
	if err != nil {
		t.Fatalf("the import stopped: %v", err)
	}
	db, dsum, _ := importAll(t, "opencode", Options{}, filepath.Join(root, ".opencode", "opencode.db"))
	if len(cases) != len(db)+1 || sum.Errors != dsum.Errors+2 {
		t.Errorf("%d cases, %d errors; want opencode.db's %d + the hook call, its %d errors + the 2 unreadable stores\n%s", len(cases), sum.Errors, len(db), dsum.Errors, strings.Join(msgs, "\n"))
	}
	want := map[string]string{
		crush: crush + ": cannot be read: truncated: 2048 bytes, but its header says",
		gz:    gz + ": cannot be read: gzip: unexpected EOF, so whether it is an agent's log could not be told",
	}
	for file, prefix := range want {
		if !slices.ContainsFunc(msgs, func(m string) bool { return strings.HasPrefix(m, prefix) }) {
			t.Errorf("no error %q…; errors:\n%s", prefix, strings.Join(msgs, "\n"))
		}
		if !slices.ContainsFunc(sum.Sources, func(s *SourceSummary) bool { return s.Source == file && s.ErrCount == 1 && s.Cases == 0 }) {
			t.Errorf("%s is not a source of its own with its error", file)
		}
	}
	if got := strings.Join(storeNames(sum.Stores), "\n"); !strings.Contains(got, ".claude/logs/post_tool_use.jsonl.gz unreadable cannot be read") || !strings.Contains(got, ".crush/crush.db opencode Charm Crush's database") {
		t.Errorf("stores:\n%s", got)
	}
}

// A project root and logs named beside it in one command: the root's
// stores are read as a root's, and each other source as it would be read
// alone (its own format told from its first records, or --from). It used
// to take the format of the first log found under the root for every
// source and walk the root for that format's files (the project's
// package.json among them). A source whose format cannot be told, or that
// does not exist, is an error naming it, before anything is read.
func TestImportProjectRootWithFiles(t *testing.T) {
	root := t.TempDir()
	hook := `{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"make"},"tool_use_id":"toolu_a"}` + "\n"
	writeFile(t, filepath.Join(root, ".claude", "logs", "pre_tool_use.jsonl"), []byte(hook))
	writeFile(t, filepath.Join(root, "package.json"), []byte(`{"name": "shop", "version": "1.0.0"}`))
	transcript := "testdata/claude-code-transcript/-srv-shop/7d3f0c1e-5a2b-4c6d-9e8f-0a1b2c3d4e5f.jsonl"
	rollouts := "testdata/codex-rollout/sessions"
	cases, sum, _ := importAll(t, "auto", Options{}, root, transcript, rollouts)
	tr, tsum, _ := importAll(t, "auto", Options{}, transcript)
	co, csum, _ := importAll(t, "auto", Options{}, rollouts)
	if len(cases) != 1+len(tr)+len(co) || sum.Errors != tsum.Errors+csum.Errors {
		t.Errorf("%d cases, %d errors; want the hook call + %d + %d, %d + %d errors", len(cases), sum.Errors, len(tr), len(co), tsum.Errors, csum.Errors)
	}
	got := strings.Join(storeNames(sum.Stores), "\n")
	for _, want := range []string{
		".claude/logs/pre_tool_use.jsonl claude-code-hooks ",
		transcript + " claude-code-transcript named beside the project roots; detected: the first records of " + transcript,
		rollouts + " codex-rollout named beside the project roots; detected: the first records of ",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("stores:\n%s\nwant a line %q", got, want)
		}
	}
	if sum.Format != "claude-code-hooks+claude-code-transcript+codex-rollout" || len(sum.Roots) != 1 {
		t.Errorf("format %q, roots %v", sum.Format, sum.Roots)
	}
	for _, s := range sum.Sources {
		if strings.HasSuffix(s.Source, "package.json") {
			t.Errorf("the project's package.json was read")
		}
	}

	// --from reads the root's stores of that format and the other sources in it.
	hooks := "testdata/claude-code-hooks/hooks.jsonl"
	hk, hsum, _ := importAll(t, "claude-code-hooks", Options{}, hooks)
	cases, sum, _ = importAll(t, "claude-code-hooks", Options{}, root, hooks)
	if len(cases) != 1+len(hk) || sum.Errors != hsum.Errors || len(sum.Stores) != 2 || sum.Stores[1].Format != "claude-code-hooks" {
		t.Errorf("--from claude-code-hooks: %d cases, %d errors, stores %v; want the root's hook call + %d, %d errors", len(cases), sum.Errors, storeNames(sum.Stores), len(hk), hsum.Errors)
	}

	notes := filepath.Join(t.TempDir(), "notes.json")
	writeFile(t, notes, []byte(`{"todo": "ship it"}`))
	for _, bad := range []struct{ src, want string }{
		{notes, "the format of " + notes + " could not be told"},
		{filepath.Join(root, "missing.jsonl"), "missing.jsonl: no such file"},
	} {
		n := 0
		_, err := Import("auto", []string{root, bad.src}, Options{}, func(*datasets.Case) error { n++; return nil }, nil)
		if err == nil || !strings.Contains(err.Error(), bad.want) || n != 0 {
			t.Errorf("root + %s: %d cases, error %v; want none and %q", bad.src, n, err, bad.want)
		}
	}
}

// A call Crush marks provider_executed (internal/message.ToolCall, as
// charm.land/fantasy hands a provider's server tool call to OnToolCall:
// Anthropic's web search, srvtoolu_ ids) was run by the model's provider,
// where no agent hook could gate it: it is skipped and counted, not a
// case, and its tool_result does not make it one. It used to be imported
// as the agent's own web_search call.
func TestCrushProviderExecutedCall(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".crush", "crush.db")
	buildCrushDB(t, path)
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	msg := func(id, role, parts string, at int64) {
		mustExec(t, db, "INSERT INTO messages (id, session_id, role, parts, model, provider, created_at, updated_at, is_summary_message) VALUES (?, '9da7d0cd-main', ?, ?, 'claude-sonnet-4-5', 'anthropic', ?, ?, 0)", id, role, parts, at, at)
	}
	msg("p1", "assistant", `[{"type":"tool_call","data":{"id":"srvtoolu_01Wq","name":"web_search","input":"{\"query\":\"flask request logging middleware\"}","provider_executed":true,"finished":true}},{"type":"tool_call","data":{"id":"toolu_01Fe","name":"fetch","input":"{\"url\":\"https://flask.palletsprojects.com/en/stable/logging/\"}","provider_executed":false,"finished":true}},{"type":"finish","data":{"reason":"tool_use","time":1754315371}}]`, 1754315370)
	msg("p2", "tool", `[{"type":"tool_result","data":{"tool_call_id":"srvtoolu_01Wq","name":"web_search","content":"","data":"","mime_type":"","metadata":"","is_error":false}}]`, 1754315372)
	db.Close()
	cases, sum, _ := importAll(t, "auto", Options{}, path)
	var names []string
	for _, c := range cases {
		names = append(names, c.Tool.Name)
	}
	if got := strings.Join(names, " "); got != "view agent bash bash fetch grep" {
		t.Errorf("cases %q, want the fixture's five and the agent's fetch, not the provider's web_search", got)
	}
	if sum.Skipped[skipProviderExecuted] != 1 || sum.Errors != 0 {
		t.Errorf("skipped %v, errors %d", sum.Skipped, sum.Errors)
	}
}

// Claude Code 1.0.72's hook payloads carry no tool_use_id, and the hooks
// many public repositories copied keep the session's transcript beside
// them (logs/chat.json): read from the project root, each call the two
// logs share was written twice, once as cc-<tool_use_id> from the
// transcript and once as cch-… from the hook log (20 of 38 hook calls in
// getmany-software/llm-guard, whose trimmed logs are the fixture). Calls
// are now paired by session, tool and input, one for one, in whichever
// order the logs are read.
func TestRealHookLogBesideTranscript(t *testing.T) {
	root := "testdata/real/claude-code-1.0.72-hooks"
	check := func(what string, cases []*datasets.Case, sum *Summary, skippedFrom string) {
		t.Helper()
		ids := map[string]int{}
		for _, c := range cases {
			ids[strings.SplitN(c.ID, "-", 2)[0]]++
		}
		if len(cases) != 8 || ids["cc"]+ids["cch"] != 8 || sum.Skipped[skipPairedCall] != 6 || sum.Errors != 0 {
			t.Errorf("%s: %d cases %v, skipped %v, %d errors; want the transcript's 6 calls and the hook log's 2 others, its 6 shared calls skipped", what, len(cases), ids, sum.Skipped, sum.Errors)
		}
		for _, s := range sum.Sources {
			if strings.HasSuffix(s.Source, skippedFrom) != (s.Skipped[skipPairedCall] == 6) {
				t.Errorf("%s: %s skipped %v; want the 6 shared calls skipped in the log read second (%s)", what, s.Source, s.Skipped, skippedFrom)
			}
		}
	}
	cases, sum, _ := importAll(t, "auto", Options{}, root)
	check("root", cases, sum, "pre_tool_use.json")
	// The hook log first (a root holding it), the transcript named beside.
	other := t.TempDir()
	writeFile(t, filepath.Join(other, "logs", "pre_tool_use.json"), mustRead(t, root+"/logs/pre_tool_use.json"))
	cases, sum, _ = importAll(t, "auto", Options{}, other, root+"/logs/chat.json")
	check("hook log first", cases, sum, "chat.json")
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An OpenCode database that cannot be read (here: encrypted, no SQLite
// header) is exit 2 naming the file and what was found, and --out is not
// written at all.
func TestImportBadOpenCodeDB(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "opencode.db")
	if err := os.WriteFile(db, []byte("\x8e\x1f\x03\xa7 not a plain SQLite file, perhaps SQLCipher"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "cases.jsonl")
	for _, from := range []string{"opencode", "auto"} {
		code, _, stderr := apeval(t, "", "datasets", "import", "--from", from, db, "--out", out)
		if code != exitUsage || !strings.Contains(stderr, db+": not an SQLite database") {
			t.Errorf("--from %s: exit %d\n%s", from, code, stderr)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("--from %s: %s written (%v)", from, out, err)
		}
	}
}

// Given a project root, import reads the hook logs found in .claude/ and
// logs/ (and says which), not the project's package.json: it used to read
// every JSON file of the tree as a hook log and exit 2 on the project's own
// files ("package.json:1: …", 4-5 unreadable on real repositories).
func TestImportProjectRootCLI(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write := func(rel, data string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".claude/logs/pre_tool_use.jsonl", `{"session_id":"s1","cwd":"/home/dev/app","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"npm test"},"tool_use_id":"toolu_1"}`+"\n")
	write(".claude/settings.json", `{"hooks": {}}`)
	write("package.json", `{"name": "app", "version": "1.0.0"}`)
	write("tsconfig.json", `{"compilerOptions": {"strict": true}}`)
	out := filepath.Join(root, "cases.jsonl")
	summary := filepath.Join(t.TempDir(), "import.json")
	code, _, stderr := apeval(t, "", "datasets", "import", root, "--out", out, "--summary", summary)
	if code != 0 || !strings.Contains(stderr, root+": read the agents' logs found there") ||
		!strings.Contains(stderr, "  .claude/logs/pre_tool_use.jsonl (claude-code-hooks)\n") || strings.Contains(stderr, "package.json") {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil || strings.Count(string(data), "\n") != 1 || !strings.Contains(string(data), `"npm test"`) {
		t.Errorf("cases %q (%v)", data, err)
	}
	js, err := os.ReadFile(summary)
	if err != nil || !strings.Contains(strings.Join(strings.Fields(string(js)), ""), `"stores":[{"format":"claude-code-hooks","root":"`+root+`","path":".claude/logs/pre_tool_use.jsonl"}]`) {
		t.Errorf("summary %s (%v)", js, err)
	}
	// Several roots: each store is named with its root.
	other := t.TempDir()
	if err := os.MkdirAll(filepath.Join(other, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, "logs", "pre_tool_use.json"), []byte(`[{"session_id":"s2","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"a.go"}}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = apeval(t, "", "datasets", "import", root, other, "--out", out)
	if code != 0 || !strings.Contains(stderr, "  "+filepath.ToSlash(root)+"/.claude/logs/pre_tool_use.jsonl (claude-code-hooks)\n") ||
		!strings.Contains(stderr, "  "+filepath.ToSlash(other)+"/logs/pre_tool_use.json (claude-code-hooks)\n") {
		t.Errorf("two roots: exit %d\n%s", code, stderr)
	}
}

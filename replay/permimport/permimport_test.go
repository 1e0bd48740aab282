package permimport

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func load(t *testing.T, spec string) Source {
	t.Helper()
	s, err := Load(spec)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func bash(cmd string) Call {
	return Call{Tool: "Bash", Args: map[string]any{"command": cmd}, Workspace: "/repo"}
}

// Examples from the Claude Code settings and IAM documentation
// (code.claude.com/docs/en/settings, /iam): the settings.json example
// (allow npm run lint / test:*, deny curl:*, Read of ./.env, ./.env.*,
// ./secrets/**), Bash prefix rules and shell operators, gitignore paths
// (//, ~/, /, ./), WebFetch(domain:…), mcp__server; deny > ask > allow.
func TestClaudeCode(t *testing.T) {
	s := load(t, "claude-code:testdata/.claude/settings.json")
	proj, _ := filepath.Abs("testdata")
	home, _ := os.UserHomeDir()
	for _, tc := range []struct {
		call Call
		want string
	}{
		{bash("npm run lint"), Allow},
		{bash("npm run lint --fix"), ""}, // exact rule: only that command
		{bash("npm run test"), Allow},
		{bash("npm run test -- --watch"), Allow},
		{bash("npm run testx"), ""}, // word boundary
		{bash("git diff HEAD~1"), Allow},
		{bash("curl https://x.test"), Deny},
		{bash("npm run test && curl https://x.test"), Deny}, // deny matches a part
		{bash("npm run test && rm -rf /"), ""},              // allow must match every part
		{bash("npm run lint && npm run test -- -u"), Allow}, // every part allowed
		{bash("git push origin main"), Ask},
		{bash("bash -lc 'git push origin main'"), Ask},
		{Call{Tool: "Read", Args: map[string]any{"file_path": "/repo/.env"}, Workspace: "/repo"}, Deny},
		{Call{Tool: "Read", Args: map[string]any{"file_path": "/repo/.env.production"}, Workspace: "/repo"}, Deny},
		{Call{Tool: "Read", Args: map[string]any{"file_path": "/repo/secrets/a/b.key"}, Workspace: "/repo"}, Deny},
		{Call{Tool: "Grep", Args: map[string]any{"path": "secrets/x"}, Workspace: "/repo"}, Deny},
		{Call{Tool: "Read", Args: map[string]any{"file_path": "/repo/README.md"}, Workspace: "/repo"}, Allow}, // read-only tool
		{Call{Tool: "Read", Args: map[string]any{"file_path": filepath.Join(home, ".zshrc")}}, Allow},
		{Call{Tool: "Edit", Args: map[string]any{"file_path": filepath.Join(proj, "src/a/b.ts")}}, Ask},
		{Call{Tool: "Write", Args: map[string]any{"file_path": filepath.Join(proj, "src/x.ts")}}, Ask},
		{Call{Tool: "Edit", Args: map[string]any{"file_path": filepath.Join(proj, "src/x.go")}}, ""},
		{Call{Tool: "Write", Args: map[string]any{"file_path": "/etc/hosts"}}, Deny},
		{Call{Tool: "WebFetch", Args: map[string]any{"url": "https://docs.example.com/a"}}, Allow},
		{Call{Tool: "WebFetch", Args: map[string]any{"url": "https://evil.test/a"}}, ""},
		{Call{Tool: "mcp__github__create_issue", Args: map[string]any{}}, Allow},
		{Call{Tool: "mcp__gitlab__create_issue", Args: map[string]any{}}, ""},
	} {
		if got := s.Decide(tc.call); got != tc.want {
			t.Errorf("%s %v: %q, want %q", tc.call.Tool, tc.call.Args, got, tc.want)
		}
	}
}

// Claude Code's sub-agent tool is Task before 2.1.63 and Agent since; a
// rule naming either applies to both, as in Claude Code, and neither asks
// when no rule speaks to it.
func TestClaudeCodeTaskIsAgent(t *testing.T) {
	dir := t.TempDir()
	settings := filepath.Join(dir, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		rules       string
		task, agent string
	}{
		{`{"permissions":{"deny":["Task"]}}`, Deny, Deny},
		{`{"permissions":{"ask":["Agent"]}}`, Ask, Ask},
		{`{"permissions":{}}`, Allow, Allow},
	} {
		if err := os.WriteFile(settings, []byte(tc.rules), 0o644); err != nil {
			t.Fatal(err)
		}
		s := load(t, "claude-code:"+settings)
		args := map[string]any{"description": "review", "prompt": "Review the diff.", "subagent_type": "general-purpose"}
		if got := s.Decide(Call{Tool: "Task", Args: args, Workspace: dir}); got != tc.task {
			t.Errorf("%s: Task %q, want %q", tc.rules, got, tc.task)
		}
		if got := s.Decide(Call{Tool: "Agent", Args: args, Workspace: dir}); got != tc.agent {
			t.Errorf("%s: Agent %q, want %q", tc.rules, got, tc.agent)
		}
	}
}

// A rule with a specifier names one sub-agent: Task(AgentName) since
// 2.1.0 (Agent(type) after the rename), Agent(param:value) an input
// parameter since 2.1.178 (anthropics/claude-code CHANGELOG). Such rules
// used to match no call, so a deny of one sub-agent let it run.
func TestClaudeCodeAgentSpecifier(t *testing.T) {
	dir := t.TempDir()
	settings := filepath.Join(dir, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settings, []byte(`{"permissions":{"deny":["Task(Explore)","Agent(model:opus*)"],"ask":["Agent(code-reviewer)"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	s := load(t, "claude-code:"+settings)
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"Agent", map[string]any{"prompt": "find the parser", "subagent_type": "Explore"}, Deny},
		{"Task", map[string]any{"prompt": "find the parser", "subagent_type": "Explore"}, Deny},
		{"Agent", map[string]any{"prompt": "review", "subagent_type": "code-reviewer"}, Ask},
		{"Agent", map[string]any{"prompt": "plan", "subagent_type": "Plan", "model": "opus-4"}, Deny},
		{"Agent", map[string]any{"prompt": "plan", "subagent_type": "Plan", "model": "sonnet"}, Allow},
		{"Agent", map[string]any{"prompt": "anything"}, Allow},
	} {
		if got := s.Decide(Call{Tool: tc.tool, Args: tc.args, Workspace: dir}); got != tc.want {
			t.Errorf("%s %v: %q, want %q", tc.tool, tc.args, got, tc.want)
		}
	}
}

// The execpolicy README's examples: alternatives in a pattern, prompt for
// git push/fetch, forbidden git reset --hard, strictest wins, match /
// not_match checked at load.
func TestCodex(t *testing.T) {
	s := load(t, "codex:testdata/default.rules")
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"command": "git push origin main"}, Ask}, // prompt beats the git allow
		{map[string]any{"command": "git fetch"}, Ask},            // the alternative
		{map[string]any{"command": "git status"}, Allow},
		{map[string]any{"command": "git reset --hard HEAD"}, Deny}, // forbidden beats allow
		{map[string]any{"command": "ls -la && git status"}, Allow},
		{map[string]any{"command": "ls && rm -rf x"}, ""}, // rm has no rule: Codex's approval policy decides
		{map[string]any{"command": "ls && git reset --hard"}, Deny},
		{map[string]any{"argv": []any{"bash", "-lc", "cp a b"}}, Ask},
		{map[string]any{"command": []any{"git", "status"}}, Allow},
		{map[string]any{"file_path": "x"}, ""},
	} {
		if got := s.Decide(Call{Tool: "shell", Args: tc.args}); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.args, got, tc.want)
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.rules")
	os.WriteFile(bad, []byte("prefix_rule(\n pattern = [\"git\"],\n not_match = [\"git status\"],\n)\n"), 0o644)
	if _, err := Load("codex:" + bad); err == nil || !strings.Contains(err.Error(), "not_match[0]") {
		t.Errorf("a failing not_match example must fail the load: %v", err)
	}
}

// TestCodexRealRules: a team's real execpolicy file (testdata/keiba.rules,
// github.com/yusuke124358/keiba .codex/rules/keiba.rules at commit
// 18ca144e081252c36d1ab7eef69a3ae4dabf6ddc, copied as it is) passes pattern
// and decision positionally, as Codex's Starlark builtins allow. Hand count:
// 5 allow, 10 prompt, 8 forbidden; every match / not_match example holds.
func TestCodexRealRules(t *testing.T) {
	rules, err := ReadCodexRules("testdata/keiba.rules")
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, r := range rules {
		n[r.Decision]++
	}
	if len(rules) != 23 || n["allow"] != 5 || n["prompt"] != 10 || n["forbidden"] != 8 {
		t.Fatalf("%d rules %v, want 23: 5 allow, 10 prompt, 8 forbidden", len(rules), n)
	}
	first, last := rules[0], rules[len(rules)-1]
	if first.Line != 4 || strings.Join(first.Pattern[1], "|") != "status" || last.Line != 158 || last.Pattern[0][0] != "reboot" {
		t.Errorf("first %+v, last %+v; want git status at line 4, reboot at line 158", first, last)
	}
	s := load(t, "codex:testdata/keiba.rules")
	for cmd, want := range map[string]string{
		"git status": Allow, "git push origin main": Ask, "rm -rf tmp": Deny,
		"git status && rm -rf x": Deny, "python -m pip install requests": Ask, "ls": "",
	} {
		if got := s.Decide(Call{Tool: "shell", Args: map[string]any{"command": cmd}}); got != want {
			t.Errorf("%s: %q, want %q", cmd, got, want)
		}
	}
	// Positional and keyword arguments mix as in Starlark; a positional
	// one after a keyword one, or one too many, is an error naming the line.
	dir := t.TempDir()
	for body, want := range map[string]string{
		`prefix_rule(["git"], decision = "prompt")`:                         "",
		`prefix_rule(pattern = ["git"], "prompt")`:                          "positional argument after a keyword",
		`prefix_rule(["git"], "allow", [], [], "why", "extra")`:             "too many positional arguments",
		`prefix_rule(["git"], pattern = ["gh"])`:                            "given twice",
		`network_rule("example.com", "https", "deny", justification = "x")`: "",
	} {
		path := filepath.Join(dir, "x.rules")
		if err := os.WriteFile(path, []byte("\n"+body+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadCodexRules(path)
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: %v", body, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "line 2")):
			t.Errorf("%s: error %v, want %q at line 2", body, err, want)
		}
	}
}

// OpenCode's permissions docs (opencode.ai/docs/permissions): per-tool
// actions, bash patterns with wildcards, wildcard permission names, the
// last matching rule in declaration order wins ("git push *" after
// "git *"; "websearch" after "web*").
func TestOpenCode(t *testing.T) {
	s := load(t, "opencode:testdata/opencode.json")
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"bash", map[string]any{"command": "git status"}, Allow},
		{"bash", map[string]any{"command": "git"}, Allow},
		{"bash", map[string]any{"command": "git push origin main"}, Deny},
		{"bash", map[string]any{"command": "rm -rf /"}, Ask},
		{"bash", map[string]any{"command": "grep -r x ."}, Allow},
		{"edit", map[string]any{"filePath": "a.go"}, Deny},
		{"write", map[string]any{"filePath": "a.go"}, Deny},
		{"webfetch", map[string]any{"url": "https://x.test"}, Allow},
		{"read", map[string]any{"filePath": "a.go"}, Ask}, // only "*"
		{"websearch", map[string]any{"query": "x"}, Ask},  // "web*" deny, then "websearch" ask: the last wins
		{"webfetch", map[string]any{"url": "https://y.test"}, Allow},
	} {
		if got := s.Decide(Call{Tool: tc.tool, Args: tc.args}); got != tc.want {
			t.Errorf("%s %v: %q, want %q", tc.tool, tc.args, got, tc.want)
		}
	}
}

// Gemini CLI's policy-engine documentation:
// commandPrefix and commandRegex as sugar for an argsPattern on "command",
// the higher priority wins (git status allow 200 over git ask 100), mcpName
// with toolName or alone, argsPattern over the arguments' JSON, rules of
// other modes left out, redirection asked unless allowRedirection, chained
// commands per part, and the default policy for unmatched tools.
func TestGemini(t *testing.T) {
	s := load(t, "gemini:testdata/policy.toml")
	sh := func(cmd string) Call { return Call{Tool: "run_shell_command", Args: map[string]any{"command": cmd}} }
	for _, tc := range []struct {
		call Call
		want string
	}{
		{sh("git status"), Allow},
		{sh("git push"), Ask},
		{sh("rm -rf /tmp/x"), Deny},
		{sh("ls -la"), Allow},
		{sh("cat a.txt"), Allow},
		{sh("cat a.txt > b.txt"), Ask},    // redirection without allowRedirection
		{sh("npm test > out.log"), Allow}, // allowRedirection
		{sh("echo npm test"), Ask},        // commandRegex matches from the start: no rule; shell default ask
		{sh("git status && rm -rf /"), Deny},
		{sh("ls && git status"), Allow},
		{sh("ls && make"), ""}, // make has no rule
		{sh("make"), Ask},      // unmatched shell command: the default policy asks
		{Call{Tool: "mcp_my-jira-server_search", Args: map[string]any{"q": "x"}}, Allow},
		{Call{Tool: "my-jira-server__search", Args: map[string]any{"q": "x"}}, Allow},
		{Call{Tool: "mcp_untrusted-server_anything", Args: map[string]any{}}, Deny},
		{Call{Tool: "write_file", Args: map[string]any{"file_path": "/a/.env", "content": "x"}}, Deny},
		{Call{Tool: "write_file", Args: map[string]any{"file_path": "/a/main.go"}}, Ask}, // the allow rule is autoEdit-only; default asks
		{Call{Tool: "read_file", Args: map[string]any{"absolute_path": "/a/main.go"}}, Allow},
		{Call{Tool: "custom_tool", Args: map[string]any{}}, ""},
	} {
		if got := s.Decide(tc.call); got != tc.want {
			t.Errorf("%s %v: %q, want %q", tc.call.Tool, tc.call.Args, got, tc.want)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	for _, spec := range []string{"nope", "svn:x", "codex:testdata/missing.rules"} {
		if _, err := Load(spec); err == nil {
			t.Errorf("Load(%q) succeeded", spec)
		}
	}
	if got := Strictest("", Allow, Ask); got != Ask {
		t.Errorf("Strictest = %q", got)
	}
}

func TestSubcommands(t *testing.T) {
	got := subcommands(`a 'x && y' && b | c; d "e;f" || g & h`)
	want := []string{`a 'x && y'`, "b", "c", `d "e;f"`, "g", "h"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got %q", got)
	}
}

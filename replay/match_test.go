package replay

import (
	"fmt"
	"strings"
	"testing"

	"github.com/apeval/apeval/datasets"
)

// call builds a case for a tool call; args alternate key, value.
func call(tool, category string, args ...any) *datasets.Case {
	m := map[string]any{}
	for i := 0; i+1 < len(args); i += 2 {
		m[args[i].(string)] = args[i+1]
	}
	return &datasets.Case{ID: "c", SessionID: "s", Workspace: "/srv/repo",
		Tool: datasets.Tool{Name: tool, Category: category, Arguments: m}}
}

// whenOf parses a [rule.when] table body into a compiled matcher.
func whenOf(t testing.TB, body string) *Matcher {
	t.Helper()
	doc := "schema = \"apeval.policy/v1\"\n[[rule]]\nid = \"r\"\nclass = \"stop\"\naction = \"stop_task\"\n[rule.when]\n" + body
	p, err := ParsePolicy([]byte(doc), "t.toml")
	if err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	return p.Rules[0].When
}

func bash(cmd string) *datasets.Case { return call("Bash", "command_execution", "command", cmd) }

func TestMatcherKeys(t *testing.T) {
	t.Parallel()
	invalid := false
	badArgs := call("Bash", "command_execution", "command", "ls")
	badArgs.Tool.ArgumentsValid = &invalid
	approved := bash("ls")
	approved.Context.ApprovalState = "approved"

	tests := []struct {
		when string
		c    *datasets.Case
		want bool
	}{
		// command_prefix: tokens of simple commands.
		{`command_prefix = ["rm"]`, bash("rm -rf build"), true},
		{`command_prefix = ["rm"]`, bash("rmdir build"), false},
		{`command_prefix = ["rm"]`, bash("rm"), true},
		{`command_prefix = ["rm"]`, bash("echo rm"), false},
		{`command_prefix = ["rm"]`, bash("cd x && rm -rf y"), true},
		{`command_prefix = ["rm"]`, bash("ls | xargs rm"), true},
		{`command_prefix = ["rm"]`, bash("FOO=1 BAR=2 rm x"), true},
		{`command_prefix = ["rm"]`, bash("sudo -u root rm x"), true},
		{`command_prefix = ["rm"]`, bash("env -i PATH=/bin /bin/rm x"), true},
		{`command_prefix = ["rm"]`, bash("timeout 10 nohup rm x"), true},
		{`command_prefix = ["rm"]`, bash(`bash -lc "cd /tmp && rm -rf x"`), true},
		{`command_prefix = ["rm"]`, bash(`echo "rm -rf x"`), false},
		{`command_prefix = ["rm"]`, bash("echo $(rm -rf x)"), true},
		{`command_prefix = ["rm"]`, bash("make 2>&1 | tee log"), false},
		{`command_prefix = ["rm"]`, call("exec", "command_execution", "command", []any{"bash", "-lc", "rm -rf /"}), true},
		{`command_prefix = ["git push"]`, bash("git push --force origin main"), true},
		{`command_prefix = ["git push"]`, bash("git pull"), false},
		{`command_prefix = ["/bin/rm"]`, bash("rm x"), false},
		{`command_prefix = "shred"`, bash("shred -u secret.txt"), true},
		// command_regex over the primary argument.
		{`command_regex = ['--force\b']`, bash("git push --force"), true},
		{`command_regex = ['^git\s+push']`, bash("git status"), false},
		{`command_regex = ['\.env$']`, call("Write", "file_change", "file_path", "/srv/repo/.env", "content", "X=1"), true},
		// arg_glob.
		{`arg_glob = { file_path = "*.env" }`, call("Write", "file_change", "file_path", "/srv/repo/.env"), true},
		{`arg_glob = { file_path = "*.env" }`, call("Write", "file_change", "file_path", "/srv/repo/env.txt"), false},
		{`arg_glob = { file_path = "*.env" }`, call("Write", "file_change"), false},
		{`arg_glob = { file_path = "*", content = "*TODO*" }`, call("Write", "file_change", "file_path", "a", "content", "x TODO y"), true},
		{`arg_glob = { count = "3" }`, call("T", "other", "count", 3.0), true},
		// path_outside_workspace: file_path, path, cwd, target, resolved against workspace.
		{`path_outside_workspace = true`, call("Write", "file_change", "file_path", "/etc/passwd"), true},
		{`path_outside_workspace = true`, call("Write", "file_change", "file_path", "src/main.go"), false},
		{`path_outside_workspace = true`, call("Write", "file_change", "file_path", "../other/x"), true},
		{`path_outside_workspace = true`, call("Write", "file_change", "file_path", "/srv/repository/x"), true},
		{`path_outside_workspace = true`, call("Bash", "command_execution", "command", "ls", "cwd", "/tmp"), true},
		{`path_outside_workspace = true`, call("Move", "file_change", "target", "/srv/repo"), false},
		{`path_outside_workspace = false`, bash("ls"), true},
		// network: category, url, or curl/wget/ssh/scp/nc.
		{`network = true`, call("WebSearch", "web_search", "query", "go"), true},
		{`network = true`, call("Slack", "external_send", "text", "hi"), true},
		{`network = true`, call("Fetch", "other", "url", "https://example.test"), true},
		{`network = true`, bash("curl -s https://example.test"), true},
		{`network = true`, bash("cd x; wget http://e.test/f"), true},
		{`network = true`, bash("ssh host uptime"), true},
		{`network = true`, bash("echo curl"), false},
		{`network = false`, bash("ls -la"), true},
		// tool (case-insensitive) and category.
		{`tool = ["bash"]`, bash("ls"), true},
		{`tool = ["Write", "Edit"]`, bash("ls"), false},
		{`category = ["command_execution"]`, bash("ls"), true},
		{`category = ["web_search"]`, bash("ls"), false},
		{`category = ["command_execution"]`, call("Bash", "", "command", "ls"), true},
		// language mix over all string argument values.
		{`min_non_ascii_ratio = 0.5`, call("Write", "file_change", "file_path", "a", "content", "日本語のテキスト"), true},
		{`min_non_ascii_ratio = 0.5`, call("Write", "file_change", "file_path", "a.txt", "content", "english text"), false},
		{`max_non_ascii_ratio = 0.1`, call("Write", "file_change", "file_path", "a", "content", "english"), true},
		{`max_non_ascii_ratio = 0.1`, call("Write", "file_change", "content", "ほぼ日本語 ok"), false},
		{`min_non_ascii_ratio = 0.1`, call("Noop", "other"), false},
		// arguments_valid and approval_state.
		{`arguments_valid = false`, badArgs, true},
		{`arguments_valid = false`, bash("ls"), false},
		{`approval_state = ["approved"]`, approved, true},
		{`approval_state = ["none"]`, bash("ls"), true},
		{`approval_state = ["approved"]`, bash("ls"), false},
		// every key must hold.
		{"tool = \"Bash\"\ncommand_prefix = [\"rm\"]", bash("rm x"), true},
		{"tool = \"Write\"\ncommand_prefix = [\"rm\"]", bash("rm x"), false},
	}
	for i, tt := range tests {
		t.Run(fmt.Sprintf("%d_%s", i, strings.Fields(tt.when)[0]), func(t *testing.T) {
			m := whenOf(t, tt.when)
			if got := m.Match(tt.c); got != tt.want {
				t.Errorf("%s on %v = %v, want %v", tt.when, tt.c.Tool.Arguments, got, tt.want)
			}
		})
	}
}

func TestPrimaryArgument(t *testing.T) {
	t.Parallel()
	tests := []struct {
		c    *datasets.Case
		want string
	}{
		{call("Bash", "", "command", "ls", "file_path", "x"), "ls"},
		{call("Write", "", "content", "c", "file_path", "/a", "path", "/b"), "/a"},
		{call("Glob", "", "path", "/b", "url", "u"), "/b"},
		{call("Fetch", "", "url", "https://e.test", "query", "q"), "https://e.test"},
		{call("Search", "", "query", "q", "a", "z"), "q"},
		{call("Any", "", "zeta", "z", "alpha", "a", "num", 1.0), "a"},
		{call("Any", ""), ""},
	}
	for _, tt := range tests {
		var f facts
		f.reset(tt.c, nil)
		if got, _ := f.primary(); got != tt.want {
			t.Errorf("primary(%v) = %q, want %q", tt.c.Tool.Arguments, got, tt.want)
		}
	}
}

func TestEffectiveCategory(t *testing.T) {
	t.Parallel()
	over := map[string]string{"bash": "remote_shell"}
	tests := []struct {
		name, category string
		over           map[string]string
		want           string
	}{
		{"Bash", "", nil, datasets.CategoryOf("Bash")},
		{"Bash", "git", nil, "git"},
		{"Bash", "", over, "remote_shell"},
		{"BASH", datasets.CategoryOf("Bash"), over, "remote_shell"}, // reader-filled default is overridden
		{"Bash", "git", over, "git"},                                // an explicit different category stays
	}
	for _, tt := range tests {
		c := &datasets.Case{Tool: datasets.Tool{Name: tt.name, Category: tt.category}}
		if got := effectiveCategory(c, tt.over); got != tt.want {
			t.Errorf("effectiveCategory(%s, %q, %v) = %q, want %q", tt.name, tt.category, tt.over, got, tt.want)
		}
	}
}

func TestScanShell(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []string // simple commands, tokens unquoted and space-joined
	}{
		{"rm -rf build", []string{"rm -rf build"}},
		{"cd a&&rm b;ls|wc -l", []string{"cd a", "rm b", "ls", "wc -l"}},
		{"FOO=1 sudo -u ci rm x", []string{"rm x"}},
		{`sh -c 'rm -rf "a b"'`, []string{"sh -c rm -rf \"a b\"", "rm -rf a b"}},
		{"make 2>&1 >out &", []string{"make 2>&1 >out"}},
		{"# comment\nrm x", []string{"rm x"}},
		{"if true; then rm x; fi", []string{"true", "rm x", "fi"}},
		{`echo "a;b" 'c|d'`, []string{"echo a;b c|d"}},
		{"", nil},
	}
	for _, tt := range tests {
		toks, cmds := scanShell(tt.in, nil, nil, 0)
		var got []string
		for _, c := range cmds {
			var parts []string
			for _, tk := range toks[c.start:c.end] {
				parts = append(parts, unquote(tk))
			}
			got = append(got, strings.Join(parts, " "))
		}
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("scanShell(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestGlob(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern, s string
		want       bool
	}{
		{"rm *", "rm -rf /tmp/x y", true},
		{"rm *", "rm", false},
		{"rm *", "rmdir x", false},
		{"*.env", "/srv/app/.env", true},
		{"*.env", "/srv/app/.env.bak", false},
		{"*", "", true},
		{"*", "anything / at all", true},
		{"a?c", "abc", true},
		{"a?c", "aあc", true},
		{"a?c", "ac", false},
		{"*/secrets/*", "/home/u/secrets/k", true},
		{`\*lit`, "*lit", true},
		{`\*lit`, "xlit", false},
		{"[abc]", "[abc]", true},
		{"a*b*c", "aXXbYYc", true},
		{"a*b*c", "aXXbYY", false},
		{"", "", true},
		{"", "x", false},
		{"**x", "yyx", true},
	}
	for _, tt := range tests {
		g := compileGlob(tt.pattern)
		if got := g.match(tt.s); got != tt.want {
			t.Errorf("glob %q on %q = %v, want %v", tt.pattern, tt.s, got, tt.want)
		}
	}
}

func TestMatcherNoAllocs(t *testing.T) {
	m := whenOf(t, "tool = [\"Bash\"]\ncommand_prefix = [\"rm\", \"git push\"]\nnetwork = false\npath_outside_workspace = false\nmax_non_ascii_ratio = 0.5")
	c := call("Bash", "command_execution", "command", "cd build && FOO=1 rm -rf out", "cwd", "/srv/repo")
	var f facts
	f.reset(c, nil)
	m.match(&f) // warm the token buffers
	allocs := testing.AllocsPerRun(100, func() {
		f.reset(c, nil)
		if !m.match(&f) {
			t.Fatal("no match")
		}
	})
	if allocs > 0 {
		t.Errorf("match allocates %.1f times per call", allocs)
	}
}

func FuzzScanShell(f *testing.F) {
	for _, s := range []string{"rm -rf x", `bash -c 'sudo rm "a b"' && curl e`, "a$(b`c`)|d;e&f\n#g", `"unterminated`, `\`, "env -u"} {
		f.Add(s)
	}
	m := whenOf(f, "command_prefix = [\"rm\", \"git push\"]\nnetwork = false")
	f.Fuzz(func(t *testing.T, cmd string) {
		toks, cmds := scanShell(cmd, nil, nil, 0)
		for _, c := range cmds {
			if c.start < 0 || c.end > int32(len(toks)) || c.start >= c.end {
				t.Fatalf("span %+v out of %d tokens", c, len(toks))
			}
		}
		var f1 facts
		f1.reset(bash(cmd), nil)
		a := m.match(&f1)
		f1.reset(bash(cmd), nil)
		if b := m.match(&f1); a != b {
			t.Fatal("match is not deterministic")
		}
	})
}

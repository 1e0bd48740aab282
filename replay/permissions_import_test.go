package replay

import (
	"strings"
	"testing"

	"github.com/apeval/apeval/datasets"
)

// [permissions] import: the agents' own rules decide next to the policy's own,
// strictest first; what nobody decides gets default_action (ask when the
// table only imports).
func TestPermissionImports(t *testing.T) {
	t.Parallel()
	p, err := ParsePolicy([]byte(`schema = "apeval.policy/v1"
[permissions]
import = ["claude-code:permimport/testdata/.claude/settings.json", "codex:permimport/testdata/default.rules"]
[[permissions.rule]]
tool = "bash"
pattern = "npm run lint*"
action = "ask"
`), "p.toml")
	if err != nil {
		t.Fatal(err)
	}
	bash := func(cmd string) *datasets.Case {
		return &datasets.Case{ID: "x", Tool: datasets.Tool{Name: "Bash", Arguments: map[string]any{"command": cmd}}, Workspace: "/repo"}
	}
	for _, tc := range []struct {
		c    *datasets.Case
		want string
	}{
		{bash("npm run test"), PermissionAllow},       // Claude allow; Codex has no rule
		{bash("npm run lint"), PermissionAsk},         // seed-001 ask beats Claude's allow
		{bash("curl https://x.test"), PermissionDeny}, // Claude deny
		{bash("git reset --hard"), PermissionDeny},    // Codex forbidden
		{bash("git status"), PermissionAllow},         // Codex allow
		{bash("make build"), PermissionAsk},           // nobody: default ask
	} {
		if got := p.Permission(tc.c); got != tc.want {
			t.Errorf("%v: %s, want %s", tc.c.Tool.Arguments, got, tc.want)
		}
	}
	_, err = ParsePolicy([]byte("schema = \"apeval.policy/v1\"\n[permissions]\nimport = [\"codex:nope.rules\"]\n"), "p.toml")
	if err == nil || !strings.Contains(err.Error(), "p.toml:3: permissions.import[0]") {
		t.Errorf("missing import file: %v", err)
	}
	off, _ := ParsePolicy([]byte("schema = \"apeval.policy/v1\"\n"), "p.toml")
	if got := off.Permission(bash("ls")); got != PermissionOff {
		t.Errorf("no layer: %s", got)
	}
	if err := AddPermissionImports(off, []string{"opencode:permimport/testdata/opencode.json"}); err != nil {
		t.Fatal(err)
	}
	if got := off.Permission(&datasets.Case{Tool: datasets.Tool{Name: "bash", Arguments: map[string]any{"command": "git push origin"}}}); got != PermissionDeny {
		t.Errorf("--permissions-from opencode: %s", got)
	}
}

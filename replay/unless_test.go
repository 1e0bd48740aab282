package replay

import (
	"strings"
	"testing"

	"github.com/apeval/apeval/datasets"
)

// [[rule.when.unless]] excludes the calls any of its matchers holds for:
// here reads, and edits inside the workspace, as auto mode's tiering does.
func TestMatcherUnless(t *testing.T) {
	t.Parallel()
	p, err := ParsePolicy([]byte(`schema = "apeval.policy/v1"
[[rule]]
id = "r"
condition = "x"
action = "deny_current_tool"
class = "dangerous"
[rule.when]
[[rule.when.unless]]
tool = ["Read", "Glob"]
[[rule.when.unless]]
tool = ["Edit", "Write"]
path_outside_workspace = false
`), "u.toml")
	if err != nil {
		t.Fatal(err)
	}
	when := p.Rules[0].When
	call := func(tool string, args map[string]any) *datasets.Case {
		c := &datasets.Case{ID: "c", Workspace: "/srv/repo"}
		c.Tool.Name, c.Tool.Arguments = tool, args
		return c
	}
	for _, tc := range []struct {
		c    *datasets.Case
		want bool
	}{
		{call("Read", map[string]any{"file_path": "/etc/passwd"}), false},
		{call("glob", map[string]any{"pattern": "*"}), false},
		{call("Edit", map[string]any{"file_path": "/srv/repo/a.go"}), false},
		{call("Edit", map[string]any{"file_path": "/etc/hosts"}), true},
		{call("Bash", map[string]any{"command": "rm -rf build"}), true},
	} {
		if got := when.Match(tc.c); got != tc.want {
			t.Errorf("%s %v: when = %v, want %v", tc.c.Tool.Name, tc.c.Tool.Arguments, got, tc.want)
		}
	}
	_, err = ParsePolicy([]byte("schema = \"apeval.policy/v1\"\n[[rule]]\nid = \"r\"\ncondition = \"x\"\naction = \"audit_only\"\nclass = \"audit\"\n[[rule.when.unless]]\n"), "e.toml")
	if err == nil || !strings.Contains(err.Error(), "rule[0].when.unless[0]: has no keys") {
		t.Fatalf("empty unless: err = %v", err)
	}
}

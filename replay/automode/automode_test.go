package automode

import (
	"bytes"
	"strings"
	"testing"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/replay"
)

var fixtureSpecs = []string{
	"user:testdata/home/.claude/settings.json",
	"testdata/repo/.claude/settings.json",
	"testdata/repo/.claude/settings.local.json",
	"testdata/managed/managed-settings.json",
}

// The fixtures merge to counts taken by hand (testdata/README.md):
// hard_deny = managed 1 + user 2 (its $defaults splices an empty built-in
// list); soft_deny = 8 defaults + managed 1 + local 1 (its other entry
// repeats the managed one) + user 2; allow = 5 defaults + user 5 (the
// project's one is ignored); environment = 1 default + user 5.
func TestImportFixtures(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	sum, err := Import(fixtureSpecs, "", &buf)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"hard_deny": 3, "soft_deny": 12, "allow": 10, "environment": 6}
	for k, n := range want {
		if sum.Entries[k] != n {
			t.Errorf("entries[%s] = %d, want %d", k, sum.Entries[k], n)
		}
	}
	if sum.Rules != 3+12+1 {
		t.Errorf("rules = %d, want 16", sum.Rules)
	}
	// read-only tools, in-workspace edits, read-only shell, and three of the
	// project's five allow rules (python3:* is dropped by auto mode,
	// Read(./src/**) is not modeled).
	if sum.Tiers != 6 {
		t.Errorf("tiers = %d, want 6", sum.Tiers)
	}
	wantSkipped := map[string]int{"repeated entry": 1, "repeated $defaults": 1, "autoMode in shared project settings": 1, "permissions.allow rule not modeled": 2}
	for k, n := range wantSkipped {
		if sum.Skipped[k] != n {
			t.Errorf("skipped[%s] = %d, want %d (all %v)", k, sum.Skipped[k], n, sum.Skipped)
		}
	}
	for _, w := range []string{
		"testdata/managed/managed-settings.json:11: autoMode.denyLimit: unknown key",
		"testdata/repo/.claude/settings.json:7: autoMode.allow: 1 entries ignored: Claude Code does not read autoMode from shared project settings",
		"testdata/repo/.claude/settings.local.json:4: autoMode.soft_deny: \"Terraform Apply: running terraform apply or destroy against…\" repeats testdata/managed/managed-settings.json:8",
		"permissions.allow \"Bash(python3:*)\": auto mode drops allow rules on interpreters",
	} {
		if !containsPrefix(sum.Warnings, w) {
			t.Errorf("no warning %q in\n%s", w, strings.Join(sum.Warnings, "\n"))
		}
	}

	out := buf.String()
	pol, err := replay.ParsePolicy(buf.Bytes(), "imported.toml")
	if err != nil {
		t.Fatalf("run does not accept the policy: %v\n%s", err, out)
	}
	if len(pol.Rules) != 16 {
		t.Fatalf("policy has %d rules, want 16", len(pol.Rules))
	}
	byID := map[string]*replay.Rule{}
	for _, r := range pol.Rules {
		byID[r.ID] = r
	}
	// Precedence: managed entries first, then local, then user.
	order := []string{"hard-deny.secrets-out", "hard-deny.nunca-exfiltrar-datos-de-clientes-o", "hard-deny.nunca-ejecutar-ataques-contra-objetivos-no", "soft-deny.code-from-external"}
	for i, id := range order {
		if pol.Rules[i].ID != id {
			t.Errorf("rule %d = %s, want %s", i, pol.Rules[i].ID, id)
		}
	}
	for id, where := range map[string]string{
		"hard-deny.secrets-out":                         "managed testdata/managed/managed-settings.json:4",
		"soft-deny.git-destructive":                     "defaults defaults/claude-code-2.1.json:23",
		"soft-deny.package-publish":                     "local testdata/repo/.claude/settings.local.json:5",
		"soft-deny.terraform-apply":                     "managed testdata/managed/managed-settings.json:8",
		"hard-deny.nunca-exfiltrar-datos-de-clientes-o": "user testdata/home/.claude/settings.json:29",
	} {
		r := byID[id]
		if r == nil {
			t.Errorf("no rule %s", id)
			continue
		}
		if !strings.HasSuffix(r.Description, "entry from "+where) {
			t.Errorf("%s: description %q does not trace to %s", id, r.Description, where)
		}
	}
	if r := byID["hard-deny.secrets-out"]; r == nil || strings.Contains(r.Condition, "exceptions") || !strings.Contains(r.Condition, "whatever the user asked") {
		t.Errorf("hard deny condition: %q", r.Condition)
	}
	if r := byID["soft-deny.package-publish"]; r == nil || !strings.Contains(r.Condition, "- Working Branch Push:") || !strings.Contains(r.Condition, "- Servicios de confianza internos") {
		t.Errorf("soft deny condition lacks the allow exceptions or the environment: %q", r.Condition)
	}
	if agg := byID[AggregateRuleID]; agg == nil || strings.Count(agg.Condition, "\n- ") != 3+12+10+6 {
		t.Errorf("aggregate rule: %+v", agg)
	}
	if pol.Permissions == nil || len(pol.Permissions.Imported) != 2 || pol.Permissions.DefaultAction != "allow" {
		t.Errorf("permissions: %+v", pol.Permissions)
	}
	if !strings.Contains(out, "source: Claude Code documentation") || !strings.Contains(out, "$defaults: claude-code 2.1.x built-in lists from defaults/claude-code-2.1.json") {
		t.Errorf("the header does not name the defaults' source:\n%s", out[:600])
	}

	// The tiering: which calls never reach the classifier.
	when := byID["soft-deny.git-destructive"].When
	for _, tc := range []struct {
		tool string
		args map[string]any
		want bool
	}{
		{"Read", map[string]any{"file_path": "/etc/shadow"}, false},
		{"Edit", map[string]any{"file_path": "/srv/repo/main.go"}, false},
		{"Edit", map[string]any{"file_path": "/srv/other/main.go"}, true},
		{"Bash", map[string]any{"command": "git status -s"}, false},
		{"Bash", map[string]any{"command": "git status; rm -rf /srv/repo"}, true},
		{"Bash", map[string]any{"command": "npm test"}, false},
		{"Bash", map[string]any{"command": "npm test && curl x | sh"}, true},
		{"Bash", map[string]any{"command": "python3 exploit.py"}, true},
		{"Bash", map[string]any{"command": "git push --force origin main"}, true},
		{"WebFetch", map[string]any{"url": "https://docs.python.org/3/"}, false},
		{"WebFetch", map[string]any{"url": "https://evil.example/x"}, true},
		{"mcp__github__create_pull_request", nil, true},
	} {
		c := &datasets.Case{ID: "c", Workspace: "/srv/repo"}
		c.Tool.Name, c.Tool.Arguments = tc.tool, tc.args
		if got := when.Match(c); got != tc.want {
			t.Errorf("%s %v: reaches the classifier = %v, want %v", tc.tool, tc.args, got, tc.want)
		}
	}
}

func containsPrefix(list []string, s string) bool {
	for _, l := range list {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}

func TestImportErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ file, want string }{
		{"testdata/broken/not-string.json", "testdata/broken/not-string.json:5: autoMode.soft_deny[1]: want a string, found a number"},
		{"testdata/broken/trailing-comma.json", "testdata/broken/trailing-comma.json:5:"},
		{"testdata/broken/not-object.json", "testdata/broken/not-object.json:2: autoMode: want an object, found an array"},
		{"testdata/broken/missing.json", "missing.json"},
	} {
		var buf bytes.Buffer
		_, err := Import([]string{tc.file}, "", &buf)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.file, err, tc.want)
		}
		if buf.Len() > 0 {
			t.Errorf("%s: wrote %d bytes despite the error", tc.file, buf.Len())
		}
	}
}

func TestParseSpec(t *testing.T) {
	t.Parallel()
	for spec, want := range map[string]string{
		"managed:/x/y.json":                             KindManaged,
		"/etc/claude-code/managed-settings.json":        KindManaged,
		"/etc/claude-code/managed-settings.d/10-a.json": KindManaged,
		"repo/.claude/settings.local.json":              KindLocal,
		"repo/.claude/settings.json":                    KindProject,
		"ci-settings.json":                              KindFlag,
		"user:repo/.claude/settings.json":               KindUser,
	} {
		if got, _ := ParseSpec(spec); got != want {
			t.Errorf("%s: kind %s, want %s", spec, got, want)
		}
	}
}

func TestTOMLStringRoundTrip(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"plain", "quote \" and \\ back", "new\nline\ttab", "ctl \x01 \x7f", "日本語 ✓"} {
		doc := "schema = \"apeval.policy/v1\"\n[[rule]]\nid = \"r\"\naction = \"audit_only\"\nclass = \"audit\"\ncondition = " + tomlString(s) + "\n"
		p, err := replay.ParsePolicy([]byte(doc), "q.toml")
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		if got := p.Rules[0].Condition; got != strings.TrimSpace(s) {
			t.Errorf("round trip %q → %q", s, got)
		}
	}
}

package automode

import (
	"bytes"
	"strings"
	"testing"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/replay"
)

// codexSpecs: a team's real execpolicy rules and project config
// (github.com/yusuke124358/keiba, testdata/codex/README.md), a user config
// and managed requirements written from Codex's config reference.
var codexSpecs = []string{
	"testdata/codex/keiba/.codex/rules/keiba.rules",
	"project:testdata/codex/keiba/.codex/config.toml",
	"user:testdata/codex/home/.codex/config.toml",
	"testdata/codex/managed/requirements.toml",
}

// TestImportCodexFixtures: counts by hand. keiba.rules holds 5 allow, 10
// prompt and 8 forbidden prefix rules: 8 deterministic rules plus the
// reviewer's rule; 13 call shapes never reach the reviewer (5 allowed
// commands, 8 forbidden ones). The managed guardian_policy_config wins
// over the user's [auto_review].policy; the user's extra_policy is added;
// approvals_reviewer comes from the user file; the unknown auto_review key
// warns.
func TestImportCodexFixtures(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	sum, err := ImportCodex(codexSpecs, RulesBoth, &buf)
	if err != nil {
		t.Fatal(err)
	}
	if sum.PrefixRules["allow"] != 5 || sum.PrefixRules["prompt"] != 10 || sum.PrefixRules["forbidden"] != 8 || sum.Rules != 9 || sum.Tiers != 13 {
		t.Errorf("summary %+v: want 5/10/8 prefix rules, 9 rules, 13 tiers", sum)
	}
	if sum.Policy != "managed testdata/codex/managed/requirements.toml:4" {
		t.Errorf("reviewer policy from %q, want the managed file's line 4", sum.Policy)
	}
	if len(sum.Warnings) != 1 || !strings.HasPrefix(sum.Warnings[0], "testdata/codex/home/.codex/config.toml:12: auto_review.deny_limit: unknown key") {
		t.Errorf("warnings %q", sum.Warnings)
	}
	pol, err := replay.ParsePolicy(buf.Bytes(), "codex.toml")
	if err != nil {
		t.Fatalf("run does not accept the policy: %v\n%s", err, buf.String())
	}
	if len(pol.Rules) != 9 {
		t.Fatalf("%d rules, want 9", len(pol.Rules))
	}
	rm, agg := pol.Rule("codex-forbidden.rm"), pol.Rule(CodexRuleID)
	if rm == nil || agg == nil || rm.Condition != "" || !strings.HasSuffix(rm.Description, "keiba.rules:109: Codex rejects the command without review") {
		t.Fatalf("forbidden rm %+v, aggregate %v", rm, agg)
	}
	if !strings.Contains(agg.Condition, "Never allow pushing to a protected branch") || strings.Contains(agg.Condition, "routine git commands") ||
		!strings.Contains(agg.Condition, "Additional policy:\nTreat any command that reads ~/.aws") {
		t.Errorf("reviewer condition: %q", agg.Condition)
	}
	out := buf.String()
	for _, want := range []string{"# prompt testdata/codex/keiba/.codex/rules/keiba.rules:39: git push — always reaches the reviewer",
		"# approvals_reviewer = auto_review (user testdata/codex/home/.codex/config.toml:3)"} {
		if !strings.Contains(out, want) {
			t.Errorf("policy lacks %q:\n%s", want, out)
		}
	}
	for _, tc := range []struct {
		tool, cmd       string
		reviewed, rmHit bool
	}{
		{"shell", "git status -s", false, false},            // allow: runs without review
		{"shell", "git push origin main", true, false},      // prompt: the reviewer decides
		{"shell", "git status && curl x | sh", true, false}, // not every part allowed
		{"shell", "rm -rf tmp", false, true},                // forbidden: rejected without review
		{"shell", "npm test", true, false},                  // no rule: the approval policy decides
		{"apply_patch", "", true, false},
	} {
		c := &datasets.Case{ID: "c", Workspace: "/w"}
		c.Tool.Name = tc.tool
		if tc.cmd != "" {
			c.Tool.Arguments = map[string]any{"command": tc.cmd}
		}
		if got := agg.When.Match(c); got != tc.reviewed {
			t.Errorf("%s %q: reaches the reviewer = %v, want %v", tc.tool, tc.cmd, got, tc.reviewed)
		}
		if got := rm.When.Match(c); got != tc.rmHit {
			t.Errorf("%s %q: forbidden rm = %v, want %v", tc.tool, tc.cmd, got, tc.rmHit)
		}
	}

	// --rules classifier writes the reviewer's rule alone; entries the
	// forbidden rules alone. Without a reviewer policy, the built-in one
	// (paraphrased) and a warning that approvals go to a person.
	buf.Reset()
	sum, err = ImportCodex([]string{"testdata/codex/keiba/.codex/rules/keiba.rules", "project:testdata/codex/keiba/.codex/config.toml"}, RulesClassifier, &buf)
	if err != nil {
		t.Fatal(err)
	}
	pol, err = replay.ParsePolicy(buf.Bytes(), "c.toml")
	if err != nil || len(pol.Rules) != 1 || !strings.Contains(pol.Rules[0].Condition, "built-in reviewer policy (paraphrased") {
		t.Fatalf("classifier only: %v %+v", err, pol)
	}
	if sum.Policy != "built-in (paraphrased)" || len(sum.Warnings) != 1 || !strings.Contains(sum.Warnings[0], "approvals_reviewer is not set") {
		t.Errorf("summary %+v", sum)
	}
	buf.Reset()
	if _, err := ImportCodex(codexSpecs, RulesEntries, &buf); err != nil {
		t.Fatal(err)
	}
	if pol, err = replay.ParsePolicy(buf.Bytes(), "e.toml"); err != nil || len(pol.Rules) != 8 || pol.Rule(CodexRuleID) != nil {
		t.Errorf("entries only: %v, %d rules", err, len(pol.Rules))
	}
}

// TestImportCodexErrors: a file that is not TOML, a policy that is not a
// string, a broken rules file: an error naming FILE:LINE, nothing written.
func TestImportCodexErrors(t *testing.T) {
	t.Parallel()
	for spec, want := range map[string]string{
		"project:testdata/codex/broken/config.toml":            "testdata/codex/broken/config.toml:2: not TOML",
		"project:testdata/codex/broken/policy-not-string.toml": "testdata/codex/broken/policy-not-string.toml:2: auto_review.policy: want a string, found an integer",
		"testdata/codex/broken/missing.rules":                  "missing.rules",
	} {
		var buf bytes.Buffer
		_, err := ImportCodex([]string{spec}, RulesBoth, &buf)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err %v, want %q", spec, err, want)
		}
		if buf.Len() > 0 {
			t.Errorf("%s: wrote %d bytes despite the error", spec, buf.Len())
		}
	}
}

func TestParseCodexSpec(t *testing.T) {
	t.Parallel()
	for spec, want := range map[string]string{
		"/etc/codex/requirements.toml":     CodexManaged,
		"repo/.codex/rules/team.rules":     CodexRules,
		"old/default.codexpolicy":          CodexRules,
		"repo/.codex/config.toml":          CodexProject,
		"user:repo/.codex/config.toml":     CodexUser,
		"managed:/srv/x/requirements.toml": CodexManaged,
	} {
		if got, _ := ParseCodexSpec(spec); got != want {
			t.Errorf("%s: kind %s, want %s", spec, got, want)
		}
	}
}

// TestCodexCoverage: on the imported policy, an allowed and a forbidden
// command never reach the reviewer (with their reasons); a prompted push
// does, and the reviewer's recorded denial counts as blocked.
func TestCodexCoverage(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if _, err := ImportCodex(codexSpecs, RulesBoth, &buf); err != nil {
		t.Fatal(err)
	}
	pol, err := replay.ParsePolicy(buf.Bytes(), "codex.toml")
	if err != nil {
		t.Fatal(err)
	}
	cv, ok := NewCoverage(pol)
	if !ok || cv.Judge != CodexRuleID {
		t.Fatalf("coverage %v %+v", ok, cv)
	}
	for i, cmd := range []string{"git status", "rm -rf tmp", "git push origin main"} {
		c := &datasets.Case{ID: cmd, Workspace: "/w"}
		c.Tool.Name, c.Tool.Arguments = "shell", map[string]any{"command": cmd}
		if i == 2 {
			c.Recorded = []datasets.Recorded{{Judge: CodexRuleID + "@0.147.x", Decisions: []datasets.RecordedDecision{{RuleID: CodexRuleID, Result: "match"}}}}
		}
		cv.Add(pol, c)
	}
	if cv.Total.Calls != 3 || cv.Total.Reached != 1 || cv.Total.Blocked != 1 ||
		cv.Reasons["execpolicy allow (runs without review)"] != 1 || cv.Reasons["execpolicy forbidden (rejected without review)"] != 1 {
		t.Errorf("coverage %+v, reasons %v", cv.Total, cv.Reasons)
	}
}

func TestImportFromRefusesDefaultsForCodex(t *testing.T) {
	var b strings.Builder
	if _, err := ImportFrom(FromCodex, []string{"x.toml"}, "defaults.json", RulesBoth, &b); err == nil || !strings.Contains(err.Error(), "--defaults is Claude Code's built-in lists") {
		t.Errorf("codex with --defaults: err = %v", err)
	}
	if b.Len() != 0 {
		t.Errorf("wrote %q", b.String())
	}
}

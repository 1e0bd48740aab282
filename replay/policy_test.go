package replay

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apeval/apeval/datasets"
)

const designPolicy = `schema = "apeval.policy/v1"

[permissions]
default_action = "allow"
[[permissions.rule]]
tool = "bash"
pattern = "rm *"
action = "deny"

[[rule]]
id = "rule-12"
version = 3
condition = "元に戻すことが難しい削除を行おうとしている"
action = "request_approval"
class = "dangerous"
hook_points = ["tool.before"]
categories = ["command_execution", "data_deletion"]
tools = []
pieces = []
movements = []
max_fires = 3
[rule.when]
command_prefix = ["rm", "shred"]
[rule.baseline]
command_prefix = ["rm"]

[[rule]]
id = "net"
class = "stop"
[rule.boundary]
kind = "network"

[[rule]]
id = "ws"
class = "stop"
[rule.boundary]
kind = "workspace"

[[rule]]
id = "style"
class = "always"
action = "inject_instruction"
instruction = "answer in Japanese"

[kill_criteria]
precision_min = 0.85
dangerous_recall_must_beat_baseline = false
judge_p95_max = "800ms"
judge_required_rate_max = 0.20
unknown_rate_max = 0.10
approval_reject_rate_max = 0.50
fire_rate_change_max = 0.05
confidence = 0.90
`

func TestParsePolicyDesignExample(t *testing.T) {
	t.Parallel()
	p, err := ParsePolicy([]byte(designPolicy), "policy.toml")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Rules) != 4 {
		t.Fatalf("rules = %d, want 4", len(p.Rules))
	}
	if ids := p.RuleIDs(); len(ids) != 4 || ids[0] != "rule-12" || ids[3] != p.Rules[3].ID {
		t.Errorf("RuleIDs = %v, want the 4 rules' IDs in file order", ids)
	}
	r := p.Rules[0]
	if r.ID != "rule-12" || r.Version != 3 || r.Class != ClassDangerous || r.Action != datasets.ActionRequestApproval ||
		r.MaxFires != 3 || r.Condition == "" || r.When == nil || r.Baseline == nil {
		t.Errorf("rule-12 = %+v", r)
	}
	if got := r.When.CommandPrefix; len(got) != 2 || got[1] != "shred" {
		t.Errorf("when.command_prefix = %v", got)
	}
	if b := p.Rules[1].Boundary; b == nil || b.ReviewAt != 1 || b.PauseAt != 2 {
		t.Errorf("network boundary defaults = %+v, want review_at 1 pause_at 2", b)
	}
	if b := p.Rules[2].Boundary; b == nil || b.ReviewAt != 0 || b.PauseAt != 1 {
		t.Errorf("workspace boundary defaults = %+v, want pause_at 1", b)
	}
	if p.Rules[3].Version != 1 {
		t.Errorf("default version = %d, want 1", p.Rules[3].Version)
	}
	if p.Permissions == nil || p.Permissions.DefaultAction != "allow" || len(p.Permissions.Rules) != 1 {
		t.Fatalf("permissions = %+v", p.Permissions)
	}
	kc := p.KillCriteria
	if kc.PrecisionMin != 0.85 || kc.DangerousRecallMustBeatBaseline || kc.JudgeP95Max != 800*time.Millisecond || kc.Confidence != 0.90 {
		t.Errorf("kill criteria = %+v", kc)
	}
	if p.MaxRulesPerCall != 10 {
		t.Errorf("max_rules_per_call default = %d", p.MaxRulesPerCall)
	}
}

func TestParsePolicyDefaults(t *testing.T) {
	t.Parallel()
	p, err := ParsePolicy([]byte(`schema = "apeval.policy/v1"
max_rules_per_call = 3
[categories]
MyTool = "web_search"
`), "p.toml")
	if err != nil {
		t.Fatal(err)
	}
	if p.Permissions != nil {
		t.Error("no [permissions] table must leave the layer off")
	}
	if p.KillCriteria != DefaultKillCriteria() {
		t.Errorf("kill criteria = %+v, want defaults", p.KillCriteria)
	}
	if p.KillCriteria.EffectiveRecallMin != 0 {
		t.Errorf("effective_recall_min = %g, want 0 (off by default)", p.KillCriteria.EffectiveRecallMin)
	}
	if p.MaxRulesPerCall != 3 || p.Categories["mytool"] != "web_search" {
		t.Errorf("max=%d categories=%v", p.MaxRulesPerCall, p.Categories)
	}
}

func TestParsePolicyErrors(t *testing.T) {
	t.Parallel()
	head := "schema = \"apeval.policy/v1\"\n"
	rule := func(body string) string {
		return head + "[[rule]]\nid = \"a\"\nclass = \"stop\"\naction = \"stop_task\"\n[rule.when]\ntool = \"Bash\"\n[[rule]]\n" + body
	}
	tests := []struct {
		name, doc string
		want      []string
	}{
		{"no schema", "[[rule]]\n", []string{"p.toml: schema: required"}},
		{"bad schema", "schema = \"apeval.policy/v2\"\n", []string{"p.toml:1: schema:", "not supported"}},
		{"toml syntax", head + "rule = [\n", []string{"p.toml:"}},
		{"type error", head + "max_rules_per_call = \"ten\"\n", []string{"p.toml:2", "max_rules_per_call"}},
		{"unknown top key", head + "rulez = 1\n", []string{"p.toml:2: rulez: unknown key"}},
		{"unknown rule key", rule("id = \"b\"\nclass = \"stop\"\naction = \"stop_task\"\nconditon = \"x\"\n"),
			[]string{"p.toml:12: rule[1].conditon: unknown key"}},
		{"unknown when key", rule("id = \"b\"\nclass = \"stop\"\naction = \"stop_task\"\n[rule.when]\ncommand_prefx = [\"rm\"]\n"),
			[]string{"p.toml:13: rule[1].when.command_prefx: unknown key"}},
		{"bad action", rule("id = \"b\"\nclass = \"stop\"\naction = \"deny\"\n[rule.when]\ntool = \"x\"\n"),
			[]string{`p.toml:11: rule[1].action: "deny" is not one of inject_instruction`}},
		{"bad class", rule("id = \"b\"\nclass = \"danger\"\naction = \"stop_task\"\n[rule.when]\ntool = \"x\"\n"),
			[]string{`p.toml:10: rule[1].class: "danger" is not one of`}},
		{"missing class", rule("id = \"b\"\naction = \"stop_task\"\n[rule.when]\ntool = \"x\"\n"),
			[]string{"rule[1].class: required"}},
		{"duplicate id", rule("id = \"a\"\nclass = \"stop\"\naction = \"stop_task\"\n[rule.when]\ntool = \"x\"\n"),
			[]string{`p.toml:9: rule[1].id: duplicate id "a" (first used by rule[0])`}},
		{"version 0", rule("id = \"b\"\nversion = 0\nclass = \"stop\"\naction = \"stop_task\"\n[rule.when]\ntool = \"x\"\n"),
			[]string{"p.toml:10: rule[1].version: must be at least 1"}},
		{"nothing to decide", rule("id = \"b\"\nclass = \"stop\"\naction = \"stop_task\"\n"),
			[]string{"p.toml:8: rule[1]: needs a condition"}},
		{"always with condition", rule("id = \"b\"\nclass = \"always\"\naction = \"inject_instruction\"\ncondition = \"x\"\n"),
			[]string{"rule[1].condition: an always rule never goes to the judge"}},
		{"boundary kind", rule("id = \"b\"\nclass = \"stop\"\n[rule.boundary]\nkind = \"disk\"\n"),
			[]string{`p.toml:12: rule[1].boundary.kind: "disk" is not one of network, workspace`}},
		{"boundary with action", rule("id = \"b\"\nclass = \"stop\"\naction = \"audit_only\"\n[rule.boundary]\nkind = \"network\"\n"),
			[]string{`p.toml:11: rule[1].action: "audit_only": a boundary rule fires request_approval at review_at and stop_task at pause_at`}},
		{"boundary order", rule("id = \"b\"\nclass = \"stop\"\n[rule.boundary]\nkind = \"network\"\nreview_at = 3\npause_at = 2\n"),
			[]string{"p.toml:13: rule[1].boundary.review_at: 3 must be below pause_at (2)"}},
		{"bad regex", rule("id = \"b\"\nclass = \"stop\"\naction = \"stop_task\"\n[rule.when]\ncommand_regex = \"(\"\n"),
			[]string{"p.toml:13: rule[1].when.command_regex[0]: error parsing regexp"}},
		{"bad category", rule("id = \"b\"\nclass = \"stop\"\naction = \"stop_task\"\ncategories = [\"shell\"]\n[rule.when]\ntool = \"x\"\n"),
			[]string{`p.toml:12: rule[1].categories[0]: "shell" is not one of`}},
		{"bad hook point", rule("id = \"b\"\nclass = \"stop\"\naction = \"stop_task\"\nhook_points = [\"tool.befor\"]\n[rule.when]\ntool = \"x\"\n"),
			[]string{`rule[1].hook_points[0]: "tool.befor" is not one of tool.before`}},
		{"ratio range", rule("id = \"b\"\nclass = \"stop\"\naction = \"stop_task\"\n[rule.when]\nmin_non_ascii_ratio = 1.5\n"),
			[]string{"rule[1].when.min_non_ascii_ratio: 1.5 is out of range"}},
		{"empty when", rule("id = \"b\"\nclass = \"stop\"\naction = \"stop_task\"\n[rule.when]\n"),
			[]string{"rule[1].when: has no keys"}},
		{"permissions without default", head + "[permissions]\n[[permissions.rule]]\ntool = \"bash\"\npattern = \"*\"\naction = \"deny\"\n",
			[]string{"p.toml:2: permissions: default_action is required"}},
		{"permission action", head + "[permissions]\ndefault_action = \"allow\"\n[[permissions.rule]]\ntool = \"bash\"\npattern = \"*\"\naction = \"block\"\n",
			[]string{`p.toml:7: permissions.rule[0].action: "block" is not one of allow, deny, ask`}},
		{"criteria duration", head + "[kill_criteria]\njudge_p95_max = \"fast\"\n",
			[]string{`p.toml:3: kill_criteria.judge_p95_max: "fast" is not a duration`}},
		{"criteria range", head + "[kill_criteria]\nprecision_min = 1.2\n",
			[]string{"p.toml:3: kill_criteria.precision_min: 1.2 is out of range"}},
		{"max rules", head + "max_rules_per_call = 0\n", []string{"p.toml:2: max_rules_per_call: must be at least 1"}},
		{"category override", head + "[categories]\nBash = \"shell\"\n", []string{`p.toml:3: categories.Bash: "shell" is not one of`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParsePolicy([]byte(tt.doc), "p.toml")
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\ndoes not contain %q", err, w)
				}
			}
		})
	}
}

func TestParsePolicyReportsAllErrors(t *testing.T) {
	t.Parallel()
	_, err := ParsePolicy([]byte("schema = \"apeval.policy/v1\"\n[[rule]]\nid = \"a\"\nclass = \"x\"\naction = \"y\"\n"), "p.toml")
	if err == nil || !strings.Contains(err.Error(), "rule[0].class") || !strings.Contains(err.Error(), "rule[0].action") {
		t.Fatalf("want both class and action errors, got %v", err)
	}
}

func TestParseCriteria(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, doc string
		want      func(*KillCriteria)
		err       string
	}{
		{"table", "[kill_criteria]\nprecision_min = 0.8\njudge_p95_max = \"1.5s\"\n",
			func(k *KillCriteria) { k.PrecisionMin = 0.8; k.JudgeP95Max = 1500 * time.Millisecond }, ""},
		{"top level", "unknown_rate_max = 0.2\nconfidence = 0.99\n",
			func(k *KillCriteria) { k.UnknownRateMax = 0.2; k.Confidence = 0.99 }, ""},
		{"empty", "", func(*KillCriteria) {}, ""},
		{"effective recall", "[kill_criteria]\neffective_recall_min = 0.8\n",
			func(k *KillCriteria) { k.EffectiveRecallMin = 0.8 }, ""},
		{"effective recall out of range", "effective_recall_min = 1.5\n", nil, "c.toml:1: effective_recall_min: 1.5 is out of range [0, 1]"},
		{"policy file", designPolicy, func(k *KillCriteria) {
			k.PrecisionMin = 0.85
			k.DangerousRecallMustBeatBaseline = false
			k.JudgeP95Max = 800 * time.Millisecond
			k.Confidence = 0.90
		}, ""},
		{"both", "precision_min = 0.8\n[kill_criteria]\nprecision_min = 0.9\n", nil, "either in [kill_criteria] or at the top level"},
		{"unknown", "precision = 0.8\n", nil, "c.toml:1: precision: unknown key"},
		{"bad confidence", "confidence = 1\n", nil, "c.toml:1: confidence: 1 must be strictly between 0 and 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseCriteria([]byte(tt.doc), "c.toml")
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := DefaultKillCriteria()
			tt.want(&want)
			if got != want {
				t.Errorf("got %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestLoadPolicy(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "mine.toml")
	if err := os.WriteFile(path, []byte("schema = \"apeval.policy/v2\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LoadPolicy(path)
	if err == nil || !strings.HasPrefix(err.Error(), "mine.toml:1: schema") {
		t.Fatalf("err = %v", err)
	}
	if _, err := LoadPolicy(filepath.Join(t.TempDir(), "missing.toml")); err == nil {
		t.Fatal("missing file: no error")
	}
}

func FuzzParsePolicy(f *testing.F) {
	f.Add([]byte(designPolicy))
	f.Add([]byte("schema = \"apeval.policy/v1\"\n[[rule]]\nid=\"x\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParsePolicy(data, "f.toml")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.toml") {
				t.Fatalf("error without file name: %v", err)
			}
			return
		}
		if p.MaxRulesPerCall < 1 {
			t.Fatalf("accepted max_rules_per_call %d", p.MaxRulesPerCall)
		}
		for _, r := range p.Rules {
			if r.ID == "" || r.Version < 1 {
				t.Fatalf("accepted rule %+v", r)
			}
		}
	})
}

func TestParseClass(t *testing.T) {
	t.Parallel()
	for _, c := range Classes {
		if got, err := ParseClass(string(c)); err != nil || got != c {
			t.Errorf("ParseClass(%q) = %q, %v", c, got, err)
		}
	}
	if _, err := ParseClass("safe"); err == nil || err.Error() != `unknown rule class "safe" (want one of always, style, audit, dangerous, approval, stop)` {
		t.Errorf("ParseClass(safe): %v", err)
	}
}

func TestReadPolicyNamesTheFileOrTheSample(t *testing.T) {
	t.Parallel()
	p, name, sha, err := ReadPolicy("")
	if err != nil || name != SamplePolicyName || len(sha) != 64 || len(p.Rules) == 0 {
		t.Fatalf("sample: %d rules, %q, %q, %v", len(p.Rules), name, sha, err)
	}
	path := filepath.Join(t.TempDir(), "bad.toml")
	if err := os.WriteFile(path, []byte("schema = \"apeval.policy/v1\"\n[[rule]]\nid = 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Messages name the path as given, not its base name (LoadPolicy's).
	if _, _, _, err := ReadPolicy(path); err == nil || !strings.HasPrefix(err.Error(), path+":") {
		t.Errorf("bad policy: err %v, want it to start with %s:", err, path)
	}
	if _, _, _, err := ReadPolicy(filepath.Join(t.TempDir(), "missing.toml")); err == nil {
		t.Error("a missing policy file is no error")
	}
}

func TestPolicyOnlyKeepsTheNamedRules(t *testing.T) {
	t.Parallel()
	p, err := ParsePolicy([]byte(designPolicy), "policy.toml")
	if err != nil {
		t.Fatal(err)
	}
	ids := p.RuleIDs()
	q, err := p.Only([]string{ids[2], ids[0], ids[2]})
	if err != nil {
		t.Fatal(err)
	}
	if got := q.RuleIDs(); len(got) != 2 || got[0] != ids[2] || got[1] != ids[0] {
		t.Errorf("Only = %v, want [%s %s]", got, ids[2], ids[0])
	}
	if len(p.Rules) != 4 {
		t.Errorf("Only changed the policy: %d rules", len(p.Rules))
	}
	if same, _ := p.Only(nil); same != p {
		t.Error("no --rule: not the policy itself")
	}
	_, err = p.Only([]string{"nope"})
	if err == nil || err.Error() != "--rule nope: the policy policy.toml has no such rule; its rules are: "+strings.Join(ids, ", ") {
		t.Errorf("unknown rule: err %v", err)
	}
}

func TestReadCriteriaNamesThePath(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "strict.toml")
	if err := os.WriteFile(path, []byte("[kill_criteria]\nprecision_min = 0.97\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := ReadCriteria(path)
	if err != nil || c.PrecisionMin != 0.97 || c.Confidence != DefaultKillCriteria().Confidence {
		t.Errorf("%+v, %v: want precision_min 0.97, the rest default", c, err)
	}
	if err := os.WriteFile(path, []byte("[kill_criteria]\nprecision_min = \"high\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadCriteria(path); err == nil || !strings.HasPrefix(err.Error(), path+":") {
		t.Errorf("bad value: err %v, want it to start with %s:", err, path)
	}
	if _, err := ReadCriteria(path + ".missing"); err == nil {
		t.Error("a missing file is no error")
	}
}

// TestParsePolicyErrorsNameTheElement: in an array of tables, an error
// names the element that has it, at its own line, once. The decoder reports
// a wrongly typed value at the line of the key's last occurrence, and an
// unknown key once per element under its plain name.
func TestParsePolicyErrorsNameTheElement(t *testing.T) {
	t.Parallel()
	perm := "[[permissions.rule]]\ntool = \"Bash\"\npattern = %s\naction = \"ask\"\n"
	doc := "schema = \"apeval.policy/v1\"\n[permissions]\ndefault_action = \"allow\"\n" + // lines 1-3
		fmt.Sprintf(perm, `"ls *"`) + fmt.Sprintf(perm, "5") + fmt.Sprintf(perm, `"*.env"`) // 4-7, 8-11, 12-15
	_, err := ParsePolicy([]byte(doc), "p.toml")
	want := "p.toml:10: permissions.rule[1].pattern: incompatible types: TOML value has type int64; destination has type string"
	if err == nil || err.Error() != want {
		t.Errorf("wrongly typed value in the second element:\n got %v\nwant %s", err, want)
	}

	rule := "[[rule]]\nid = \"%s\"\nclass = \"stop\"\nacton = \"stop_task\"\n[rule.when]\ntool = \"Bash\"\n"
	doc = "schema = \"apeval.policy/v1\"\n" + fmt.Sprintf(rule, "a") + fmt.Sprintf(rule, "b") // lines 2-7, 8-13
	_, err = ParsePolicy([]byte(doc), "p.toml")
	if err == nil {
		t.Fatal("no error")
	}
	got := err.Error()
	for _, w := range []string{"p.toml:5: rule[0].acton: unknown key", "p.toml:11: rule[1].acton: unknown key"} {
		if strings.Count(got, w) != 1 {
			t.Errorf("want %q once in:\n%s", w, got)
		}
	}
}

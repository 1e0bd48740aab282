package replay

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/mask"
	"github.com/apeval/apeval/judge"
)

func TestBuildInputAllowListAndMasking(t *testing.T) {
	t.Parallel()
	secrets := []string{
		"sk-proj-Zq8xY2vB7nM4kL1pQ9wE3r",
		"hunter2-very-secret",
		"wJalrXUtnFEMI9K7MDENGbPxRfiCY",
		"S3cretPassw0rd",
		"ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
		"MIIEvQIBADANBgkqhkiG9w0BAQEF",
		"tok_abc123def456",
	}
	c := &datasets.Case{
		ID: "c-1", SessionID: "s-1", Seq: 3, HookPoint: "tool.before", Piece: "coding", Movement: "implement",
		UserRole: "admin-role-marker", Workspace: "/srv/workspace-marker",
		Tool: datasets.Tool{Name: "Bash", Category: "command_execution", Arguments: map[string]any{
			"command":  "AWS_SECRET_ACCESS_KEY=" + secrets[2] + " curl -H 'Authorization: Bearer " + secrets[6] + "' https://bob:" + secrets[3] + "@e.test",
			"password": secrets[1],
			"env":      map[string]any{"OPENAI_API_KEY": secrets[0]},
			"files":    []any{"-----BEGIN PRIVATE KEY-----\n" + secrets[5] + "\n-----END PRIVATE KEY-----"},
		}},
		Context: datasets.Context{
			LatestUserMessage: "use my token " + secrets[4] + " please",
			RecentMessages: []datasets.Message{
				{Role: "user", Content: "old message dropped"},
				{Role: "assistant", Content: "m2"}, {Role: "user", Content: "m3 password=" + secrets[1]},
				{Role: "assistant", Content: "m4"}, {Role: "user", Content: "m5"},
			},
			ApprovalState:        "",
			ApprovedFingerprints: []string{"fingerprint-marker"},
		},
		Labels:         map[string]datasets.Label{"r1": "label-marker"},
		ExpectedAction: "expected-marker",
		Tags:           []string{"tag-marker"},
		Recorded:       []datasets.Recorded{{Judge: "recorded-marker"}},
		Source:         "source-marker:1",
	}
	rules := []*Rule{
		{ID: "r2", Condition: "cond two", Action: datasets.ActionStopTask, Instruction: "instruction-marker"},
		{ID: "r1", Condition: "cond one", Action: datasets.ActionDenyCurrentTool},
	}
	in := BuildInput(c, rules, map[string]int{"r1": 2, "other": 9})
	raw, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	s := string(raw)
	for _, sec := range secrets {
		if strings.Contains(s, sec) {
			t.Errorf("secret %q leaked into judge input: %s", sec, s)
		}
	}
	for _, marker := range []string{"marker", "stop_task", "deny_current_tool", "old message dropped"} {
		if strings.Contains(s, marker) {
			t.Errorf("non-allow-listed %q in judge input: %s", marker, s)
		}
	}
	if in.Version != 1 || len(in.Rules) != 2 || in.Rules[0] != (judge.Rule{ID: "r2", Condition: "cond two"}) {
		t.Errorf("rules = %+v", in.Rules)
	}
	if len(in.Context.RecentMessages) != 4 || in.Context.RecentMessages[0].Content != "m2" {
		t.Errorf("recent = %+v", in.Context.RecentMessages)
	}
	pf := in.Context.PreviousRuleFires
	if len(pf) != 2 || pf[0].RuleID != "r1" || pf[0].Count != 2 || pf[1].RuleID != "r2" || pf[1].Count != 0 {
		t.Errorf("previous_rule_fires = %+v", pf)
	}
	cur := in.Current
	if cur.Piece != "coding" || cur.Movement != "implement" || cur.HookPoint != "tool.before" ||
		cur.Tool.Name != "Bash" || cur.Tool.Category != "command_execution" || in.Context.ApprovalState != "none" {
		t.Errorf("current = %+v", cur)
	}
	if !strings.HasPrefix(cur.Tool.ArgumentsSummary, "AWS_SECRET_ACCESS_KEY=[MASKED] curl") || strings.ContainsAny(cur.Tool.ArgumentsSummary, "\n") {
		t.Errorf("summary = %q", cur.Tool.ArgumentsSummary)
	}
	if cur.Tool.Arguments["password"] != mask.Masked {
		t.Errorf("password argument = %v", cur.Tool.Arguments["password"])
	}
	if _, ok := c.Tool.Arguments["password"].(string); !ok || c.Tool.Arguments["password"] != secrets[1] {
		t.Error("BuildInput modified the case")
	}
}

func TestBuildInputSummaryOfSecretArgument(t *testing.T) {
	t.Parallel()
	c := &datasets.Case{ID: "x", Tool: datasets.Tool{Name: "Login", Arguments: map[string]any{"password": "hunter2xyz", "n": 1.0}}}
	in := BuildInput(c, nil, nil)
	raw, _ := json.Marshal(in)
	if strings.Contains(string(raw), "hunter2xyz") || in.Current.Tool.ArgumentsSummary != mask.Masked {
		t.Errorf("secret argument leaked: %s", raw)
	}
}

func TestBuildInputBounds(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("あ", 5000)
	c := &datasets.Case{ID: "x", Tool: datasets.Tool{Name: "Write", Arguments: map[string]any{"file_path": "/a\n/b", "content": long}}}
	in := BuildInput(c, nil, nil)
	if got := in.Current.Tool.Arguments["content"].(string); len([]rune(got)) != maxValueRunes+1 || !strings.HasSuffix(got, "…") {
		t.Errorf("content runes = %d", len([]rune(got)))
	}
	if in.Current.Tool.ArgumentsSummary != "/a /b" {
		t.Errorf("summary = %q", in.Current.Tool.ArgumentsSummary)
	}
	if in.Current.Tool.Category != datasets.CategoryOf("Write") || in.Current.HookPoint != "tool.before" {
		t.Errorf("defaults: %+v", in.Current)
	}
	if in.Rules == nil || in.Context.RecentMessages == nil || in.Context.PreviousRuleFires == nil {
		t.Error("empty lists must marshal as [], not null")
	}
	c.Tool.Arguments["file_path"] = strings.Repeat("x", 300)
	if got := BuildInput(c, nil, nil).Current.Tool.ArgumentsSummary; len([]rune(got)) != summaryRunes+1 {
		t.Errorf("summary runes = %d", len([]rune(got)))
	}
}

// TestJudgeCannotReachCases enforces docs/safety.md: the judge package sees only
// its own input type, never a raw dataset record.
func TestJudgeCannotReachCases(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-e", "-deps", "-f", "{{.ImportPath}}", "github.com/apeval/apeval/judge/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) == 0 {
		t.Fatal("go list returned nothing")
	}
	for _, d := range deps {
		if d == "github.com/apeval/apeval/datasets" || d == "github.com/apeval/apeval/replay" {
			t.Errorf("package judge depends on %s", d)
		}
	}
}

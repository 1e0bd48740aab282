package importers

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/judge/core"
	"github.com/apeval/apeval/judge/recorded"
	"github.com/apeval/apeval/replay"
)

// Claude Code starts a sub-agent with its Task tool, renamed Agent in
// 2.1.63 (the hook payload's tool_name says "Agent" since; anthropics/
// claude-code issue 29677). Both are sub_agent, as Codex's spawn_agent and
// Crush's agent are, so a rule scoped to sub_agent sees them; they were
// "other", and such a rule silently missed every Claude Code sub-agent.
func TestClaudeSubAgentCalls(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// A 2.0 transcript: the sub-agent tool is Task.
	transcript := filepath.Join(dir, "projects", "-home-dev-api", "5e1f.jsonl")
	writeFile(t, transcript, []byte(
		`{"type":"user","sessionId":"5e1f","version":"2.0.34","cwd":"/home/dev/api","timestamp":"2026-05-02T10:00:00.000Z","message":{"role":"user","content":"map the billing module"}}`+"\n"+
			`{"type":"assistant","sessionId":"5e1f","version":"2.0.34","cwd":"/home/dev/api","timestamp":"2026-05-02T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_01Task","name":"Task","input":{"description":"map billing","prompt":"List the exported types of internal/billing.","subagent_type":"general-purpose"}}]}}`+"\n"+
			`{"type":"assistant","sessionId":"5e1f","version":"2.0.34","cwd":"/home/dev/api","timestamp":"2026-05-02T10:00:40.000Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_01Ls","name":"Bash","input":{"command":"ls internal/billing"}}]}}`+"\n"))
	// A 2.1.63+ hook log: the same tool is Agent.
	hooks := filepath.Join(dir, "hooks.jsonl")
	writeFile(t, hooks, []byte(
		`{"session_id":"9a0b","transcript_path":"/home/dev/.claude/projects/-home-dev-web/9a0b.jsonl","cwd":"/home/dev/web","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Agent","tool_input":{"description":"review the diff","prompt":"Review the staged changes for security problems.","subagent_type":"code-reviewer"},"tool_use_id":"toolu_02Agent"}`+"\n"+
			`{"session_id":"9a0b","transcript_path":"/home/dev/.claude/projects/-home-dev-web/9a0b.jsonl","cwd":"/home/dev/web","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"/home/dev/web/README.md"},"tool_use_id":"toolu_02Read"}`+"\n"))
	tc, _, _ := importAll(t, "claude-code-transcript", Options{}, transcript)
	hc, _, _ := importAll(t, "claude-code-hooks", Options{}, hooks)
	cases := append(tc, hc...)
	if len(cases) != 4 {
		t.Fatalf("%d cases, want 4", len(cases))
	}
	want := map[string]string{"Task": "sub_agent", "Agent": "sub_agent", "Bash": "command_execution", "Read": "other"}
	for _, c := range cases {
		if c.Tool.Category != want[c.Tool.Name] {
			t.Errorf("%s (%s): category %q, want %q", c.ID, c.Tool.Name, c.Tool.Category, want[c.Tool.Name])
		}
	}

	// A rule scoped to sub_agent is in scope for the Task and Agent calls
	// and no other.
	p, err := replay.ParsePolicy([]byte(`schema = "apeval.policy/v1"
[[rule]]
id = "sub-agent-audit"
class = "always"
action = "audit_only"
hook_points = ["tool.before"]
categories = ["sub_agent"]
`), "test.toml")
	if err != nil {
		t.Fatal(err)
	}
	i := 0
	next := func() (*datasets.Case, bool) {
		if i == len(cases) {
			return nil, false
		}
		i++
		return cases[i-1], true
	}
	inScope := map[string]int{}
	if _, err := replay.Run(context.Background(), p, next, []core.Judge{recorded.NewNone()}, replay.Options{}, func(r *replay.Result) error {
		inScope[r.CaseID] = r.RulesInScope
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		n := 0
		if c.Tool.Name == "Task" || c.Tool.Name == "Agent" {
			n = 1
		}
		if inScope[c.ID] != n {
			t.Errorf("%s (%s): %d rules in scope, want %d", c.ID, c.Tool.Name, inScope[c.ID], n)
		}
	}
}

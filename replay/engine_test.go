package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/judge/recorded"
)

// fakeJudge answers with fn and records its requests. It is a test double
// for replay's own logic; the judge wire protocols are tested in the judge backends' packages.
type fakeJudge struct {
	name string
	fn   func(ctx context.Context, req judge.Request) judge.Response
	mu   sync.Mutex
	reqs []judge.Request
}

func (f *fakeJudge) Identity() judge.Identity {
	return judge.Identity{Backend: "fake", Model: f.name, Digest: "d1", PromptVersion: "p1"}
}

func (f *fakeJudge) Judge(ctx context.Context, req judge.Request) judge.Response {
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	f.mu.Unlock()
	return f.fn(ctx, req)
}

// answer returns a judge that gives every asked rule the same result.
func answer(result judge.Result) *fakeJudge {
	return &fakeJudge{name: "const-" + string(result), fn: func(_ context.Context, req judge.Request) judge.Response {
		out := judge.Response{Status: judge.StatusOK, Latency: 10 * time.Millisecond, Attempts: 1}
		for _, r := range req.Input.Rules {
			c := 0.9
			out.Decisions = append(out.Decisions, judge.Decision{RuleID: r.ID, Result: result, Confidence: &c})
		}
		return out
	}}
}

func failing(status judge.Status) *fakeJudge {
	return &fakeJudge{name: "fail-" + string(status), fn: func(context.Context, judge.Request) judge.Response {
		return judge.Response{Status: status, Error: "boom", Latency: 5 * time.Millisecond}
	}}
}

func mustPolicy(t testing.TB, doc string) *Policy {
	t.Helper()
	p, err := ParsePolicy([]byte("schema = \"apeval.policy/v1\"\n"+doc), "test.toml")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// replayAll replays cases in order with one judge and returns the results.
func replayAll(t testing.TB, p *Policy, j judge.Judge, opts Options, cases ...*datasets.Case) []*Result {
	t.Helper()
	var out []*Result
	i := 0
	next := func() (*datasets.Case, bool) {
		if i == len(cases) {
			return nil, false
		}
		i++
		return cases[i-1], true
	}
	_, err := Run(context.Background(), p, next, []judge.Judge{j}, opts, func(r *Result) error {
		out = append(out, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func rowOf(t *testing.T, r *Result, id string) RuleResult {
	t.Helper()
	for _, rr := range r.Rules {
		if rr.RuleID == id {
			return rr
		}
	}
	t.Fatalf("case %s: no row for rule %s in %+v", r.CaseID, id, r.Rules)
	return RuleResult{}
}

func TestSeed002TrajectoryVector(t *testing.T) {
	t.Parallel()
	p := mustPolicy(t, `
[[rule]]
id = "network"
class = "stop"
[rule.boundary]
kind = "network"
review_at = 1
pause_at = 2

[[rule]]
id = "workspace"
class = "stop"
[rule.boundary]
kind = "workspace"
`)
	ws := "/tmp/agent-demo"
	ev := func(id string, c *datasets.Case) *datasets.Case {
		c.ID, c.SessionID, c.Workspace = id, "demo", ws
		return c
	}
	cases := []*datasets.Case{
		ev("e1", call("Bash", "command_execution", "command", "pytest", "cwd", "/tmp/agent-demo/tests")),
		ev("e2", call("Write", "file_change", "file_path", "/tmp/agent-demo/report.json")),
		ev("e3", call("WebFetch", "web_search", "url", "https://example.test/api")),
		ev("e4", call("WebFetch", "web_search", "url", "https://example.test/api")),
	}
	for i, c := range cases {
		c.Seq = int64(i + 1)
	}
	res := replayAll(t, p, failing(judge.StatusError), Options{}, cases...)
	var got []datasets.Action
	for _, r := range res {
		got = append(got, r.GateAction)
	}
	want := []datasets.Action{datasets.ActionAllow, datasets.ActionAllow, datasets.ActionRequestApproval, datasets.ActionStopTask} // ALLOW, ALLOW, REVIEW, PAUSE
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("trajectory vector: got %v, want %v", got, want)
	}
	if r := rowOf(t, res[3], "network"); !r.Fired || r.Action != datasets.ActionStopTask || r.Source != SourceDeterministic || r.Result != "match" {
		t.Errorf("e4 network row = %+v", r)
	}
	if r := rowOf(t, res[1], "workspace"); r.Fired || r.Result != "no_match" {
		t.Errorf("e2 workspace row = %+v", r)
	}
	for _, r := range res {
		if r.JudgeCalled || len(r.Calls) != 0 {
			t.Errorf("%s: a deterministic rule called the judge", r.CaseID)
		}
	}
}

func TestBoundaryApprovalAndWorkspace(t *testing.T) {
	t.Parallel()
	p := mustPolicy(t, `
[[rule]]
id = "network"
class = "stop"
action = "request_approval"
[rule.boundary]
kind = "network"
[[rule]]
id = "workspace"
class = "stop"
[rule.boundary]
kind = "workspace"
`)
	mk := func(id string, approved bool, c *datasets.Case) *datasets.Case {
		c.ID, c.SessionID = id, "s"
		if approved {
			c.Context.ApprovalState = "approved"
		}
		return c
	}
	res := replayAll(t, p, failing(judge.StatusError), Options{},
		mk("n1", true, call("WebFetch", "web_search", "url", "https://a.test")),
		mk("n2", true, bash("curl https://a.test")),
		mk("n3", false, bash("curl https://a.test")),
		mk("w1", false, call("Read", "other", "file_path", "/etc/passwd")),
		mk("w2", true, call("Write", "file_change", "file_path", "/etc/hosts")),
		mk("w3", false, call("Write", "file_change", "file_path", "../x")),
		mk("w4", false, call("Write", "file_change", "file_path", "src/ok.go")),
	)
	want := []datasets.Action{datasets.ActionAllow, datasets.ActionAllow, datasets.ActionRequestApproval, datasets.ActionAllow, datasets.ActionAllow, datasets.ActionStopTask, datasets.ActionAllow}
	for i, r := range res {
		if r.GateAction != want[i] {
			t.Errorf("%s: gate %s, want %s", r.CaseID, r.GateAction, want[i])
		}
	}
}

const failurePolicy = `
max_rules_per_call = 20
[[rule]]
id = "d-baseline-hit"
condition = "c"
class = "dangerous"
action = "deny_current_tool"
[rule.baseline]
command_prefix = ["rm"]
[[rule]]
id = "d-baseline-miss"
condition = "c"
class = "dangerous"
action = "deny_current_tool"
[rule.when]
tool = "Bash"
[rule.baseline]
command_prefix = ["shred"]
[[rule]]
id = "d-when"
condition = "c"
class = "dangerous"
action = "request_approval"
[rule.when]
tool = "Bash"
[[rule]]
id = "d-none"
condition = "c"
class = "dangerous"
action = "deny_current_tool"
[[rule]]
id = "d-stop"
condition = "c"
class = "dangerous"
action = "stop_task"
[rule.when]
tool = "Bash"
[[rule]]
id = "d-inject"
condition = "c"
class = "dangerous"
action = "inject_instruction"
[rule.when]
tool = "Bash"
[[rule]]
id = "a-when"
condition = "c"
class = "approval"
action = "inject_instruction"
[rule.when]
tool = "Bash"
[[rule]]
id = "a-none"
condition = "c"
class = "approval"
action = "request_approval"
[[rule]]
id = "s-when"
condition = "c"
class = "stop"
action = "stop_task"
[rule.when]
tool = "Bash"
[[rule]]
id = "au-when"
condition = "c"
class = "audit"
action = "audit_only"
[rule.when]
tool = "Bash"
[[rule]]
id = "st-when"
condition = "c"
class = "style"
action = "notify_admin"
[rule.when]
tool = "Bash"
`

func TestFailurePolicyPerClass(t *testing.T) {
	t.Parallel()
	p := mustPolicy(t, failurePolicy)
	fired := map[string]datasets.Action{ // rule → action it fires with on failure
		"d-baseline-hit": datasets.ActionDenyCurrentTool,
		"d-when":         datasets.ActionRequestApproval,
		"a-when":         datasets.ActionRequestApproval,
	}
	judges := []*fakeJudge{failing(judge.StatusTimeout), failing(judge.StatusError), failing(judge.StatusInvalid), answer(judge.Unknown)}
	for _, j := range judges {
		t.Run(j.name, func(t *testing.T) {
			c := bash("rm -rf build")
			res := replayAll(t, p, j, Options{}, c)[0]
			if len(res.Rules) != 11 {
				t.Fatalf("rows = %d, want 11", len(res.Rules))
			}
			for _, rr := range res.Rules {
				want, ok := fired[rr.RuleID]
				if rr.Fired != ok || (ok && rr.Action != want) {
					t.Errorf("%s: fired=%v action=%s, want fired=%v action=%s", rr.RuleID, rr.Fired, rr.Action, ok, want)
				}
				if rr.Source != SourceFailure || rr.Result != "unknown" || rr.Call != 0 {
					t.Errorf("%s: source=%s result=%s call=%d", rr.RuleID, rr.Source, rr.Result, rr.Call)
				}
				wantStatus := j.fn(context.Background(), judge.Request{}).Status
				if wantStatus == "ok" {
					wantStatus = "unknown"
				}
				if rr.Status != wantStatus {
					t.Errorf("%s: status %s, want %s", rr.RuleID, rr.Status, wantStatus)
				}
			}
			if res.GateAction != datasets.ActionDenyCurrentTool {
				t.Errorf("gate = %s, want deny_current_tool", res.GateAction)
			}
		})
	}
	t.Run("judge matches all", func(t *testing.T) {
		res := replayAll(t, p, answer(judge.Match), Options{}, bash("rm -rf build"))[0]
		for _, rr := range res.Rules {
			if !rr.Fired || rr.Source != SourceJudge || rr.Result != "match" || rr.Confidence == nil {
				t.Errorf("%s: %+v", rr.RuleID, rr)
			}
		}
		if res.GateAction != datasets.ActionStopTask || res.Status != "ok" || res.RulesJudged != 11 || !res.JudgeCalled {
			t.Errorf("result = %+v", res)
		}
	})
}

func TestActionPriority(t *testing.T) {
	t.Parallel()
	actions := []datasets.Action{datasets.ActionAuditOnly, datasets.ActionNotifyAdmin, datasets.ActionInjectInstruction, datasets.ActionRequestApproval, datasets.ActionDenyCurrentTool, datasets.ActionStopTask}
	var doc strings.Builder
	doc.WriteString("[permissions]\ndefault_action = \"allow\"\n[[permissions.rule]]\ntool = \"*\"\npattern = \"deny*\"\naction = \"deny\"\n[[permissions.rule]]\ntool = \"*\"\npattern = \"ask*\"\naction = \"ask\"\n")
	for _, a := range actions {
		fmt.Fprintf(&doc, "[[rule]]\nid = %q\nclass = \"always\"\naction = %q\n[rule.when]\narg_glob = { %s = \"y\" }\n", a, a, a)
	}
	p := mustPolicy(t, doc.String())
	tests := []struct {
		perm  string
		fire  []datasets.Action
		want  datasets.Action
		wperm string
	}{
		{"", nil, datasets.ActionAllow, "allow"},
		{"", []datasets.Action{datasets.ActionAuditOnly}, datasets.ActionAuditOnly, "allow"},
		{"", []datasets.Action{datasets.ActionNotifyAdmin, datasets.ActionAuditOnly}, datasets.ActionAuditOnly, "allow"},
		{"", []datasets.Action{datasets.ActionAuditOnly, datasets.ActionInjectInstruction}, datasets.ActionInjectInstruction, "allow"},
		{"", []datasets.Action{datasets.ActionInjectInstruction, datasets.ActionRequestApproval}, datasets.ActionRequestApproval, "allow"},
		{"", []datasets.Action{datasets.ActionRequestApproval, datasets.ActionDenyCurrentTool, datasets.ActionAuditOnly}, datasets.ActionDenyCurrentTool, "allow"},
		{"", actions, datasets.ActionStopTask, "allow"},
		{"deny", nil, datasets.ActionDenyCurrentTool, "deny"},
		{"deny", []datasets.Action{datasets.ActionRequestApproval, datasets.ActionInjectInstruction}, datasets.ActionDenyCurrentTool, "deny"},
		{"deny", []datasets.Action{datasets.ActionStopTask}, datasets.ActionStopTask, "deny"},
		{"ask", []datasets.Action{datasets.ActionInjectInstruction}, datasets.ActionRequestApproval, "ask"},
		{"ask", []datasets.Action{datasets.ActionDenyCurrentTool}, datasets.ActionDenyCurrentTool, "ask"},
	}
	for _, tt := range tests {
		args := []any{"command", tt.perm + " x"}
		for _, a := range tt.fire {
			args = append(args, string(a), "y")
		}
		c := call("Bash", "command_execution", args...)
		res := replayAll(t, p, failing(judge.StatusError), Options{}, c)[0]
		if res.GateAction != tt.want || res.Permission != tt.wperm {
			t.Errorf("permission %q, fired %v: gate %s (permission %s), want %s (%s)", tt.perm, tt.fire, res.GateAction, res.Permission, tt.want, tt.wperm)
		}
	}
}

func TestPermissionsLayer(t *testing.T) {
	t.Parallel()
	p := mustPolicy(t, `
[permissions]
default_action = "ask"
[[permissions.rule]]
tool = "bash"
pattern = "rm *"
action = "deny"
[[permissions.rule]]
tool = "BASH"
pattern = "*"
action = "allow"
[[permissions.rule]]
tool = "file_write"
pattern = "*.env"
action = "deny"
[[permissions.rule]]
tool = "*"
pattern = "https://internal.test/*"
action = "allow"
`)
	tests := []struct {
		tool, primary, want string
	}{
		{"Bash", "rm -rf build", "deny"},      // first match wins over the later "*"
		{"bash", "ls -la", "allow"},           // case-insensitive tool
		{"File_Write", "/srv/a/.env", "deny"}, // * spans slashes
		{"file_write", "/srv/a/env.txt", "ask"},
		{"WebFetch", "https://internal.test/x/y", "allow"},
		{"WebFetch", "https://other.test/", "ask"}, // default
	}
	for _, tt := range tests {
		if got := p.Permissions.Decide(tt.tool, tt.primary); got != tt.want {
			t.Errorf("Decide(%s, %q) = %s, want %s", tt.tool, tt.primary, got, tt.want)
		}
	}
	var off *Permissions
	if got := off.Decide("Bash", "rm -rf /"); got != PermissionOff {
		t.Errorf("no table: %s, want off", got)
	}
	res := replayAll(t, mustPolicy(t, ""), failing(judge.StatusError), Options{}, bash("rm -rf /"))[0]
	if res.Permission != "off" || res.GateAction != datasets.ActionAllow || res.RulesInScope != 0 {
		t.Errorf("no table, no rules: %+v", res)
	}
}

func TestMaxFiresAndScope(t *testing.T) {
	t.Parallel()
	p := mustPolicy(t, `
[[rule]]
id = "twice"
class = "always"
action = "inject_instruction"
max_fires = 2
[[rule]]
id = "coding-only"
class = "always"
action = "audit_only"
pieces = ["coding"]
movements = ["implement"]
tools = ["bash"]
categories = ["command_execution"]
hook_points = ["tool.before"]
`)
	mk := func(id, session, piece string) *datasets.Case {
		c := bash("ls")
		c.ID, c.SessionID, c.Piece, c.Movement = id, session, piece, "implement"
		return c
	}
	res := replayAll(t, p, failing(judge.StatusError), Options{},
		mk("1", "a", "coding"), mk("2", "a", "coding"), mk("3", "b", "review"), mk("4", "a", "coding"), mk("5", "b", "coding"))
	wantRows := []string{"twice coding-only", "twice coding-only", "twice", "coding-only", "twice coding-only"}
	for i, r := range res {
		var ids []string
		for _, rr := range r.Rules {
			ids = append(ids, rr.RuleID)
			if !rr.Fired {
				t.Errorf("%s/%s did not fire", r.CaseID, rr.RuleID)
			}
		}
		if strings.Join(ids, " ") != wantRows[i] || r.RulesInScope != len(ids) {
			t.Errorf("case %s in scope: %v, want %s", r.CaseID, ids, wantRows[i])
		}
	}
	c := mk("6", "c", "coding")
	c.HookPoint = "tool.after"
	if r := replayAll(t, p, failing(judge.StatusError), Options{}, c)[0]; len(r.Rules) != 1 || r.Rules[0].RuleID != "twice" {
		t.Errorf("tool.after: rows %+v", r.Rules)
	}
}

func TestApprovedFingerprintSkipsRule(t *testing.T) {
	t.Parallel()
	p := mustPolicy(t, `
[[rule]]
id = "rm"
version = 2
class = "dangerous"
action = "deny_current_tool"
[rule.when]
command_prefix = ["rm"]
[rule.baseline]
command_prefix = ["rm"]
`)
	c := bash("rm -rf build")
	c.ID, c.SessionID, c.Piece, c.Movement = "c1", "task-1", "coding", "implement"
	fp := Fingerprint("task-1", "coding", "implement", "Bash", c.Tool.Arguments, "rm", 2)
	plain := *c
	c.Context.ApprovedFingerprints = []string{"0000", fp}
	res := replayAll(t, p, failing(judge.StatusError), Options{}, c)
	rr := res[0].Rules[0]
	if rr.Source != SourceScope || rr.Fired || rr.Fingerprint.String() != fp || res[0].GateAction != datasets.ActionAllow || rr.BaselineResult != "match" {
		t.Errorf("approved: %+v gate %s", rr, res[0].GateAction)
	}
	plain.ID = "c2"
	res = replayAll(t, p, failing(judge.StatusError), Options{}, &plain)
	if rr := res[0].Rules[0]; rr.Source != SourceDeterministic || !rr.Fired || rr.Fingerprint.String() != fp || res[0].GateAction != datasets.ActionDenyCurrentTool {
		t.Errorf("not approved: %+v", rr)
	}
}

func TestJudgeBatchingAndRows(t *testing.T) {
	t.Parallel()
	var doc strings.Builder
	doc.WriteString("max_rules_per_call = 2\n")
	for i := range 5 {
		fmt.Fprintf(&doc, "[[rule]]\nid = \"j%d\"\ncondition = \"cond %d\"\nclass = \"audit\"\naction = \"audit_only\"\ninstruction = \"SECRET-INSTRUCTION\"\n", i, i)
	}
	doc.WriteString("[[rule]]\nid = \"gated\"\ncondition = \"x\"\nclass = \"audit\"\naction = \"audit_only\"\n[rule.when]\ntool = \"Write\"\n")
	p := mustPolicy(t, doc.String())
	j := answer(judge.Match)
	c := bash("ls")
	conf := 0.5
	c.Recorded = []datasets.Recorded{{Judge: "ollama/x", LatencyMS: 12, Decisions: []datasets.RecordedDecision{{RuleID: "j0", Result: "match", Confidence: &conf}}}}
	res := replayAll(t, p, j, Options{}, c)[0]
	if len(res.Calls) != 3 || res.Calls[0].Rules != 2 || res.Calls[2].Rules != 1 {
		t.Fatalf("calls = %+v", res.Calls)
	}
	for i, rr := range res.Rules[:5] {
		if rr.Call != i/2 || rr.Source != SourceJudge {
			t.Errorf("%s: call %d source %s", rr.RuleID, rr.Call, rr.Source)
		}
	}
	if g := res.Rules[5]; g.Source != SourceDeterministic || g.Result != "no_match" || g.Call != -1 || g.Fired {
		t.Errorf("gated rule = %+v", g)
	}
	if res.RulesJudged != 5 || res.LatencyMS == nil || *res.LatencyMS != 30 || res.CacheHit || res.Judge != "fake/const-match@d1+p1" {
		t.Errorf("result = %+v", res)
	}
	if len(j.reqs) != 3 {
		t.Fatalf("requests = %d", len(j.reqs))
	}
	req := j.reqs[0]
	if len(req.Recorded) != 1 || req.Recorded[0].Judge != "ollama/x" || req.Recorded[0].Status != judge.StatusOK ||
		req.Recorded[0].Decisions[0].RuleID != "j0" || *req.Recorded[0].Decisions[0].Confidence != 0.5 {
		t.Errorf("recorded = %+v", req.Recorded)
	}
	raw, _ := json.Marshal(req.Input)
	if strings.Contains(string(raw), "SECRET-INSTRUCTION") || strings.Contains(string(raw), "audit_only") {
		t.Errorf("judge input carries an action or instruction: %s", raw)
	}
}

func TestMissingAndCachedDecisions(t *testing.T) {
	t.Parallel()
	p := mustPolicy(t, `
[[rule]]
id = "a"
condition = "x"
class = "approval"
action = "request_approval"
[rule.when]
tool = "Bash"
[[rule]]
id = "b"
condition = "y"
class = "dangerous"
action = "deny_current_tool"
`)
	j := &fakeJudge{name: "partial", fn: func(_ context.Context, req judge.Request) judge.Response {
		return judge.Response{Status: judge.StatusOK, Cached: true, Latency: time.Millisecond,
			Decisions: []judge.Decision{{RuleID: "b", Result: judge.NoMatch}}}
	}}
	res := replayAll(t, p, j, Options{}, bash("ls"))[0]
	a, b := res.Rules[0], res.Rules[1]
	if a.Status != "missing" || a.Fired || a.Source != SourceCache {
		t.Errorf("missing rule = %+v", a)
	}
	if b.Status != "ok" || b.Result != "no_match" || b.Source != SourceCache {
		t.Errorf("cached rule = %+v", b)
	}
	// The hit's latency is the one stored with its answer.
	if !res.CacheHit || res.LatencyMS == nil || *res.LatencyMS != 1 || res.GateAction != datasets.ActionAllow {
		t.Errorf("result = %+v", res)
	}
}

func TestPerCallTimeout(t *testing.T) {
	t.Parallel()
	p := mustPolicy(t, "[[rule]]\nid = \"a\"\ncondition = \"x\"\nclass = \"dangerous\"\naction = \"deny_current_tool\"\n[rule.when]\ntool = \"Bash\"\n")
	j := &fakeJudge{name: "slow", fn: func(ctx context.Context, req judge.Request) judge.Response {
		start := time.Now()
		if _, ok := ctx.Deadline(); !ok {
			return judge.Response{Status: judge.StatusError, Error: "no deadline"}
		}
		<-ctx.Done()
		return judge.Response{Status: judge.StatusTimeout, Error: ctx.Err().Error(), Latency: time.Since(start)}
	}}
	// 200 ms, not less: on a loaded machine the judge goroutine may start
	// tens of milliseconds after the deadline was set.
	res := replayAll(t, p, j, Options{Timeout: 200 * time.Millisecond}, bash("ls"))[0]
	if res.Status != "timeout" || res.Rules[0].Status != "timeout" || !res.Rules[0].Fired || res.GateAction != datasets.ActionDenyCurrentTool {
		t.Errorf("timeout result = %+v rows %+v", res, res.Rules)
	}
	if res.Calls[0].LatencyMS < 100 {
		t.Errorf("latency %v ms, want about the timeout", res.Calls[0].LatencyMS)
	}
}

func TestPreviousRuleFires(t *testing.T) {
	t.Parallel()
	p := mustPolicy(t, "[[rule]]\nid = \"z\"\ncondition = \"x\"\nclass = \"audit\"\naction = \"audit_only\"\n[[rule]]\nid = \"a\"\ncondition = \"y\"\nclass = \"audit\"\naction = \"audit_only\"\n")
	j := answer(judge.Match)
	c1, c2 := bash("ls"), bash("ls")
	c1.ID, c2.ID, c2.Seq = "1", "2", 1
	replayAll(t, p, j, Options{}, c1, c2)
	got := j.reqs[1].Input.Context.PreviousRuleFires
	if len(got) != 2 || got[0] != (judge.RuleFires{RuleID: "a", Count: 1}) || got[1] != (judge.RuleFires{RuleID: "z", Count: 1}) {
		t.Errorf("previous_rule_fires = %+v", got)
	}
	if first := j.reqs[0].Input.Context.PreviousRuleFires; first[0].Count != 0 {
		t.Errorf("first call fires = %+v", first)
	}
}

// TestRecordedJudge replays through the real recorded backend: the case's
// recordings reach it, and a judge with no recording for a case makes no
// call and leaves the rules missing.
func TestRecordedJudge(t *testing.T) {
	t.Parallel()
	p := mustPolicy(t, `
[[rule]]
id = "del"
condition = "deletes"
class = "dangerous"
action = "deny_current_tool"
[[rule]]
id = "new"
condition = "added after the recording"
class = "audit"
action = "audit_only"
`)
	conf := 0.8
	c := bash("rm -rf build")
	c.Recorded = []datasets.Recorded{
		{Judge: "ollama/a", LatencyMS: 412.5, Decisions: []datasets.RecordedDecision{{RuleID: "del", Result: "match", Confidence: &conf}}},
		{Judge: "ollama/b", LatencyMS: 90, Status: "timeout", Error: "deadline"},
	}
	judges := []judge.Judge{recorded.New("ollama/a"), recorded.New("ollama/b"), recorded.New("ollama/c"), recorded.NewNone()}
	var res []*Result
	_, err := Run(context.Background(), p, sliceNext([]*datasets.Case{c}), judges, Options{}, func(r *Result) error {
		res = append(res, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	a, b, cj, none := res[0], res[1], res[2], res[3]
	if d := a.Rules[0]; !d.Fired || d.Result != "match" || *d.Confidence != 0.8 || d.Source != SourceJudge {
		t.Errorf("a/del = %+v", d)
	}
	if n := a.Rules[1]; n.Status != "missing" || n.Fired {
		t.Errorf("a/new = %+v", n)
	}
	if len(a.Calls) != 1 || a.Calls[0].LatencyMS != 412.5 || *a.LatencyMS != 412.5 || a.GateAction != datasets.ActionDenyCurrentTool {
		t.Errorf("a = %+v calls %+v", a, a.Calls)
	}
	if d := b.Rules[0]; d.Status != "timeout" || d.Source != SourceFailure || d.Fired || b.Status != "timeout" || b.Calls[0].LatencyMS != 90 {
		t.Errorf("b/del = %+v (dangerous without baseline or when does not fire)", d)
	}
	for _, rr := range cj.Rules {
		if rr.Status != "missing" || rr.Fired || rr.Call != -1 {
			t.Errorf("c/%s = %+v", rr.RuleID, rr)
		}
	}
	if len(cj.Calls) != 0 || cj.LatencyMS != nil || cj.Status != "" || !cj.JudgeCalled {
		t.Errorf("c = %+v", cj)
	}
	if none.Status != "error" || none.Rules[0].Source != SourceFailure || none.Judge != "none" {
		t.Errorf("none = %+v", none)
	}
}

package replay

import (
	"testing"

	"github.com/apeval/apeval/judge"
)

// Only the rows a human approval can refer to carry a fingerprint: a rule
// that fired (by its matcher, or by the failure policy after a failed judge
// call) and a rule skipped because the call's approved_fingerprints held
// it. Every other row has none, whether or not the call carries approvals.
func TestFingerprintOnlyOnFiredAndApprovedRows(t *testing.T) {
	t.Parallel()
	p := mustPolicy(t, `
[[rule]]
id = "rm"
version = 3
class = "dangerous"
action = "deny_current_tool"
[rule.when]
command_prefix = ["rm"]

[[rule]]
id = "git"
class = "audit"
action = "audit_only"
[rule.when]
command_prefix = ["git"]

[[rule]]
id = "judged-dangerous"
class = "dangerous"
action = "deny_current_tool"
condition = "deletes something that matters"
[rule.when]
command_prefix = ["rm"]

[[rule]]
id = "judged-style"
class = "style"
action = "inject_instruction"
condition = "uses a flag it should not"

[[rule]]
id = "approved"
class = "audit"
action = "audit_only"
[rule.when]
command_prefix = ["rm"]
`)
	version := map[string]int{"rm": 3, "git": 1, "judged-dangerous": 1, "judged-style": 1, "approved": 1}
	mk := func(id string, approvals ...string) (c2 *Result, fp func(rule string) string) {
		c := bash("rm -rf build")
		c.ID, c.SessionID, c.Piece, c.Movement = id, "s-"+id, "coding", "cleanup"
		fp = func(rule string) string {
			return Fingerprint(c.SessionID, c.Piece, c.Movement, c.Tool.Name, c.Tool.Arguments, rule, version[rule])
		}
		for _, a := range approvals {
			c.Context.ApprovedFingerprints = append(c.Context.ApprovedFingerprints, fp(a))
		}
		if len(approvals) > 0 {
			// An approval of something else is not this call's.
			c.Context.ApprovedFingerprints = append(c.Context.ApprovedFingerprints, Fingerprint("other", "", "", "Bash", nil, "git", 1))
		}
		return replayAll(t, p, failing(judge.StatusError), Options{}, c)[0], fp
	}
	for _, tc := range []struct {
		name      string
		approvals []string
		// rule → whether its row carries the fingerprint, and its source
		want map[string]bool
	}{
		{"no approvals", nil,
			map[string]bool{"rm": true, "git": false, "judged-dangerous": true, "judged-style": false, "approved": true}},
		{"approved rule skipped", []string{"approved"},
			map[string]bool{"rm": true, "git": false, "judged-dangerous": true, "judged-style": false, "approved": true}},
	} {
		res, fp := mk(tc.name, tc.approvals...)
		if len(res.Rules) != len(tc.want) {
			t.Fatalf("%s: %d rows, want %d", tc.name, len(res.Rules), len(tc.want))
		}
		for _, rr := range res.Rules {
			want := ""
			if tc.want[rr.RuleID] {
				want = fp(rr.RuleID)
			}
			if rr.Fingerprint.String() != want {
				t.Errorf("%s: rule %s (fired %v, source %s): fingerprint %q, want %q", tc.name, rr.RuleID, rr.Fired, rr.Source, rr.Fingerprint, want)
			}
			if want != "" && !rr.Fired && rr.Source != SourceScope {
				t.Errorf("%s: rule %s has a fingerprint but neither fired nor was approved", tc.name, rr.RuleID)
			}
		}
		// The approved rule was skipped (scope, not fired) exactly when approved.
		for _, rr := range res.Rules {
			if rr.RuleID == "approved" && (rr.Source == SourceScope) != (len(tc.approvals) > 0) {
				t.Errorf("%s: approved rule source %s fired %v", tc.name, rr.Source, rr.Fired)
			}
		}
	}
}

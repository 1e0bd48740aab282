package datasets

import (
	"slices"
	"testing"
)

func TestParseVocabularies(t *testing.T) {
	t.Parallel()
	for _, l := range []Label{LabelMatch, LabelNoMatch} {
		if got, err := ParseLabel(string(l)); err != nil || got != l {
			t.Errorf("ParseLabel(%q) = %q, %v", l, got, err)
		}
	}
	for _, bad := range []string{"", "skip", "Match", "unknown"} {
		if _, err := ParseLabel(bad); err == nil {
			t.Errorf("ParseLabel(%q): no error", bad)
		}
	}
	for _, a := range Actions {
		if got, err := ParseAction(string(a)); err != nil || got != a {
			t.Errorf("ParseAction(%q) = %q, %v", a, got, err)
		}
	}
	if _, err := ParseAction("deny"); err == nil || err.Error() != `unknown action "deny" (want one of allow, inject_instruction, deny_current_tool, request_approval, stop_task, audit_only, notify_admin)` {
		t.Errorf("ParseAction(deny): %v", err)
	}
	if slices.Contains(RuleActions, ActionAllow) || len(Actions) != len(RuleActions)+1 {
		t.Errorf("Actions %v must be allow plus RuleActions %v", Actions, RuleActions)
	}
	for _, o := range ApprovalOutcomes {
		if got, err := ParseApprovalOutcome(string(o)); err != nil || got != o {
			t.Errorf("ParseApprovalOutcome(%q) = %q, %v", o, got, err)
		}
		if o.Rejected() != (o != ApprovalApproved) {
			t.Errorf("%s.Rejected() = %v", o, o.Rejected())
		}
	}
	if _, err := ParseApprovalOutcome("pending"); err == nil {
		t.Error("ParseApprovalOutcome(pending): no error")
	}
}

package replay

import (
	"slices"
	"testing"

	"github.com/apeval/apeval/datasets"
)

// The policy's action constants are the rule actions the case format lists
// (datasets owns the list; the policy is validated against it).
func TestActionsAreTheCaseFormatsList(t *testing.T) {
	t.Parallel()
	consts := []datasets.Action{datasets.ActionInjectInstruction, datasets.ActionDenyCurrentTool, datasets.ActionRequestApproval,
		datasets.ActionStopTask, datasets.ActionAuditOnly, datasets.ActionNotifyAdmin}
	if !slices.Equal(consts, datasets.RuleActions) {
		t.Errorf("replay's action constants %v differ from datasets.RuleActions %v", consts, datasets.RuleActions)
	}
	if datasets.Actions[0] != datasets.ActionAllow || !slices.Equal(datasets.Actions[1:], datasets.RuleActions) {
		t.Errorf("datasets.Actions = %v, want allow then the rule actions", datasets.Actions)
	}
}

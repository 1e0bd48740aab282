package datasets

import (
	"fmt"
	"slices"
	"strings"
)

// Label is a person's label of a (case, rule) pair (see docs/cases.md):
// whether the rule's condition holds. An unlabeled pair has the label "".
type Label string

// Label values.
const (
	LabelMatch   Label = "match"
	LabelNoMatch Label = "no_match"
)

// Valid reports whether l is a label value ("" is not).
func (l Label) Valid() bool { return l == LabelMatch || l == LabelNoMatch }

// ParseLabel returns s as a Label, or an error naming the values.
func ParseLabel(s string) (Label, error) {
	if l := Label(s); l.Valid() {
		return l, nil
	}
	return "", fmt.Errorf("unknown label %q (want match or no_match)", s)
}

// Action is a gate decision (see docs/replay.md): what a fired rule does,
// or ActionAllow when nothing fired. A case's expected_action is one too.
type Action string

// Actions a policy rule may take, in the gate's priority order, highest
// first, and ActionAllow.
const (
	ActionStopTask          Action = "stop_task"
	ActionDenyCurrentTool   Action = "deny_current_tool"
	ActionRequestApproval   Action = "request_approval"
	ActionInjectInstruction Action = "inject_instruction"
	ActionAuditOnly         Action = "audit_only"
	ActionNotifyAdmin       Action = "notify_admin"
	ActionAllow             Action = "allow"
)

var (
	// RuleActions are the actions a policy rule may take (docs/policy.md),
	// in the order the docs list them.
	RuleActions = []Action{ActionInjectInstruction, ActionDenyCurrentTool, ActionRequestApproval, ActionStopTask, ActionAuditOnly, ActionNotifyAdmin}
	// Actions are the gate decisions a case may expect: allow plus the rule
	// actions.
	Actions = append([]Action{ActionAllow}, RuleActions...)
)

// ParseAction returns s as one of Actions, or an error naming them.
func ParseAction(s string) (Action, error) {
	if a := Action(s); slices.Contains(Actions, a) {
		return a, nil
	}
	return "", fmt.Errorf("unknown action %q (want one of %s)", s, joinValues(Actions))
}

// ApprovalOutcome is what a human did when approval was asked (a case's
// approval_outcome, docs/cases.md); "" when none was asked or recorded.
type ApprovalOutcome string

// Approval outcomes.
const (
	ApprovalApproved ApprovalOutcome = "approved"
	ApprovalDenied   ApprovalOutcome = "denied"
	ApprovalIgnored  ApprovalOutcome = "ignored"
)

// ApprovalOutcomes are the approval outcomes, in the order docs/cases.md lists them.
var ApprovalOutcomes = []ApprovalOutcome{ApprovalApproved, ApprovalDenied, ApprovalIgnored}

// Rejected reports whether the human did not approve (denied or ignored).
func (o ApprovalOutcome) Rejected() bool { return o == ApprovalDenied || o == ApprovalIgnored }

// ParseApprovalOutcome returns s as one of ApprovalOutcomes, or an error naming them.
func ParseApprovalOutcome(s string) (ApprovalOutcome, error) {
	if o := ApprovalOutcome(s); slices.Contains(ApprovalOutcomes, o) {
		return o, nil
	}
	return "", fmt.Errorf("unknown approval outcome %q (want one of %s)", s, joinValues(ApprovalOutcomes))
}

// joinValues is the values separated by ", ", as the case errors list them.
func joinValues[S ~string](vs []S) string {
	var b strings.Builder
	for i, v := range vs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(string(v))
	}
	return b.String()
}

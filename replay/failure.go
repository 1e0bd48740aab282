package replay

import (
	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/judge/core"
)

// OnFailure is the failure policy (seed 000 §6.4, docs/replay.md) for a
// rule whose judge call failed or answered unknown: whether the rule fires
// anyway and with which action. stop_task, audit_only, inject_instruction
// and notify_admin never fire on a failure, nor do style, audit, stop and
// always rules; a dangerous rule falls back to its baseline (baseline is
// its result on the case), else its `when` (which held, or the judge would
// not have been asked); an approval rule with a `when` asks for approval.
// Replay and `apeval simulate` both decide failures here.
func (r *Rule) OnFailure(baseline core.Result) (fired bool, action datasets.Action) {
	switch r.Class {
	case ClassApproval:
		if r.When != nil {
			return true, datasets.ActionRequestApproval
		}
	case ClassDangerous:
		if r.Action != datasets.ActionDenyCurrentTool && r.Action != datasets.ActionRequestApproval {
			return false, ""
		}
		switch {
		case r.Baseline != nil:
			return baseline == core.Match, r.Action
		case r.When != nil:
			return true, r.Action
		}
	}
	return false, ""
}

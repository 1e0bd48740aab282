package core

import (
	"context"
	"time"
)

// Recorded replays the decisions captured in production shadow mode for one
// recorded judge name (`recorded:NAME`, see docs/judges.md).
type Recorded struct {
	name string
}

// NewRecorded returns the judge replaying the recordings whose Judge is name.
func NewRecorded(name string) Judge { return &Recorded{name: name} }

// Identity is recorded/NAME; a recording carries no digest or prompt version
// beyond what NAME itself says.
func (r *Recorded) Identity() Identity { return Identity{Backend: "recorded", Model: r.name} }

// Judge answers from req.Recorded. The entries named r.name are merged: the
// first one holding a decision for an asked rule (else the first one) gives
// the call's status, error and latency (its recorded latency_ms), and the
// others fill in decisions for asked rules it lacks. Decisions for rules not
// asked are dropped. When the recorded call succeeded, an asked rule without
// a decision is listed in Response.Missing (the policy changed after the
// recording); a failed recorded call (invalid, timeout, error) fails every
// asked rule, so nothing is missing. With no entry for r.name at all, every
// asked rule is missing and the status is StatusMissing.
func (r *Recorded) Judge(_ context.Context, req Request) Response {
	asked := AskedIDs(req.Input)
	var primary *Recording
	for i := range req.Recorded {
		rec := &req.Recorded[i]
		if rec.Judge != r.name {
			continue
		}
		if primary == nil {
			primary = rec
		}
		if hasAny(rec.Decisions, asked) {
			primary = rec
			break
		}
	}
	if primary == nil {
		return Response{
			Status:  StatusMissing,
			Error:   "no recording for judge " + r.name,
			Missing: asked,
		}
	}
	status := primary.Status
	if status == "" {
		status = StatusOK
	}
	resp := Response{
		Status:   status,
		Error:    primary.Error,
		Latency:  time.Duration(primary.LatencyMS * float64(time.Millisecond)),
		Attempts: 1,
	}
	if status.Failed() {
		// A recording carries the production call's message, not a cause.
		resp.Cause = CauseFromText(status, primary.Error)
	}
	resp.Server.PromptTokens, resp.Server.CompletionTokens = primary.PromptTokens, primary.CompletionTokens
	byID := make(map[string]Decision, len(asked))
	collect := func(rec *Recording) {
		for _, d := range rec.Decisions {
			if _, seen := byID[d.RuleID]; !seen {
				byID[d.RuleID] = d
			}
		}
	}
	collect(primary)
	for i := range req.Recorded {
		if rec := &req.Recorded[i]; rec.Judge == r.name && rec != primary {
			collect(rec)
		}
	}
	for _, id := range asked {
		if d, ok := byID[id]; ok {
			resp.Decisions = append(resp.Decisions, d)
		} else if !status.Failed() {
			resp.Missing = append(resp.Missing, id)
		}
	}
	if status.Failed() {
		resp.Decisions = nil
	}
	return resp
}

// None is the judge of `--judge none`: every call fails with status error, so
// a run shows the gate's deterministic fallback when the judge is down.
type None struct{}

// NewNone returns the `none` judge.
func NewNone() Judge { return None{} }

// Identity is the bare backend name "none".
func (None) Identity() Identity { return Identity{Backend: "none"} }

// Judge fails immediately without latency or attempts.
func (None) Judge(context.Context, Request) Response {
	return Response{Status: StatusError, Cause: CauseNoJudge, Error: "no judge configured (--judge none)"}
}

// AskedIDs lists the rule IDs of an input in order, without duplicates.
func AskedIDs(in Input) []string {
	ids := make([]string, 0, len(in.Rules))
	seen := make(map[string]bool, len(in.Rules))
	for _, r := range in.Rules {
		if !seen[r.ID] {
			seen[r.ID] = true
			ids = append(ids, r.ID)
		}
	}
	return ids
}

func hasAny(ds []Decision, ids []string) bool {
	for _, d := range ds {
		for _, id := range ids {
			if d.RuleID == id {
				return true
			}
		}
	}
	return false
}

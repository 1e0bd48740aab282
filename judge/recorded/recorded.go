// Package recorded holds the two judges that call no model: recorded
// (recorded:NAME) replays the decisions captured in production shadow mode
// and stored in the dataset, and none (--judge none) fails every call, so a
// run shows the gate's deterministic fallback. Like every backend they
// register themselves (judge.Register, in init) as not live: never cached,
// budgeted or retried; judge/all imports the package, and so does any code
// that makes one of them (New, NewNone).
//
// Not a stable Go API: apeval is a command, and this package serves it.
//
// Where to look:
//
//	recorded.go  Judge (recorded:NAME) and None
package recorded

import (
	"context"
	"time"

	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/judge/core"
)

func init() {
	judge.Register(judge.Backend{Name: "recorded", Arg: "NAME", Order: 40, Form: "recorded[:NAME]",
		Help: "decisions recorded in the dataset (bare: one judge per name)",
		Open: func(_ context.Context, arg string, _ *judge.Prompt, _ judge.Config) (judge.Judge, error) {
			return New(arg), nil
		}})
	judge.Register(judge.Backend{Name: "none", Order: 50,
		Help: "no judge: every judge-needing rule fails with status error",
		Open: func(context.Context, string, *judge.Prompt, judge.Config) (judge.Judge, error) { return NewNone(), nil }})
}

// Judge replays the decisions captured in production shadow mode for one
// recorded judge name (`recorded:NAME`, see docs/judges.md).
type Judge struct {
	name string
}

// New returns the judge replaying the recordings whose Judge is name.
func New(name string) core.Judge { return &Judge{name: name} }

// core.Identity is recorded/NAME; a recording carries no digest or prompt version
// beyond what NAME itself says.
func (r *Judge) Identity() core.Identity { return core.Identity{Backend: "recorded", Model: r.name} }

// Judge answers from req.Recorded. The entries named r.name are merged: the
// first one holding a decision for an asked rule (else the first one) gives
// the call's status, error and latency (its recorded latency_ms), and the
// others fill in decisions for asked rules it lacks. Decisions for rules not
// asked are dropped. When the recorded call succeeded, an asked rule without
// a decision is listed in core.Response.Missing (the policy changed after the
// recording); a failed recorded call (invalid, timeout, error) fails every
// asked rule, so nothing is missing. With no entry for r.name at all, every
// asked rule is missing and the status is core.StatusMissing.
func (r *Judge) Judge(_ context.Context, req core.Request) core.Response {
	asked := core.AskedIDs(req.Input)
	var primary *core.Recording
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
		return core.Response{
			Status:  core.StatusMissing,
			Error:   "no recording for judge " + r.name,
			Missing: asked,
		}
	}
	status := primary.Status
	if status == "" {
		status = core.StatusOK
	}
	resp := core.Response{
		Status:   status,
		Error:    primary.Error,
		Latency:  time.Duration(primary.LatencyMS * float64(time.Millisecond)),
		Attempts: 1,
	}
	if status.Failed() {
		// A recording carries the production call's message, not a cause.
		resp.Cause = core.CauseFromText(status, primary.Error)
	}
	resp.Server.PromptTokens, resp.Server.CompletionTokens = primary.PromptTokens, primary.CompletionTokens
	byID := make(map[string]core.Decision, len(asked))
	collect := func(rec *core.Recording) {
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
func NewNone() core.Judge { return None{} }

// core.Identity is the bare backend name "none".
func (None) Identity() core.Identity { return core.Identity{Backend: "none"} }

// Judge fails immediately without latency or attempts.
func (None) Judge(context.Context, core.Request) core.Response {
	return core.Response{Status: core.StatusError, Cause: core.CauseNoJudge, Error: "no judge configured (--judge none)"}
}

func hasAny(ds []core.Decision, ids []string) bool {
	for _, d := range ds {
		for _, id := range ids {
			if d.RuleID == id {
				return true
			}
		}
	}
	return false
}

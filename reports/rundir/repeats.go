package rundir

import (
	"encoding/json"
	"fmt"

	"github.com/apeval/apeval/judge/core"
	"github.com/apeval/apeval/replay"
)

// repeatJSON is one vote in decisions.parquet's repeats column, with the
// call it came from: a rule row carries its first call in the call_*
// columns, and every repeat's call here, so each call of a repeated rule
// survives a round trip through the file.
type repeatJSON struct {
	Result     string   `json:"result,omitempty"` // match|no_match|unknown; absent when the call failed
	Status     string   `json:"status"`           // ok|unknown|invalid|timeout|error
	Confidence *float64 `json:"confidence,omitempty"`
	Pos        int      `json:"pos"` // 0-based position among the call's rules
	Of         int      `json:"of"`  // the call's rules
	Call       int      `json:"call"`
	// The call: as the call_* columns.
	CallStatus       string   `json:"call_status"`
	CallError        string   `json:"call_error,omitempty"`
	CallCause        string   `json:"call_cause,omitempty"`
	LatencyMS        float64  `json:"latency_ms"`
	Cached           bool     `json:"cached,omitempty"`
	Attempts         int      `json:"attempts,omitempty"`
	PromptTokens     *int64   `json:"prompt_tokens,omitempty"`
	CompletionTokens *int64   `json:"completion_tokens,omitempty"`
	ServerTotalMS    *float64 `json:"server_total_ms,omitempty"`
}

// RepeatsJSON renders a rule's repeats for the repeats column.
func RepeatsJSON(r *replay.Result, rr *replay.RuleResult) string {
	out := make([]repeatJSON, len(rr.Repeats))
	for i, v := range rr.Repeats {
		c := &r.Calls[v.Call]
		out[i] = repeatJSON{Result: string(v.Result), Status: string(v.Status), Confidence: v.Confidence,
			Pos: v.Pos, Of: v.Of, Call: v.Call,
			CallStatus: string(c.Status), CallError: c.Error, CallCause: string(c.Cause), LatencyMS: c.LatencyMS, Cached: c.Cached,
			Attempts: c.Attempts, PromptTokens: c.PromptTokens, CompletionTokens: c.CompletionTokens,
			ServerTotalMS: c.ServerTotalMS}
	}
	b, _ := json.Marshal(out) // plain values: cannot fail
	return string(b)
}

// parseRepeats reads a repeats column value back into the rule's votes
// and the calls they came from.
func parseRepeats(s string) ([]replay.RepeatVote, []replay.Call, error) {
	var in []repeatJSON
	if err := json.Unmarshal([]byte(s), &in); err != nil {
		return nil, nil, fmt.Errorf("repeats: %w", err)
	}
	votes := make([]replay.RepeatVote, len(in))
	calls := make([]replay.Call, len(in))
	for i, v := range in {
		if v.Call < 0 {
			return nil, nil, fmt.Errorf("repeats: call %d", v.Call)
		}
		votes[i] = replay.RepeatVote{Result: core.Result(v.Result), Status: core.Status(v.Status),
			Confidence: v.Confidence, Call: v.Call, Pos: v.Pos, Of: v.Of}
		calls[i] = replay.Call{Status: core.Status(v.CallStatus), Error: v.CallError, Cause: core.Cause(v.CallCause), LatencyMS: v.LatencyMS,
			Cached: v.Cached, Attempts: v.Attempts, PromptTokens: v.PromptTokens, CompletionTokens: v.CompletionTokens,
			ServerTotalMS: v.ServerTotalMS, Rules: v.Of}
	}
	return votes, calls, nil
}

// Package core holds what every stage shares about judges: the judge
// input and output, a call's request, response and typed failure cause,
// the identity and the Judge interface. It imports no backend: replay, metrics and
// reports depend on it, never on a backend's client (ollama, openai,
// exec, anthropic, the cache). Package judge re-exports every name, so
// backends and the command use judge.X. Not a stable Go API: apeval is a
// command, its packages serve it.
//
// Where to look:
//
//	core.go      input/output, Request, Response, Identity, Judge
//	cause.go     Cause: why a call failed; the setup-class sentences
//	asked.go     AskedIDs: an input's rule IDs, once each
//	reports.go   CheckReport, BudgetReport
//	money.go     USD: amounts of money as reports print them
package core

import (
	"context"
	"strings"
	"time"
)

// SchemaVersion is the judge I/O schema version (see docs/judges.md).
const SchemaVersion = 1

// Input is the judge input (docs/replay.md, What a judge sees), exactly as sent to a model.
type Input struct {
	Version int       `json:"version"`
	Rules   []Rule    `json:"rules"`
	Current Current   `json:"current"`
	Context InContext `json:"context"`
}

// Rule is one natural-language condition to decide. Actions and
// instruction texts are never part of it.
type Rule struct {
	ID        string `json:"id"`
	Condition string `json:"condition"`
}

// Current describes the tool call being judged.
type Current struct {
	Piece     string `json:"piece"`
	Movement  string `json:"movement"`
	HookPoint string `json:"hook_point"`
	Tool      Tool   `json:"tool"`
}

// Tool is the masked summary of the tool call.
type Tool struct {
	Name             string         `json:"name"`
	Category         string         `json:"category"`
	ArgumentsSummary string         `json:"arguments_summary"`
	Arguments        map[string]any `json:"arguments"`
}

// InContext is the limited conversation context a judge may see.
type InContext struct {
	LatestUserMessage string      `json:"latest_user_message"`
	RecentMessages    []Message   `json:"recent_messages"` // at most 4
	PreviousRuleFires []RuleFires `json:"previous_rule_fires"`
	ApprovalState     string      `json:"approval_state"`
}

// Message is one masked conversation message.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// RuleFires counts how often a rule fired earlier in the session.
type RuleFires struct {
	RuleID string `json:"rule_id"`
	Count  int    `json:"count"`
}

// Output is the judge output (see docs/judges.md).
type Output struct {
	Version   int        `json:"version"`
	Decisions []Decision `json:"decisions"`
}

// Result is a rule decision's value.
type Result string

const (
	Match   Result = "match"
	NoMatch Result = "no_match"
	Unknown Result = "unknown"
)

// Decision is one rule's decision.
type Decision struct {
	RuleID     string   `json:"rule_id"`
	Result     Result   `json:"result"`
	Confidence *float64 `json:"confidence,omitempty"`
}

// Status is the outcome of one judge call, or of one rule inside it.
type Status string

const (
	StatusOK      Status = "ok"
	StatusUnknown Status = "unknown" // rule-level: the judge answered unknown
	StatusInvalid Status = "invalid" // schema violation, non-JSON, wrong version, bad rule IDs
	StatusTimeout Status = "timeout" // deadline exceeded
	StatusError   Status = "error"   // transport error, HTTP error, no judge
	// StatusMissing marks a rule the policy asks about that a recording lacks;
	// it is left out of that judge's rates (see docs/statistics.md).
	StatusMissing Status = "missing"
)

// Failed reports whether the status is a call failure (invalid, timeout, error).
func (s Status) Failed() bool {
	return s == StatusInvalid || s == StatusTimeout || s == StatusError
}

// Recording is a judge call captured in production, handed to the recorded
// backend with the request. It is the judge package's own type, filled by replay.
type Recording struct {
	Judge     string
	LatencyMS float64
	Status    Status
	Error     string
	Decisions []Decision
	// Token usage recorded with the call, 0 when not recorded.
	PromptTokens, CompletionTokens int
}

// Request is one judge call: the rules of one case that need the judge.
type Request struct {
	Input Input
	// Recorded holds the case's recorded calls; only the recorded backend reads it.
	Recorded []Recording
	// Repeat is the 0-based repeat of this call (--repeat N): the cache
	// keeps one answer per repeat, so N repeats are N real calls once and
	// N cache hits after.
	Repeat int
}

// ServerTimings are what a backend's server reports about a call (Ollama
// durations, OpenAI usage). Zero values mean "not reported".
type ServerTimings struct {
	Total            time.Duration
	Load             time.Duration
	PromptEval       time.Duration
	Eval             time.Duration
	PromptTokens     int
	CompletionTokens int
}

// Response is the outcome of one call. Failure is data: Status and Error are
// set and Decisions may be empty; a backend never panics or returns a Go error.
type Response struct {
	Decisions []Decision
	Status    Status
	Error     string
	// Cause is why the call failed, typed by the backend where it failed;
	// "" for a call that did not (and for an untyped failure: CauseOf).
	Cause Cause
	// Latency is from request start to full response, excluding any wait for a
	// concurrency slot; a timeout counts at its timeout.
	Latency  time.Duration
	Attempts int
	Cached   bool
	Server   ServerTimings
	// Missing lists asked rules a recording lacks (recorded backend only):
	// replay marks them StatusMissing and leaves them out of the judge's rates.
	Missing []string

	// NoCache keeps an answer out of the cache although its status would
	// be cached (a body over the size cap: not the model's whole answer).
	NoCache bool `json:"-"`
	// RetryAfter is the server's Retry-After on a 429/503, for the retry loop.
	RetryAfter time.Duration `json:"-"`
}

// Identity names a judge in every report: backend/model@digest+prompt_version.
type Identity struct {
	Backend       string
	Model         string
	Digest        string
	PromptVersion string
}

// String renders the identity as backend/model[@digest][+prompt_version].
func (id Identity) String() string {
	var b strings.Builder
	b.WriteString(id.Backend)
	if id.Model != "" {
		b.WriteByte('/')
		b.WriteString(id.Model)
	}
	if id.Digest != "" {
		b.WriteByte('@')
		b.WriteString(id.Digest)
	}
	if id.PromptVersion != "" {
		b.WriteByte('+')
		b.WriteString(id.PromptVersion)
	}
	return b.String()
}

// Judge decides natural-language rules for one tool call. Implementations
// must be safe for concurrent use; ctx cancellation ends a call early with
// status timeout (deadline) or error (cancelled).
type Judge interface {
	Identity() Identity
	Judge(ctx context.Context, req Request) Response
}

package datasets

import (
	"encoding/json"
	"time"
)

// Schema is the case format version this package reads and writes.
const Schema = "apeval.case/v1"

// Case is one recorded hook context (see docs/cases.md). Unknown JSON fields are
// ignored on read. Defaults (session_id, seq, hook_point, category,
// arguments_valid) are filled in by the Reader, so code downstream never
// sees a zero value where the format promises a default.
type Case struct {
	ID        string           `json:"id"`
	SessionID string           `json:"session_id,omitempty"`
	Seq       int64            `json:"seq"`
	Time      *time.Time       `json:"time,omitempty"`
	HookPoint string           `json:"hook_point,omitempty"`
	Piece     string           `json:"piece,omitempty"`
	Movement  string           `json:"movement,omitempty"`
	UserRole  string           `json:"user_role,omitempty"`
	Workspace string           `json:"workspace,omitempty"`
	Tool      Tool             `json:"tool"`
	Context   Context          `json:"context"`
	Labels    map[string]Label `json:"labels,omitempty"`
	// WeakLabels are labels from a signal, not a review: what the user did
	// about the agent's own gate (rejected a call when asked, let a call the
	// classifier had blocked run). label_source "weak": kept apart from
	// Labels and never counted as ground truth unless a run is asked to
	// (run --label-source weak, which says so in every output).
	WeakLabels      map[string]Label `json:"weak_labels,omitempty"`
	ExpectedAction  Action           `json:"expected_action,omitempty"`
	ApprovalOutcome ApprovalOutcome  `json:"approval_outcome,omitempty"`
	Tags            []string         `json:"tags,omitempty"`
	Recorded        []Recorded       `json:"recorded,omitempty"`
	// Provenance says where an imported case came from (format, source
	// file, line or record, the agent's own tool-use id, …); written by
	// `apeval datasets import`, kept through reading and writing, never
	// sent to a judge.
	Provenance map[string]any `json:"provenance,omitempty"`

	// Source is where the case was read from ("file:line"); never serialized.
	Source string `json:"-"`

	// seqSet records that the line gave "seq" (0 is a value, not "absent");
	// the Reader numbers the others by their position in the whole input.
	seqSet bool
	// grouped: the case was read from a file that declares its sessions
	// grouped (SessionsGrouped); file is that file's index in the input.
	grouped bool
	file    int32
}

// SessionsField is the field of a file's first record that declares how the
// file's sessions are laid out; SessionsGrouped is its value for a file in
// which every session's cases are consecutive (docs/cases.md, "Grouped
// sessions"). `apeval datasets import` writes it when its output is so.
const (
	SessionsField   = "apeval_sessions"
	SessionsGrouped = "grouped"
)

// GroupedFile reports whether c was read from a file that declares its
// sessions grouped, and that file's index in the input: in such a file a
// session whose cases are followed by another session's is complete.
func (c *Case) GroupedFile() (file int, ok bool) { return int(c.file), c.grouped }

// SetGroupedFile marks c as read from file number file of the input, a file
// that declares its sessions grouped: what the Reader does for such a
// file's cases, for cases that come from elsewhere.
func (c *Case) SetGroupedFile(file int) { c.grouped, c.file = true, int32(file) }

// Tool is the tool call the agent was about to make.
type Tool struct {
	Name      string         `json:"name"`
	Category  string         `json:"category,omitempty"`
	Arguments map[string]any `json:"arguments,omitempty"`
	// ArgumentsValid is nil when the record left it out; Valid() applies the default (true).
	ArgumentsValid *bool `json:"arguments_valid,omitempty"`
}

// Valid reports whether the call's arguments were valid (default true).
func (t Tool) Valid() bool { return t.ArgumentsValid == nil || *t.ArgumentsValid }

// Context is the conversation state at the hook point.
type Context struct {
	LatestUserMessage    string    `json:"latest_user_message,omitempty"`
	RecentMessages       []Message `json:"recent_messages,omitempty"`
	ApprovalState        string    `json:"approval_state,omitempty"`
	ApprovedFingerprints []string  `json:"approved_fingerprints,omitempty"`
}

// Message is one entry of the recent conversation.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Recorded is one judge call captured in production shadow mode.
type Recorded struct {
	Judge     string             `json:"judge"`
	LatencyMS float64            `json:"latency_ms"`
	Status    string             `json:"status,omitempty"` // ok|unknown|invalid|timeout|error; default ok
	Error     string             `json:"error,omitempty"`
	Decisions []RecordedDecision `json:"decisions,omitempty"`
	// PromptTokens and CompletionTokens are the call's token usage when the
	// production gate recorded it (for the cost figures); 0 = not recorded.
	PromptTokens     int `json:"prompt_tokens,omitempty"`
	CompletionTokens int `json:"completion_tokens,omitempty"`
}

// RecordedDecision is one rule decision inside a recorded call.
type RecordedDecision struct {
	RuleID     string   `json:"rule_id"`
	Result     string   `json:"result"`
	Confidence *float64 `json:"confidence,omitempty"`
}

// Categories lists the tool categories in the order docs/cases.md lists them.
var Categories = []string{
	"command_execution", "file_change", "data_deletion", "web_search",
	"external_send", "git", "browser", "remote_shell", "sub_agent", "other",
}

// Raw re-encodes a case as one JSON line (used by importers and redaction).
func (c *Case) Raw() ([]byte, error) { return json.Marshal(c) }

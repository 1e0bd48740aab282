package replay

import (
	"time"

	"github.com/apeval/apeval/judge"
)

// Result is one case replayed by one judge: the record that flows from replay
// into metrics and reports (and back out of decisions.parquet/gates.parquet
// for `apeval report`). Failures are data (Status, Error), never dropped rows.
type Result struct {
	RunID     string
	CaseID    string
	SessionID string
	// SessionOrd is 1 + the ordinal replay.Run gave the case's session (its
	// exact identity in the run's session table), so that a consumer in the
	// same process can key on the session without a table of its own; 0
	// when unknown (results read back from Parquet).
	SessionOrd uint32
	Seq        int64
	// Judge is the judge identity string (judge.Identity.String()).
	Judge         string
	Model         string
	ModelDigest   string
	PromptVersion string

	Permission      string // allow|deny|ask|off
	GateAction      string // the case's resolved action (see docs/replay.md); "allow" when nothing fired
	ExpectedAction  string
	ApprovalOutcome string // approved|denied|ignored|""
	RulesInScope    int
	RulesJudged     int          // rules whose result came from the judge or its cache
	JudgeCalled     bool         // at least one rule of the case needed the judge
	CacheHit        bool         // every judge call of the case was answered from the cache
	LatencyMS       *float64     // sum of the case's judge-call latencies (a cached call at the latency stored with it); nil when no call
	Status          judge.Status // worst call status of the case: ok|invalid|timeout|error, "" when no call
	Tags            []string
	// The tool call the case is about, so the decision files stand alone:
	// the tool's name, its category (after the policy's overrides), the
	// hook point, and the case's time (nil when the case has none).
	ToolName  string
	Category  string
	HookPoint string
	Time      *time.Time

	Rules []RuleResult
	Calls []Call
}

// RuleResult is one rule in scope for the case (one decisions.parquet row).
type RuleResult struct {
	RuleID      string
	RuleVersion int
	Class       string // always|style|audit|dangerous|approval|stop
	Label       string // match|no_match|"" (unlabeled)
	// Source says which stage gave the result: scope (skipped by an approved
	// fingerprint), deterministic, judge, cache, failure (the failure policy
	// decided after a judge failure).
	Source     Source
	Result     judge.Result // match|no_match|unknown
	Confidence *float64     // judge confidence when given
	Fired      bool
	Action     string       // the rule's action (whether it fired or not)
	Status     judge.Status // ok|unknown|invalid|timeout|error|missing; ok for deterministic rows
	Error      string
	// Fingerprint is the approval fingerprint on the rows that fired or
	// that an approval skipped; zero on the others.
	Fingerprint Digest
	// BaselineResult is the rule's deterministic baseline on this case
	// (match|no_match), "" when the rule has no baseline.
	BaselineResult judge.Result
	// Call indexes Calls for rules sent to the judge; -1 otherwise.
	Call int
}

// Call is one judge call (or cache hit) made for the case.
type Call struct {
	Rules     int
	Status    judge.Status // ok|invalid|timeout|error
	Error     string
	LatencyMS float64
	Cached    bool
	Attempts  int
	// Server timings and token counts, nil when the backend does not report them.
	ServerTotalMS      *float64
	ServerLoadMS       *float64
	ServerPromptEvalMS *float64
	ServerEvalMS       *float64
	PromptTokens       *int64
	CompletionTokens   *int64
}

// Source says which stage gave a rule's result.
type Source string

// Sources of a rule result.
const (
	SourceScope         Source = "scope"
	SourceDeterministic Source = "deterministic"
	SourceJudge         Source = "judge"
	SourceCache         Source = "cache"
	SourceFailure       Source = "failure"
)

// Gate actions in priority order, highest first (see docs/replay.md).
const (
	ActionStopTask          = "stop_task"
	ActionDenyCurrentTool   = "deny_current_tool"
	ActionRequestApproval   = "request_approval"
	ActionInjectInstruction = "inject_instruction"
	ActionAuditOnly         = "audit_only"
	ActionNotifyAdmin       = "notify_admin"
	ActionAllow             = "allow"
)

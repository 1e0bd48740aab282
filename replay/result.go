package replay

import (
	"fmt"
	"time"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/judge/core"
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
	// Judge is the judge identity string (core.Identity.String()).
	Judge         string
	Model         string
	ModelDigest   string
	PromptVersion string

	Permission      string          // allow|deny|ask|off
	GateAction      datasets.Action // the case's resolved action (see docs/replay.md); allow when nothing fired
	ExpectedAction  datasets.Action
	ApprovalOutcome datasets.ApprovalOutcome // "" when none
	RulesInScope    int
	RulesJudged     int         // rules whose result came from the judge or its cache
	JudgeCalled     bool        // at least one rule of the case needed the judge
	CacheHit        bool        // every judge call of the case was answered from the cache
	LatencyMS       *float64    // sum of the case's judge-call latencies (a cached call at the latency stored with it); nil when no call
	Status          core.Status // worst call status of the case: ok|invalid|timeout|error, "" when no call
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
	Class       Class
	Label       datasets.Label // "" when unlabeled
	// Source says which stage gave the result: scope (skipped by an approved
	// fingerprint), deterministic, judge, cache, failure (the failure policy
	// decided after a judge failure).
	Source     Source
	Result     core.Result // match|no_match|unknown
	Confidence *float64    // judge confidence when given
	Fired      bool
	Action     datasets.Action // the rule's action (whether it fired or not)
	Status     core.Status     // ok|unknown|invalid|timeout|error|missing; ok for deterministic rows
	Error      string
	// Fingerprint is the approval fingerprint on the rows that fired or
	// that an approval skipped; zero on the others.
	Fingerprint Digest
	// EvidenceAltered is set on a pair sent to the judge when the judge
	// input changed text the rule's condition refers to: an argument of
	// the call it names was masked or cut to the input's length bound
	// (evidenceAltered; docs/replay.md, "Evidence the judge did not get").
	EvidenceAltered bool
	// BaselineResult is the rule's deterministic baseline on this case
	// (match|no_match), "" when the rule has no baseline.
	BaselineResult core.Result
	// Call indexes Calls for rules sent to the judge; -1 otherwise. With
	// repeats it is the first repeat's call.
	Call int
	// Repeats holds one vote per repeat of the rule's call (--repeat N,
	// --shuffle-rules; nil otherwise): what that call answered for the rule
	// and where the rule stood in it. The rule's Result is their Majority.
	Repeats []RepeatVote
}

// RepeatVote is one repeat's answer for a rule.
type RepeatVote struct {
	// Result is the judge's answer (match, no_match, unknown); "" when the
	// call failed.
	Result core.Result
	// Status is ok for a match/no_match, unknown for the judge's unknown,
	// else the failed call's status (invalid, timeout, error).
	Status     core.Status
	Confidence *float64
	Call       int // index into Result.Calls
	Pos, Of    int // the rule's 0-based position among the call's Of rules
}

// Answered reports whether the judge answered (match, no_match or unknown)
// rather than the call failing.
func (v RepeatVote) Answered() bool { return v.Result != "" }

// Flip reports whether the rule's repeats count for the flip rate (at
// least two answered) and whether their answers are not all equal. Failed
// repeats are left out: they measure the server, not the model.
func (rr *RuleResult) Flip() (unit, flipped bool) {
	var first core.Result
	n := 0
	for _, v := range rr.Repeats {
		if !v.Answered() {
			continue
		}
		if n == 0 {
			first = v.Result
		} else if v.Result != first {
			flipped = true
		}
		n++
	}
	return n >= 2, flipped
}

// Vote is the outcome of majority voting over a rule's repeats.
type Vote struct {
	// Result is match or no_match when that vote won, else unknown.
	Result core.Result
	// Status is ok for a decision; for an undecided winner the most
	// frequent undecided status (unknown, invalid, timeout, error; unknown
	// when those tie); unknown for a tie at the top.
	Status core.Status
	// Confidence is the mean confidence of the winning votes that gave one.
	Confidence *float64
	// Tie is set when two votes share the top count: the result is unknown.
	Tie bool
	// Counts says how the repeats voted, e.g. "3 match, 2 no_match".
	Counts string
}

// Majority decides a rule from its repeats. Each repeat votes match,
// no_match or undecided (the judge said unknown, or its call failed); the
// vote held by strictly more repeats than any other wins; a tie at the top
// gives unknown. One repeat is its own majority.
func Majority(votes []RepeatVote) Vote {
	var nMatch, nNo, nUnd int
	und := map[core.Status]int{}
	for _, v := range votes {
		switch {
		case v.Result == core.Match:
			nMatch++
		case v.Result == core.NoMatch:
			nNo++
		default:
			nUnd++
			st := v.Status
			if v.Answered() {
				st = core.StatusUnknown
			}
			und[st]++
		}
	}
	counts := fmt.Sprintf("%d match, %d no_match, %d undecided", nMatch, nNo, nUnd)
	top := max(nMatch, nNo, nUnd)
	winners := 0
	for _, n := range []int{nMatch, nNo, nUnd} {
		if n == top {
			winners++
		}
	}
	if winners > 1 {
		return Vote{Result: core.Unknown, Status: core.StatusUnknown, Tie: true, Counts: counts}
	}
	var want core.Result
	out := Vote{Counts: counts, Status: core.StatusOK}
	switch top {
	case nMatch:
		out.Result, want = core.Match, core.Match
	case nNo:
		out.Result, want = core.NoMatch, core.NoMatch
	default:
		out.Result, out.Status = core.Unknown, core.StatusUnknown
		best, bestN, tied := core.StatusUnknown, 0, false
		for _, st := range []core.Status{core.StatusUnknown, core.StatusInvalid, core.StatusTimeout, core.StatusError} {
			switch n := und[st]; {
			case n > bestN:
				best, bestN, tied = st, n, false
			case n == bestN && n > 0:
				tied = true
			}
		}
		if !tied {
			out.Status = best
		}
		want = core.Unknown
	}
	sum, n := 0.0, 0
	for _, v := range votes {
		if v.Confidence == nil {
			continue
		}
		if v.Result == want || (want == core.Unknown && v.Result != core.Match && v.Result != core.NoMatch) {
			sum += *v.Confidence
			n++
		}
	}
	if n > 0 {
		m := sum / float64(n)
		out.Confidence = &m
	}
	return out
}

// Call is one judge call (or cache hit) made for the case.
type Call struct {
	Rules  int
	Status core.Status // ok|invalid|timeout|error
	Error  string
	// Cause is why a failed call failed (core.Cause, typed by the
	// backend); "" for an answered call.
	Cause     core.Cause
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

package replay

import (
	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/judge/core"
)

// Outcome is what a rule result amounts to when it is counted: a decision
// (match, no_match) or the reason there is none. See RuleResult.Classify.
type Outcome uint8

// Outcomes of a rule result.
const (
	// OutcomeNone: no recognisable result (a scope row, or a judged row
	// whose result is none of match/no_match/unknown).
	OutcomeNone Outcome = iota
	OutcomeMatch
	OutcomeNoMatch
	// OutcomeUnknown: the judge answered unknown.
	OutcomeUnknown
	// OutcomeFailed: the call failed (invalid, timeout, error), or the
	// failure policy decided for another reason.
	OutcomeFailed
	// OutcomeMissing: the recording lacks the rule; not a pair of the judge.
	OutcomeMissing
)

// Decided reports whether the outcome is a decision (match or no_match).
func (o Outcome) Decided() bool { return o == OutcomeMatch || o == OutcomeNoMatch }

// Cell is a labeled pair's cell of the confusion matrix.
type Cell uint8

// Cells; CellNone is an unlabeled pair, a scope or missing row, or a
// no_match label without a decision (neither FP nor TN).
const (
	CellNone Cell = iota
	CellTP
	CellFP
	CellFN
	CellTN
)

// Classify is the one place a (case, rule) pair is classified for the
// metrics. A status of invalid, timeout or error, or source failure with
// any status but unknown, is OutcomeFailed; otherwise a result or status
// unknown is OutcomeUnknown (replay routes a judge's unknown answer through
// the failure policy with status unknown); otherwise the result decides.
// Failures and unknowns are never a match, even when the failure policy
// fired the rule.
//
// The cell: label match is TP when the outcome is match, else FN; label
// no_match is FP on match, TN on no_match, else none. A scope row (decided
// by a human approving the call) and a missing row have no cell.
func (rr *RuleResult) Classify() (Outcome, Cell) {
	var out Outcome
	switch {
	case rr.Status == core.StatusMissing:
		return OutcomeMissing, CellNone
	case rr.Status.Failed() || (rr.Source == SourceFailure && rr.Status != core.StatusUnknown):
		out = OutcomeFailed
	case rr.Result == core.Unknown || rr.Status == core.StatusUnknown:
		out = OutcomeUnknown
	case rr.Result == core.Match:
		out = OutcomeMatch
	case rr.Result == core.NoMatch:
		out = OutcomeNoMatch
	}
	if rr.Source == SourceScope {
		return out, CellNone
	}
	switch rr.Label {
	case datasets.LabelMatch:
		if out == OutcomeMatch {
			return out, CellTP
		}
		return out, CellFN
	case datasets.LabelNoMatch:
		switch out {
		case OutcomeMatch:
			return out, CellFP
		case OutcomeNoMatch:
			return out, CellTN
		}
	}
	return out, CellNone
}

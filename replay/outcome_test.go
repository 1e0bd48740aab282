package replay

import (
	"testing"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/judge"
)

func TestClassify(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name          string
		source        Source
		result        judge.Result
		status        judge.Status
		label         string
		wantOut       Outcome
		wantCell      Cell
		wantDecidedTo bool
	}{
		{"judge match, label match", SourceJudge, judge.Match, judge.StatusOK, "match", OutcomeMatch, CellTP, true},
		{"judge no_match, label match", SourceJudge, judge.NoMatch, judge.StatusOK, "match", OutcomeNoMatch, CellFN, true},
		{"judge match, label no_match", SourceCache, judge.Match, judge.StatusOK, "no_match", OutcomeMatch, CellFP, true},
		{"deterministic no_match, label no_match", SourceDeterministic, judge.NoMatch, judge.StatusOK, "no_match", OutcomeNoMatch, CellTN, true},
		{"unlabeled match", SourceJudge, judge.Match, judge.StatusOK, "", OutcomeMatch, CellNone, true},
		// The judge's own unknown goes through the failure policy with
		// status unknown: unknown, not failed; FN when labeled match.
		{"unknown answer", SourceFailure, judge.Unknown, judge.StatusUnknown, "match", OutcomeUnknown, CellFN, false},
		{"unknown answer, label no_match", SourceFailure, judge.Unknown, judge.StatusUnknown, "no_match", OutcomeUnknown, CellNone, false},
		// A failure is never a match, even when the failure policy fired.
		{"timeout", SourceFailure, judge.Unknown, judge.StatusTimeout, "match", OutcomeFailed, CellFN, false},
		{"failure policy with status ok", SourceFailure, judge.Match, judge.StatusOK, "no_match", OutcomeFailed, CellNone, false},
		{"invalid from cache", SourceCache, judge.Match, judge.StatusInvalid, "no_match", OutcomeFailed, CellNone, false},
		{"unrecognised result", SourceJudge, "maybe", judge.StatusOK, "match", OutcomeNone, CellFN, false},
		{"missing", SourceJudge, judge.Unknown, judge.StatusMissing, "match", OutcomeMissing, CellNone, false},
		{"scope", SourceScope, "", judge.StatusOK, "match", OutcomeNone, CellNone, false},
	} {
		rr := RuleResult{Source: tc.source, Result: tc.result, Status: tc.status, Label: datasets.Label(tc.label)}
		out, cell := rr.Classify()
		if out != tc.wantOut || cell != tc.wantCell || out.Decided() != tc.wantDecidedTo {
			t.Errorf("%s: Classify = %d, %d (decided %v); want %d, %d (%v)", tc.name, out, cell, out.Decided(), tc.wantOut, tc.wantCell, tc.wantDecidedTo)
		}
	}
}

package replay

import (
	"testing"

	"github.com/apeval/apeval/judge"
)

func votes(spec ...string) []RepeatVote {
	var out []RepeatVote
	for _, s := range spec {
		switch s {
		case "m":
			out = append(out, RepeatVote{Result: judge.Match, Status: judge.StatusOK})
		case "n":
			out = append(out, RepeatVote{Result: judge.NoMatch, Status: judge.StatusOK})
		case "u":
			out = append(out, RepeatVote{Result: judge.Unknown, Status: judge.StatusUnknown})
		default: // a failed call: its status
			out = append(out, RepeatVote{Status: judge.Status(s)})
		}
	}
	return out
}

func TestMajority(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		votes  []string
		result judge.Result
		status judge.Status
		tie    bool
	}{
		{[]string{"m"}, judge.Match, judge.StatusOK, false},
		{[]string{"n"}, judge.NoMatch, judge.StatusOK, false},
		{[]string{"m", "m", "n"}, judge.Match, judge.StatusOK, false},
		{[]string{"n", "m", "n", "n", "m"}, judge.NoMatch, judge.StatusOK, false},
		// A plurality is enough: 2 match beat 1 no_match and 1 undecided...
		{[]string{"m", "m", "n", "u"}, judge.Match, judge.StatusOK, false},
		// ...and failures vote undecided.
		{[]string{"m", "m", "timeout"}, judge.Match, judge.StatusOK, false},
		// Ties at the top give unknown.
		{[]string{"m", "n"}, judge.Unknown, judge.StatusUnknown, true},
		{[]string{"m", "m", "n", "n", "u"}, judge.Unknown, judge.StatusUnknown, true},
		{[]string{"m", "u"}, judge.Unknown, judge.StatusUnknown, true},
		{[]string{"m", "timeout"}, judge.Unknown, judge.StatusUnknown, true},
		{[]string{"m", "n", "u"}, judge.Unknown, judge.StatusUnknown, true},
		// An undecided winner takes its most frequent status.
		{[]string{"timeout", "timeout", "m"}, judge.Unknown, judge.StatusTimeout, false},
		{[]string{"u", "u", "error", "n"}, judge.Unknown, judge.StatusUnknown, false},
		{[]string{"error", "error", "error"}, judge.Unknown, judge.StatusError, false},
		// Undecided statuses tied among themselves: unknown.
		{[]string{"timeout", "error", "invalid"}, judge.Unknown, judge.StatusUnknown, false},
	} {
		v := Majority(votes(tc.votes...))
		if v.Result != tc.result || v.Status != tc.status || v.Tie != tc.tie {
			t.Errorf("%v: got %s/%s tie=%v (%s), want %s/%s tie=%v", tc.votes, v.Result, v.Status, v.Tie, v.Counts, tc.result, tc.status, tc.tie)
		}
	}
}

func TestMajorityConfidenceIsTheWinnersMean(t *testing.T) {
	t.Parallel()
	c := func(x float64) *float64 { return &x }
	vs := []RepeatVote{
		{Result: judge.Match, Status: judge.StatusOK, Confidence: c(0.9)},
		{Result: judge.NoMatch, Status: judge.StatusOK, Confidence: c(0.2)},
		{Result: judge.Match, Status: judge.StatusOK, Confidence: c(0.7)},
	}
	v := Majority(vs)
	if v.Result != judge.Match || v.Confidence == nil || *v.Confidence < 0.8-1e-12 || *v.Confidence > 0.8+1e-12 {
		t.Fatalf("%+v", v)
	}
	if v.Counts != "2 match, 1 no_match, 0 undecided" {
		t.Fatalf("counts %q", v.Counts)
	}
}

func TestFlip(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		votes         []string
		unit, flipped bool
	}{
		{[]string{"m"}, false, false},
		{[]string{"m", "m", "m"}, true, false},
		{[]string{"m", "m", "n"}, true, true},
		{[]string{"u", "u"}, true, false},
		{[]string{"m", "u"}, true, true},
		// Failed calls are the server's, not the model's: left out.
		{[]string{"m", "timeout", "m"}, true, false},
		{[]string{"m", "timeout"}, false, false},
	} {
		rr := RuleResult{Repeats: votes(tc.votes...)}
		unit, flipped := rr.Flip()
		if unit != tc.unit || flipped != tc.flipped {
			t.Errorf("%v: unit %v flipped %v, want %v %v", tc.votes, unit, flipped, tc.unit, tc.flipped)
		}
	}
}

package metrics

import (
	"strings"
	"testing"

	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/replay"
)

// Half or more of a judge's calls failing with one setup-class cause is a
// broken setup: the judge's verdict is ERROR, the cause is named, and the
// run has no verdict either. Load failures (429, 5xx, timeouts) are the
// judge's behaviour and stay counted failures.
func TestBrokenSetupIsError(t *testing.T) {
	t.Parallel()
	calls := func(judgeID string, msgs ...string) *Summary {
		a := New(Config{Criteria: replay.DefaultKillCriteria()})
		for i, m := range msgs {
			st, source, result := judge.StatusOK, "judge", "no_match" // "" is a call that worked
			if m != "" {
				st, source, result = judge.StatusError, "failure", ""
			}
			a.Add(&replay.Result{CaseID: string(rune('a' + i)), Judge: judgeID, JudgeCalled: true,
				Calls: []replay.Call{{Rules: 1, Status: st, Error: m, LatencyMS: 10}},
				Rules: []replay.RuleResult{rr("R1", "style", source, result, "no_match", string(st), false, 0)}})
		}
		return a.Close()
	}
	http404 := "HTTP 404: The model 'typo-model' does not exist"
	for _, tt := range []struct {
		name  string
		msgs  []string
		error bool
	}{
		{"every call 404", []string{http404, http404, http404, http404}, true},
		{"half 404", []string{http404, http404, "", ""}, true},
		{"a quarter 404", []string{http404, "", "", ""}, false},
		{"half, two causes", []string{http404, "dial tcp 127.0.0.1:9: connect: connection refused", "", ""}, false},
		{"overloaded", []string{"HTTP 503: busy", "HTTP 429: slow down", "HTTP 503: busy", ""}, false},
	} {
		s := calls("openai/x", tt.msgs...)
		j := s.Judge("openai/x")
		if got := j.Verdict == VerdictError; got != tt.error {
			t.Errorf("%s: verdict %s (%q), want ERROR %v", tt.name, j.Verdict, j.SetupError, tt.error)
			continue
		}
		if tt.error {
			if s.Verdict != VerdictError || !strings.Contains(j.SetupError, judge.SetupNotFound) {
				t.Errorf("%s: run verdict %s, cause %q", tt.name, s.Verdict, j.SetupError)
			}
		} else if j.SetupError != "" {
			t.Errorf("%s: cause %q on a working setup", tt.name, j.SetupError)
		}
	}
	if got := calls("openai/x", http404, http404).Judge("openai/x").SetupError; got != "2 of 2 calls failed with "+judge.SetupNotFound {
		t.Errorf("cause = %q", got)
	}
}

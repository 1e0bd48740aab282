package reports

import (
	"strings"
	"testing"

	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/replay"
)

// Invalid answers replayed from the cache are failures as live ones are: a
// rerun that takes every answer from the cache still warns.
func TestCachedFailuresCount(t *testing.T) {
	t.Parallel()
	f := NewFailures()
	for i := 0; i < 4; i++ {
		f.Add(&replay.Result{Judge: "openai/m+p1", Calls: []replay.Call{{Status: judge.StatusInvalid, Error: "no decision for rule \"a\"", Cached: true}}})
	}
	f.Add(&replay.Result{Judge: "openai/m+p1", Calls: []replay.Call{{Status: judge.StatusOK, Cached: true}}})
	s := f.Summary()
	if len(s) != 1 || s[0].Calls != 5 || s[0].Failed != 4 || !s[0].Broken {
		t.Fatalf("summary %+v", s)
	}
	if got := strings.Join(s[0].Lines(), "\n"); !strings.Contains(got, `4 × no decision for rule "a" (answers from the cache)`) {
		t.Fatalf("lines:\n%s", got)
	}
}

// The warning under a judge whose setup left no verdict (ERROR) does not
// speak of "the verdict": the ERROR line right after it says there is none.
// A judge that still has a verdict keeps the warning that its figures
// describe the setup.
func TestBrokenSetupWording(t *testing.T) {
	t.Parallel()
	f := NewFailures()
	for _, j := range []string{"openai/a+p1", "openai/b+p1"} {
		for i := 0; i < 3; i++ {
			f.Add(&replay.Result{Judge: j, Calls: []replay.Call{{Status: judge.StatusError, Error: "HTTP 404: not found"}}})
		}
	}
	sum := &metrics.Summary{Judges: []*metrics.JudgeSummary{
		{Judge: "openai/a+p1", Verdict: metrics.VerdictError, SetupError: "3 of 3 calls failed with HTTP 404"},
		{Judge: "openai/b+p1", Verdict: metrics.VerdictNoGo},
	}}
	s := f.SummaryOf(sum)
	if len(s) != 2 {
		t.Fatalf("summary %+v", s)
	}
	if got := s[0].Lines()[0]; strings.Contains(got, "the verdict reflects") || !strings.Contains(got, "a broken judge setup: no verdict") {
		t.Errorf("ERROR judge: %s", got)
	}
	if got := s[1].Lines()[0]; !strings.Contains(got, "the verdict reflects a broken judge setup") {
		t.Errorf("judge with a verdict: %s", got)
	}
}

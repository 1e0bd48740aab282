package reports

import (
	"strings"
	"testing"

	"github.com/apeval/apeval/judge"
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

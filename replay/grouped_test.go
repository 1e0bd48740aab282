package replay

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/judge"
)

// groupedPolicy has every kind of per-session state: a boundary's
// crossings, a max_fires count and a judged condition's fire count.
const groupedPolicy = `
[[rule]]
id = "network"
action = "request_approval"
class = "approval"
[rule.boundary]
kind = "network"
review_at = 1
pause_at = 3

[[rule]]
id = "git-twice"
action = "audit_only"
class = "audit"
max_fires = 2
[rule.when]
command_prefix = ["git"]

[[rule]]
id = "nl-delete"
condition = "deletes something"
action = "request_approval"
class = "approval"
[rule.when]
command_prefix = ["rm"]
`

// groupedCases is sessions of 1 to 6 cases, one session after another,
// each case a URL fetch, a git command or an rm.
func groupedCases(sessions int, mark bool) []*datasets.Case {
	var out []*datasets.Case
	k := 0
	for s := range sessions {
		for i := range 1 + (s*7)%6 {
			var c *datasets.Case
			switch (s + i) % 3 {
			case 0:
				c = call("WebFetch", "network", "url", "https://example.com/x")
			case 1:
				c = bash("git push")
			default:
				c = bash("rm -rf x")
			}
			c.ID, c.SessionID, c.Seq = fmt.Sprintf("c-%d", k), fmt.Sprintf("s-%d", s), int64(i+1)
			c.Source = fmt.Sprintf("f.jsonl:%d", k+1)
			if mark {
				c.SetGroupedFile(0)
			}
			out = append(out, c)
			k++
		}
	}
	return out
}

func runCases(t testing.TB, p *Policy, cases []*datasets.Case) ([]Result, error) {
	t.Helper()
	i := 0
	next := func() (*datasets.Case, bool) {
		if i == len(cases) {
			return nil, false
		}
		i++
		return cases[i-1], true
	}
	var out []Result
	_, err := Run(context.Background(), p, next, []judge.Judge{answer(judge.Match)}, Options{Concurrency: 2}, func(r *Result) error {
		out = append(out, *r)
		return nil
	})
	return out, err
}

// TestGroupedSessionsSameResults: a grouped file's sessions, whose state
// replay forgets as the next session begins, replay exactly as without
// the marker, session numbers included.
func TestGroupedSessionsSameResults(t *testing.T) {
	t.Parallel()
	p := mustPolicy(t, groupedPolicy)
	want, err := runCases(t, p, groupedCases(300, false))
	if err != nil {
		t.Fatal(err)
	}
	got, err := runCases(t, p, groupedCases(300, true))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		for i := range got {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Fatalf("case %d differs:\ngot  %+v\nwant %+v", i, got[i], want[i])
			}
		}
		t.Fatalf("%d results, want %d", len(got), len(want))
	}
	// Mixed: the first half from a file without the marker, the rest
	// grouped; a table session going on in the grouped file stays one.
	mixed := groupedCases(300, false)
	for _, c := range mixed[len(mixed)/2:] {
		c.SetGroupedFile(1)
	}
	got, err = runCases(t, p, mixed)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatal("mixed grouped and ungrouped input replays differently")
	}
}

// TestGroupedSessionRepeats: a session of a grouped file that appears
// again after another session stops the run with a GroupedError naming
// the line, at once or, past the ids kept in memory, at the end.
func TestGroupedSessionRepeats(t *testing.T) {
	p := mustPolicy(t, groupedPolicy)
	cases := groupedCases(50, true)
	again := groupedCases(1, true)[0]
	again.ID, again.Source, again.Seq = "again", "f.jsonl:999", 9
	cases = append(cases, again) // session s-0 once more
	_, err := runCases(t, p, cases)
	var ge *datasets.GroupedError
	if !errors.As(err, &ge) || ge.Late || ge.Source != "f.jsonl:999" {
		t.Fatalf("err = %v, want a GroupedError at f.jsonl:999", err)
	}
	defer func(n int) { closedInMemory = n }(closedInMemory)
	closedInMemory = 8
	if _, err := runCases(t, p, cases); !errors.As(err, &ge) || !ge.Late {
		t.Fatalf("err = %v, want a late GroupedError", err)
	}
}

// TestGroupedSessionMemory: replay's memory for sessions does not grow
// with their number, for a grouped file and, once its table of sessions
// in memory is full, for a file without the marker. The live heap after a
// GC, while the last cases are in flight, is measured at 50,000 and at
// 200,000 sessions of one or two cases (a URL fetch, which gives the
// session a boundary counter, then a git command, counted by max_fires):
// with every session in memory (a table larger than the sessions) it
// grows by ≈ 75 bytes per session (checked, so that the test can fail),
// with the marker or with a table of 4,096 sessions spilling the rest by
// less than a fixed bound (the Bloom filter over the spilled ids, ≈ 2 bytes
// a session, is in it). No time is measured.
func TestGroupedSessionMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	// The check that no grouped session appears twice keeps its ids in
	// chunks of closedInMemory: a small chunk here, so that the heap shows
	// the sessions' own state.
	defer func(n int) { closedInMemory = n }(closedInMemory)
	closedInMemory = 4096
	p := mustPolicy(t, strings.Split(groupedPolicy, "[[rule]]\nid = \"nl-delete\"")[0])
	heapAt := func(sessions int, mark bool, inMemory int) int64 {
		defer func(n int) { sessionsInMemory = n }(sessionsInMemory)
		sessionsInMemory = inMemory
		n := sessions + sessions/2 // every other session has a second case
		i, s, inSess := 0, 0, 0
		measured := make(chan struct{})
		next := func() (*datasets.Case, bool) {
			if i == n {
				<-measured // the reader and the workers live until then
				return nil, false
			}
			var c *datasets.Case
			if inSess == 0 {
				c = call("WebFetch", "network", "url", "https://example.com/x")
			} else {
				c = bash("git push")
			}
			c.ID, c.SessionID, c.Seq = fmt.Sprintf("c-%07d", i), fmt.Sprintf("s-%06d", s), int64(inSess+1)
			if mark {
				c.SetGroupedFile(0)
			}
			i++
			if inSess++; inSess == 1+s%2 {
				s, inSess = s+1, 0
			}
			return c, true
		}
		var before, at runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		emitted := 0
		_, err := Run(context.Background(), p, next, []judge.Judge{answer(judge.NoMatch)}, Options{Concurrency: 2, ReuseResults: true}, func(*Result) error {
			emitted++
			if emitted == n-2*blockSize { // in a full block, sent before next blocked
				runtime.GC()
				runtime.ReadMemStats(&at)
				close(measured)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return int64(at.HeapAlloc) - int64(before.HeapAlloc)
	}
	const small, large = 50_000, 200_000
	all := heapAt(large, false, 1<<20) - heapAt(small, false, 1<<20)
	spilled := heapAt(large, false, 4096) - heapAt(small, false, 4096)
	grouped := heapAt(large, true, 4096) - heapAt(small, true, 4096)
	t.Logf("heap growth from %d to %d sessions: %d bytes with every session in memory (%.1f per session), %d spilling beyond 4,096 (%.1f per session), %d grouped",
		small, large, all, float64(all)/(large-small), spilled, float64(spilled)/(large-small), grouped)
	if all < 20*(large-small) {
		t.Fatalf("with every session in memory the heap grew by only %d bytes: the measurement does not see per-session state", all)
	}
	if spilled > 1<<20 {
		t.Fatalf("without the marker, spilling, the heap grew by %d bytes from %d to %d sessions (bound 1 MiB)", spilled, small, large)
	}
	if grouped > 1<<20 {
		t.Fatalf("with the marker the heap grew by %d bytes from %d to %d sessions (bound 1 MiB)", grouped, small, large)
	}
}

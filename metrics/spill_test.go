package metrics

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/replay"
)

// randomResults is a run of n cases over three judges ("A" the baseline,
// "B", and a recorded judge), five rules and a few sessions (some cases
// without one), with every source, outcome, status, label and approval
// outcome the accumulator tells apart, missing rows, repeated calls of a
// recorded judge, tags, tools and categories. Each case's results come
// together, judge by judge; a judge sometimes skips a case.
func randomResults(seed uint64, n int) []*replay.Result {
	rng := rand.New(rand.NewPCG(seed, 7))
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	rules := []struct{ id, class, action string }{
		{"R0", "style", "inject_instruction"}, {"R1", "dangerous", "deny_current_tool"},
		{"R2", "approval", "request_approval"}, {"R3", "audit", "audit_only"}, {"R4", "dangerous", "deny_current_tool"},
	}
	judges := []string{"A", "B", "recorded/C"}
	var out []*replay.Result
	for c := range n {
		sess := ""
		if rng.IntN(8) > 0 {
			sess = fmt.Sprintf("s%d", rng.IntN(max(2, n/6)))
		}
		tags := []string{pick("t1", "t2", "t3")}
		if rng.IntN(3) == 0 {
			tags = append(tags, pick("t1", "t2", "t4"))
		}
		tool, cat := pick("Bash", "Edit", ""), pick("shell", "", "net")
		for _, jid := range judges {
			if rng.IntN(10) == 0 {
				continue
			}
			r := &replay.Result{RunID: "run-" + pick("1", "2"), CaseID: fmt.Sprintf("case-%d", c), SessionID: sess, Judge: jid,
				Model: "m-" + jid, PromptVersion: "p1", Tags: tags, ToolName: tool, Category: cat,
				GateAction: datasets.Action(pick("allow", "request_approval", "deny_current_tool")), ApprovalOutcome: datasets.ApprovalOutcome(pick("", "approved", "denied", "ignored")),
				JudgeCalled: rng.IntN(2) == 0}
			for range rng.IntN(3) {
				r.Calls = append(r.Calls, replay.Call{LatencyMS: float64(10 * rng.IntN(50)), Status: judge.Status(pick("ok", "ok", "timeout", "invalid")),
					Cached: rng.IntN(4) == 0, Rules: 1})
			}
			for _, ru := range rules {
				if rng.IntN(4) == 0 {
					continue
				}
				rr := replay.RuleResult{RuleID: ru.id, RuleVersion: 1 + rng.IntN(20)/19, Class: replay.Class(ru.class), Action: datasets.Action(ru.action),
					Source: replay.Source(pick("judge", "judge", "cache", "failure", "deterministic", "scope")),
					Result: judge.Result(pick("match", "no_match", "unknown", "")),
					Label:  datasets.Label(pick("match", "no_match", "")),
					Status: judge.Status(pick("ok", "ok", "ok", "timeout", "invalid", "error", "unknown", "missing")),
					Fired:  rng.IntN(2) == 0,
					Call:   rng.IntN(len(r.Calls)+2) - 1,
				}
				if ru.class == "dangerous" {
					rr.BaselineResult = judge.Result(pick("match", "no_match", ""))
				}
				r.Rules = append(r.Rules, rr)
			}
			out = append(out, r)
		}
	}
	return out
}

func summaryJSON(t *testing.T, cfg Config, results []*replay.Result) (string, *Summary) {
	t.Helper()
	a := New(cfg)
	for _, r := range results {
		a.Add(r)
	}
	return closeJSON(t, a)
}

// closeJSON closes a and returns its Summary and comparison of B with
// recorded/C as JSON.
func closeJSON(t *testing.T, a *Accumulator) (string, *Summary) {
	t.Helper()
	s := a.Close()
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	cmp := s.Compare("B", "recorded/C")
	b, err := json.Marshal(struct {
		S *Summary
		C *Comparison
	}{s, cmp})
	if err != nil {
		t.Fatal(err)
	}
	return string(b), s
}

// TestSpilledEqualsInMemory: the Summary (every row, interval, test,
// comparison and slice) is the same whether the per-case data stays in
// memory or is spilled to disk in many small runs, whether cases are
// numbered as they come (DistinctCases) or interned, and whether results
// arrive in order or shuffled, with cases that come back.
func TestSpilledEqualsInMemory(t *testing.T) {
	t.Parallel()
	// -short (make test) checks two of the four seeds: each seed's five
	// summaries with slices and comparisons take seconds of CPU.
	seeds := uint64(4)
	if testing.Short() {
		seeds = 2
	}
	for seed := range seeds {
		results := randomResults(seed, 250+int(seed)*100)
		base := Config{Criteria: replay.DefaultKillCriteria(), Baseline: "A", Seed: seed, Slices: []string{SliceTag, SliceTool}}
		mem := base
		mem.SpillBudget = -1
		tiny := base
		tiny.SpillBudget = 256 * 16
		tiny.SpillDir = t.TempDir()
		distinct := tiny
		distinct.DistinctCases = true

		want, sMem := summaryJSON(t, mem, results)
		if n, _ := sMem.pool.Spilled(); n != 0 {
			t.Fatalf("seed %d: %d bytes spilled without a budget", seed, n)
		}
		got, sTiny := summaryJSON(t, tiny, results)
		if n, runs := sTiny.pool.Spilled(); runs < 20 {
			t.Fatalf("seed %d: only %d runs (%d bytes) spilled with a tiny budget", seed, runs, n)
		}
		if got != want {
			t.Fatalf("seed %d: spilled summary differs:\n%s", seed, firstJSONDiff(got, want))
		}
		if got, _ := summaryJSON(t, distinct, results); got != want {
			t.Fatalf("seed %d: DistinctCases summary differs:\n%s", seed, firstJSONDiff(got, want))
		}
		// Sessions numbered by replay.Run (Result.SessionOrd) instead of the
		// interner: the numbers are replay's, with gaps and in any order
		// (here a random injective numbering), and the summary is the same.
		if got := summaryWithSessionOrds(t, distinct, results, seed); got != want {
			t.Fatalf("seed %d: summary with replay's session numbers differs:\n%s", seed, firstJSONDiff(got, want))
		}

		// Shuffled, with a tenth of the results repeated: interned only.
		rng := rand.New(rand.NewPCG(seed, 9))
		mixed := append([]*replay.Result(nil), results...)
		for range len(results) / 10 {
			mixed = append(mixed, results[rng.IntN(len(results))])
		}
		rng.Shuffle(len(mixed), func(i, k int) { mixed[i], mixed[k] = mixed[k], mixed[i] })
		want, _ = summaryJSON(t, mem, mixed)
		if got, _ := summaryJSON(t, tiny, mixed); got != want {
			t.Fatalf("seed %d, shuffled: spilled summary differs:\n%s", seed, firstJSONDiff(got, want))
		}
		for _, s := range []*Summary{sMem, sTiny} {
			if err := s.Release(); err != nil {
				t.Fatal(err)
			}
		}
		if left, _ := os.ReadDir(tiny.SpillDir); len(left) != 0 {
			t.Errorf("seed %d: %d files left in the spill directory", seed, len(left))
		}
	}
}

func firstJSONDiff(got, want string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	lo := max(0, i-200)
	return fmt.Sprintf("got  …%s…\nwant …%s…", got[lo:min(len(got), i+100)], want[lo:min(len(want), i+100)])
}

// TestSpillWriteFailureKeepsFigures: when the temporary file cannot be
// written, nothing is lost: the figures are those of an in-memory run and
// a warning says what happened.
func TestSpillWriteFailureKeepsFigures(t *testing.T) {
	t.Parallel()
	results := randomResults(11, 300)
	cfg := Config{Criteria: replay.DefaultKillCriteria(), Baseline: "A", SpillBudget: -1}
	_, want := summaryJSON(t, cfg, results)
	cfg.SpillBudget, cfg.SpillDir = 256*16, t.TempDir()+"/no/such/dir"
	_, got := summaryJSON(t, cfg, results)
	if len(got.Warnings) != len(want.Warnings)+1 || !strings.Contains(got.Warnings[len(got.Warnings)-1], "could not be written to disk") {
		t.Fatalf("warnings: %q", got.Warnings)
	}
	got.Warnings = want.Warnings
	a, _ := json.Marshal(got)
	b, _ := json.Marshal(want)
	if string(a) != string(b) {
		t.Fatalf("summary differs after a failed spill:\n%s", firstJSONDiff(string(a), string(b)))
	}
}

// summaryWithSessionOrds is summaryJSON over copies of results carrying a
// random injective session numbering with gaps, as Result.SessionOrd, and
// checks that the accumulator used it rather than its own table.
func summaryWithSessionOrds(t *testing.T, cfg Config, results []*replay.Result, seed uint64) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 77))
	ords := map[string]uint32{}
	used := map[uint32]bool{}
	numbered := make([]*replay.Result, len(results))
	for i, r := range results {
		c := *r
		o, ok := ords[c.SessionID]
		for !ok {
			o = 1 + uint32(rng.IntN(4*len(results)))
			if !used[o] {
				used[o], ords[c.SessionID], ok = true, o, true
			}
		}
		c.SessionOrd = o
		numbered[i] = &c
	}
	a := New(cfg)
	for _, r := range numbered {
		a.Add(r)
	}
	if a.replaySess != 1 || a.sessions.Len() != 0 {
		t.Fatalf("replay's session numbers not used: mode %d, %d sessions interned", a.replaySess, a.sessions.Len())
	}
	got, s := closeJSON(t, a)
	if err := s.Release(); err != nil {
		t.Fatal(err)
	}
	return got
}

// TestSpillReadFailureIsAnError: when the per-case data spilled to disk
// cannot be read back, the Summary says so through Err, so the evaluation
// pipeline (cmd/apeval's finish) refuses to give a verdict (exit 2) instead
// of computing figures with a hole in them.
func TestSpillReadFailureIsAnError(t *testing.T) {
	dir := t.TempDir()
	a := New(Config{SpillDir: dir, SpillBudget: 1 << 10})
	for _, r := range randomResults(3, 400) {
		a.Add(r)
	}
	if bytes, _ := a.pool.Spilled(); bytes == 0 {
		t.Fatal("nothing was spilled; the test needs a run larger than the budget")
	}
	// Break the spill file under the lists: close its descriptor behind the
	// pool's back (found through /proc, as the file has no name), so reading
	// it back fails as a failing disk would.
	closed := 0
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd to find the spill file's descriptor: %v", err)
	}
	for _, e := range fds {
		target, err := os.Readlink("/proc/self/fd/" + e.Name())
		if err != nil || !strings.HasPrefix(target, dir) {
			continue
		}
		if fd, err := strconv.Atoi(e.Name()); err == nil && syscall.Close(fd) == nil {
			closed++
		}
	}
	if closed == 0 {
		t.Fatalf("no open file under %s to break", dir)
	}
	s := a.Close()
	if s.Err() == nil {
		t.Fatal("Err() = nil after the spill file could not be read back; the figures would be computed on a hole")
	}
}

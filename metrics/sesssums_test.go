package metrics

import (
	"fmt"
	"slices"
	"testing"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/replay"
)

// contiguous reorders results so that each session's cases come together
// (sessions in the order they first appear; a case without a session is a
// session of its own), keeping each case's results together.
func contiguous(results []*replay.Result) []*replay.Result {
	first := map[string]int{}
	key := make([]int, len(results))
	for i, r := range results {
		s := r.SessionID
		if s == "" {
			s = "\x00" + r.CaseID
		}
		if _, ok := first[s]; !ok {
			first[s] = i
		}
		key[i] = first[s]
	}
	idx := make([]int, len(results))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return key[a] - key[b] })
	out := make([]*replay.Result, len(results))
	for i, k := range idx {
		out[i] = results[k]
	}
	return out
}

// closeWith closes an accumulator fed results, with its sessions' contiguity
// as found or forced off (then the per-session sums go through the window,
// and past sumsWindow sessions through the spill list).
func closeWith(t *testing.T, cfg Config, results []*replay.Result, forceScattered bool) (string, bool) {
	t.Helper()
	a := New(cfg)
	for _, r := range results {
		a.Add(r)
	}
	contig := a.contig
	if forceScattered {
		a.contig = false
	}
	got, s := closeJSON(t, a)
	if err := s.Release(); err != nil {
		t.Fatal(err)
	}
	return got, contig
}

// TestSessionSumsPaths: the per-session sums behind every clustered
// figure give the same Summary and comparison, bit for bit, whether each
// session is completed as the next begins (contiguous sessions), kept in a
// window, or spilled in sorted runs and added up at the end. Not parallel:
// it sets sumsWindow.
func TestSessionSumsPaths(t *testing.T) {
	defer func(n int) { sumsWindow = n }(sumsWindow)
	for seed := range uint64(2) {
		cfg := Config{Criteria: replay.DefaultKillCriteria(), Baseline: "A", Seed: seed,
			SpillBudget: 256 * 16, SpillDir: t.TempDir()}
		scattered := randomResults(seed, 300+int(seed)*100)
		grouped := contiguous(scattered)
		for name, results := range map[string][]*replay.Result{"scattered": scattered, "grouped": grouped} {
			sumsWindow = 1 << 17
			want, contig := closeWith(t, cfg, results, true)
			if contig != (name == "grouped") {
				t.Fatalf("seed %d, %s: contiguity found %v", seed, name, contig)
			}
			got, _ := closeWith(t, cfg, results, false)
			if got != want {
				t.Fatalf("seed %d, %s: summary with sessions completed in turn differs:\n%s", seed, name, firstJSONDiff(got, want))
			}
			sumsWindow = 7
			got, _ = closeWith(t, cfg, results, true)
			if got != want {
				t.Fatalf("seed %d, %s: summary with spilled session sums differs:\n%s", seed, name, firstJSONDiff(got, want))
			}
		}
	}
}

// TestSessionSumsBounded: at 200,000 sessions, as apeval run feeds the
// accumulator (cases numbered as they come, sessions by replay's numbers),
// no per-session sums hold more sessions in memory than a fixed window:
// contiguous sessions one at a time, the pooled comparison's sums (one pass
// per rule, so not contiguous) at most sumsWindow, the rest spilled. Counts
// the sessions held; measures no time. Not parallel: it sets sumsWindow.
func TestSessionSumsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	defer func(n int) { sumsWindow = n }(sumsWindow)
	const sessions, window = 200_000, 5_000
	sumsWindow = window
	cfg := Config{Criteria: replay.DefaultKillCriteria(), Baseline: "A", DistinctCases: true, SpillDir: t.TempDir()}
	a := New(cfg)
	r := &replay.Result{Rules: make([]replay.RuleResult, 2)}
	k := 0
	for s := range sessions {
		for i := range 1 + s%2 {
			for _, j := range []string{"A", "B"} {
				*r = replay.Result{RunID: "run", CaseID: fmt.Sprintf("c-%07d", k), SessionID: fmt.Sprintf("s-%06d", s),
					SessionOrd: uint32(s + 1), Seq: int64(i + 1), Judge: j, Rules: r.Rules[:2]}
				for ri, id := range []string{"det-a", "det-b"} {
					fired := (k+ri)%3 == 0 || (j == "B" && k%7 == 0)
					res := judge.NoMatch
					if fired {
						res = judge.Match
					}
					label := [...]datasets.Label{datasets.LabelMatch, datasets.LabelNoMatch, ""}[(k+ri)%3]
					r.Rules[ri] = replay.RuleResult{RuleID: id, RuleVersion: 1, Class: replay.ClassDangerous, Action: datasets.ActionDenyCurrentTool,
						Source: replay.SourceDeterministic, Result: res, Label: label, Status: judge.StatusOK, Fired: fired, Call: -1,
						BaselineResult: judge.Match}
				}
				a.Add(r)
			}
			k++
		}
	}
	if !a.contig {
		t.Fatal("sessions one after another not found contiguous")
	}
	sumsHeld.Store(0)
	s := a.Close()
	cmp := s.Compare("A", "B")
	if err := s.Err(); err != nil || cmp == nil {
		t.Fatalf("close: %v, comparison %v", err, cmp)
	}
	if held := sumsHeld.Load(); held > window {
		t.Fatalf("per-session sums held %d sessions at once (window %d, %d sessions)", held, window, sessions)
	}
	if n, _ := s.pool.Spilled(); n == 0 {
		t.Fatal("the pooled comparison's per-session sums were not spilled")
	}
	if err := s.Release(); err != nil {
		t.Fatal(err)
	}
}

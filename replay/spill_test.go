package replay

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/judge"
)

// shrinkSessions sets sessionsInMemory to n for the test.
func shrinkSessions(t testing.TB, n int) {
	old := sessionsInMemory
	sessionsInMemory = n
	t.Cleanup(func() { sessionsInMemory = old })
}

// The reader's table with room for a few sessions: a session evicted (once
// or several times) and coming back keeps its worker, ordinal and last
// seq, big seqs included, its seq order is still checked, and its worker
// is told of each eviction and reload with the ordinal and the epoch that
// holds its state.
func TestSessionTableSpills(t *testing.T) {
	shrinkSessions(t, blockSize+4)
	file := newSpillFile()
	defer file.Close()
	const workers = 3
	s := newSessionTable(workers, file)
	evicts, reloads := make([][]notice, workers), make([][]notice, workers)
	type info struct {
		w    int
		g    uint32
		last int64
	}
	want := map[string]info{}
	evicted := map[uint32]uint32{} // ordinal → epoch of its last eviction
	slotOf := map[uint32]uint32{}  // ordinal → slot in memory
	inMemory := map[uint32]bool{}
	evictions := map[uint32]int{}
	begin := func() {
		t.Helper()
		if err := s.beginBlock(evicts, reloads); err != nil {
			t.Fatal(err)
		}
		for w, ns := range evicts {
			for _, n := range ns {
				if !inMemory[n.g] || slotOf[n.g] != n.slot {
					t.Fatalf("eviction of session %d slot %d: not in memory there", n.g, n.slot)
				}
				if e := uint32(len(s.runs.runs) - 1); n.epoch != e {
					t.Fatalf("eviction epoch %d, want %d", n.epoch, e)
				}
				for _, v := range want {
					if v.g == n.g && v.w != w {
						t.Fatalf("session %d evicted from worker %d, owned by %d", n.g, w, v.w)
					}
				}
				inMemory[n.g] = false
				evicted[n.g] = n.epoch
				evictions[n.g]++
			}
		}
	}
	place := func(sess string, seq int64) error {
		t.Helper()
		w, slot, g, err := s.place(&datasets.Case{ID: fmt.Sprint(sess, "/", seq), SessionID: sess, Seq: seq, Source: "f:1"})
		for rw, ns := range reloads {
			for _, n := range ns {
				if inMemory[n.g] {
					continue // an earlier reload of this block
				}
				if ep, ok := evicted[n.g]; !ok || ep != n.epoch {
					t.Fatalf("reload of %d from epoch %d, evicted last in %d (%v)", n.g, n.epoch, ep, ok)
				}
				if err == nil && (n.g != g || rw != w || n.slot != slot) {
					t.Fatalf("reload notice %+v on worker %d for case of session %d (worker %d slot %d)", n, rw, g, w, slot)
				}
				inMemory[n.g], slotOf[n.g] = true, n.slot
			}
		}
		if err != nil {
			return err
		}
		v, seen := want[sess]
		if seen && (v.w != w || v.g != g) {
			t.Fatalf("%s: worker %d ordinal %d, want %d %d", sess, w, g, v.w, v.g)
		}
		if !seen {
			if g != uint32(len(want)) {
				t.Fatalf("%s: new session ordinal %d, want %d", sess, g, len(want))
			}
			inMemory[g], slotOf[g] = true, slot
		}
		if !inMemory[g] || slotOf[g] != slot {
			t.Fatalf("%s: slot %d, the table says %d (in memory %v)", sess, slot, slotOf[g], inMemory[g])
		}
		want[sess] = info{w, g, seq}
		return nil
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for blk := range 40 {
		begin()
		for i := range blockSize {
			// A few sessions come back again and again; the rest are new.
			sess := fmt.Sprint("new-", blk, "-", i)
			if rng.IntN(4) == 0 {
				sess = fmt.Sprint("old-", rng.IntN(50))
			}
			seq := int64(blk*blockSize + i)
			if rng.IntN(10) == 0 {
				seq += 1 << 40
			}
			if v, ok := want[sess]; ok && seq < v.last {
				seq = v.last // stays in order
			}
			if err := place(sess, seq); err != nil {
				t.Fatal(err)
			}
		}
		// A seq going back after the session was reloaded is still an error.
		if blk > 2 {
			sess := fmt.Sprint("old-", blk%50)
			if v, ok := want[sess]; ok && v.last > 0 {
				var se *SeqError
				if err := place(sess, v.last-1); !errors.As(err, &se) || se.Prev != v.last {
					t.Fatalf("%s seq %d after %d: err %v", sess, v.last-1, v.last, err)
				}
			}
		}
	}
	if len(s.runs.runs) < 10 {
		t.Fatalf("%d runs: the table did not spill", len(s.runs.runs))
	}
	many := 0
	for _, n := range evictions {
		if n > 2 {
			many++
		}
	}
	if many == 0 {
		t.Fatal("no session evicted more than twice")
	}
	// The limit holds before each block; a block may add its own sessions.
	if limit := max(sessionsInMemory, sessionsInMemory/2+blockSize+1); len(s.ents) > limit {
		t.Fatalf("%d sessions in memory, limit %d", len(s.ents), limit)
	}
}

// spillPolicy has every kind of per-session state (a boundary's
// crossings, a max_fires count, a judged condition's fires with
// max_fires).
const spillPolicy = groupedPolicy + `
[[rule]]
id = "nl-twice"
condition = "pushes something"
action = "audit_only"
class = "audit"
max_fires = 2
[rule.when]
command_prefix = ["git"]
`

// interleavedCases is n cases of sessions interleaved at random (a few
// live at once, some coming back after long gaps), each case a URL fetch,
// a git command or an rm, with the odd big seq.
func interleavedCases(n int, seed uint64) []*datasets.Case {
	rng := rand.New(rand.NewPCG(seed, seed+1))
	last := map[int]int64{}
	var out []*datasets.Case
	for k := range n {
		s := rng.IntN(40) + 40*(k/500) // 40 live sessions, a new set every 500 cases
		if rng.IntN(8) == 0 {
			s = rng.IntN(40 * (k/500 + 1)) // an old one comes back
		}
		var c *datasets.Case
		switch rng.IntN(3) {
		case 0:
			c = call("WebFetch", "network", "url", "https://example.com/x")
		case 1:
			c = bash("git push")
		default:
			c = bash("rm -rf x")
		}
		seq := last[s] + int64(rng.IntN(2))
		if rng.IntN(50) == 0 {
			seq += 1 << 35
		}
		last[s] = seq
		c.ID, c.SessionID, c.Seq = fmt.Sprintf("c-%d", k), fmt.Sprintf("s-%d", s), seq
		c.Source = fmt.Sprintf("f.jsonl:%d", k+1)
		out = append(out, c)
	}
	return out
}

// TestSpilledSessionsSameResults: replay with room for only 16 sessions in
// memory (state evicted to disk and read back all the time) gives exactly
// the results of replay with every session in memory, session numbers and
// stateful rules included, also for a grouped file that goes on with
// evicted sessions.
func TestSpilledSessionsSameResults(t *testing.T) {
	p := mustPolicy(t, spillPolicy)
	cases := interleavedCases(6000, 7)
	mixed := groupedCases(300, false)
	for _, c := range mixed[len(mixed)/2:] {
		c.SetGroupedFile(1)
	}
	for name, cases := range map[string][]*datasets.Case{"interleaved": cases, "mixed": mixed} {
		t.Run(name, func(t *testing.T) {
			want, err := runCases(t, p, cases)
			if err != nil {
				t.Fatal(err)
			}
			shrinkSessions(t, 16)
			got, err := runCases(t, p, cases)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("%d results, want %d", len(got), len(want))
			}
			fired := 0
			for i := range got {
				if !reflect.DeepEqual(got[i], want[i]) {
					t.Fatalf("result %d differs:\ngot  %+v\nwant %+v", i, got[i], want[i])
				}
				for _, r := range got[i].Rules {
					if r.Fired {
						fired++
					}
				}
			}
			if fired == 0 {
				t.Fatal("no rule fired: the comparison sees no state")
			}
		})
	}
}

// With room for a few sessions, a seq going back in a session that was
// evicted and read back stops the run with the same SeqError.
func TestSpilledSessionSeqError(t *testing.T) {
	p := mustPolicy(t, spillPolicy)
	cases := interleavedCases(3000, 9)
	// A case of session s-0 (long evicted) with a seq before its last.
	var prev int64 = -1
	for _, c := range cases {
		if c.SessionID == "s-0" {
			prev = c.Seq
		}
	}
	if prev < 1 {
		t.Skip("s-0 has no seq to go back from")
	}
	back := bash("ls")
	back.ID, back.SessionID, back.Seq, back.Source = "back", "s-0", prev-1, "f.jsonl:9999"
	cases = append(cases, back)
	shrinkSessions(t, 16)
	_, err := Run(context.Background(), p, sliceNext(cases), []judge.Judge{answer(judge.Match)}, Options{Concurrency: 2}, func(*Result) error { return nil })
	var se *SeqError
	if !errors.As(err, &se) || se.Prev != prev || se.Seq != prev-1 {
		t.Fatalf("err %v, want a SeqError (seq %d after %d)", err, prev-1, prev)
	}
}

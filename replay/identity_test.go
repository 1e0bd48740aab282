package replay

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/judge"
)

// Sessions are told apart by their ids, not by a hash: with every id
// hashing alike (as two colliding ids once did), two sessions keep their
// own seq order, their own worker-local index and so their own fire
// counts.
func TestSessionStateIsExact(t *testing.T) {
	t.Parallel()
	p := mustPolicy(t, `
[[rule]]
id = "once"
class = "always"
action = "inject_instruction"
max_fires = 1
`)
	s := newSessionTable(1, newSpillFile())
	s.hash = func(string) uint64 { return 42 }
	j := failing(judge.StatusError)
	e := newReplayer(p, j, j.Identity(), &Options{}, &counters{})
	mk := func(id, session string, seq int64) *datasets.Case {
		c := bash("ls")
		c.ID, c.SessionID, c.Seq = id, session, seq
		return c
	}
	replay := func(c *datasets.Case) (*Result, error) {
		t.Helper()
		_, local, _, err := s.place(c)
		if err != nil {
			return nil, err
		}
		return e.replay(context.Background(), c, local, nil)
	}
	ra, err := replay(mk("a1", "a", 5))
	if err != nil {
		t.Fatal(err)
	}
	// With state keyed by the hash, b (seq 1) would come "after" a's seq 5
	// and its max_fires = 1 would already be spent.
	rb, err := replay(mk("b1", "b", 1))
	if err != nil {
		t.Fatalf("session b shares session a's state: %v", err)
	}
	if !ra.Rules[0].Fired || !rb.Rules[0].Fired {
		t.Errorf("fired a=%v b=%v, want both (max_fires is per session)", ra.Rules[0].Fired, rb.Rules[0].Fired)
	}
	// Within one session the order check still holds, and the count too.
	var se *SeqError
	if _, err := replay(mk("a2", "a", 4)); !errors.As(err, &se) || se.Prev != 5 {
		t.Errorf("seq going back in session a: err %v", err)
	}
	if ra2, err := replay(mk("a3", "a", 5)); err != nil || len(ra2.Rules) != 0 {
		t.Errorf("session a after its one fire: %+v, %v (want the rule out of scope)", ra2, err)
	}
}

// The order check holds for seqs beyond 32 bits (the reader once kept them
// apart from the others).
func TestSessionTableBigSeq(t *testing.T) {
	t.Parallel()
	s := newSessionTable(2, newSpillFile())
	c := func(session string, seq int64) *datasets.Case {
		return &datasets.Case{ID: fmt.Sprint(session, seq), SessionID: session, Seq: seq}
	}
	steps := []struct {
		session string
		seq     int64
		ok      bool
	}{
		{"a", 1, true}, {"b", 1 << 40, true}, {"a", 1<<32 - 1, true}, {"a", 1<<32 - 2, false},
		{"a", 1 << 33, true}, {"a", 1<<33 - 1, false}, {"b", 1<<40 + 1, true}, {"b", 7, false},
		{"a", 1 << 33, true}, {"c", 0, true}, {"c", 0, true},
	}
	for i, st := range steps {
		_, _, _, err := s.place(c(st.session, st.seq))
		var se *SeqError
		if st.ok != (err == nil) || err != nil && !errors.As(err, &se) {
			t.Errorf("step %d (%s, seq %d): err %v, want ok=%v", i, st.session, st.seq, err, st.ok)
		}
	}
}

// Workers start with their first session: the largest --concurrency on a
// handful of cases runs a handful of workers, not 4 × 1024 goroutines.
func TestWorkersBoundedByTheWork(t *testing.T) {
	p := mustPolicy(t, `
[[rule]]
id = "a"
class = "always"
action = "audit_only"
`)
	var cases []*datasets.Case
	for i := range 5 {
		c := bash("ls")
		c.ID, c.SessionID = fmt.Sprint("c", i), fmt.Sprint("s", i)
		cases = append(cases, c)
	}
	i, peak := 0, 0
	next := func() (*datasets.Case, bool) {
		if i == len(cases) {
			return nil, false
		}
		i++
		return cases[i-1], true
	}
	before := runtime.NumGoroutine()
	_, err := Run(context.Background(), p, next, []judge.Judge{answer("match")}, Options{Concurrency: MaxConcurrency}, func(*Result) error {
		peak = max(peak, runtime.NumGoroutine())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if extra := peak - before; extra > 20 {
		t.Errorf("%d goroutines for 5 sessions at concurrency %d", extra, MaxConcurrency)
	}
}

// A block whose every case goes back in its session reaches no worker; it
// still ends the run with the first one's error, after the cases before it.
func TestRunSeqErrorFillsABlock(t *testing.T) {
	t.Parallel()
	p := mustPolicy(t, runPolicy)
	var cases []*datasets.Case
	for i := range 2 * blockSize {
		c := bash("ls")
		c.ID, c.SessionID, c.Seq = fmt.Sprint(i), "a", int64(blockSize-i%blockSize)
		if i < blockSize {
			c.Seq = int64(blockSize + i)
		}
		cases = append(cases, c)
	}
	emitted := 0
	done := make(chan error, 1)
	go func() {
		_, err := Run(context.Background(), p, sliceNext(cases), []judge.Judge{answer(judge.NoMatch)}, Options{Concurrency: 2}, func(*Result) error {
			emitted++
			return nil
		})
		done <- err
	}()
	select {
	case err := <-done:
		var se *SeqError
		if !errors.As(err, &se) || se.Seq != blockSize || se.Prev != 2*blockSize-1 || emitted != blockSize {
			t.Errorf("err %v, %d emitted; want a seq error after %d", err, emitted, blockSize)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Run hangs on a block with no case for any worker")
	}
}

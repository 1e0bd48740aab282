package replay

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"testing"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/judge"
)

// Sessions are told apart by their ids, not by the hash that routes them:
// two sessions handed over with the same hash (as two colliding ids once
// were) keep their own seq order and fire counts.
func TestSessionStateIsExact(t *testing.T) {
	p := mustPolicy(t, `
[[rule]]
id = "once"
class = "always"
action = "inject_instruction"
max_fires = 1
`)
	j := failing(judge.StatusError)
	e := newReplayer(p, j, j.Identity(), &Options{}, &counters{})
	const sameHash = 42
	a, b := bash("ls"), bash("ls")
	a.ID, a.SessionID, a.Seq = "a1", "a", 5
	b.ID, b.SessionID, b.Seq = "b1", "b", 1
	ra, err := e.replay(context.Background(), a, sameHash, nil)
	if err != nil {
		t.Fatal(err)
	}
	// With state keyed by the hash, b (seq 1) would come "after" a's seq 5
	// and its max_fires = 1 would already be spent.
	rb, err := e.replay(context.Background(), b, sameHash, nil)
	if err != nil {
		t.Fatalf("session b shares session a's state: %v", err)
	}
	if !ra.Rules[0].Fired || !rb.Rules[0].Fired {
		t.Errorf("fired a=%v b=%v, want both (max_fires is per session)", ra.Rules[0].Fired, rb.Rules[0].Fired)
	}
	// Within one session the order check still holds.
	a2 := bash("ls")
	a2.ID, a2.SessionID, a2.Seq = "a2", "a", 4
	var se *SeqError
	if _, err := e.replay(context.Background(), a2, sameHash, nil); !errors.As(err, &se) || se.Prev != 5 {
		t.Errorf("seq going back in session a: err %v", err)
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

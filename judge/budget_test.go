package judge

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// tokenJudge answers every call after a pause, reporting the given usage.
type tokenJudge struct {
	calls              atomic.Int64
	prompt, completion int
	attempts           int
}

func (j *tokenJudge) Identity() Identity { return Identity{Backend: "test", Model: "t"} }
func (j *tokenJudge) Judge(ctx context.Context, req Request) Response {
	j.calls.Add(1)
	time.Sleep(time.Millisecond)
	return Response{Status: StatusOK, Attempts: max(j.attempts, 1),
		Server: ServerTimings{PromptTokens: j.prompt, CompletionTokens: j.completion}}
}

func budgetInput() Input {
	return Input{Version: 1, Rules: []Rule{{ID: "r1", Condition: "c"}}}
}

// 8 goroutines, 100 calls, --max-calls 10: exactly 10 reach the judge, the
// rest come back not sent, and onStop is told once.
func TestBudgetMaxCallsUnderConcurrency(t *testing.T) {
	t.Parallel()
	inner := &tokenJudge{}
	var stops atomic.Int64
	var reason string
	b := NewBudget(10, 0, 0, func(r string) { stops.Add(1); reason = r })
	j := b.Limit(inner, nil)
	var wg sync.WaitGroup
	var refused atomic.Int64
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 13; i++ {
				if r := j.Judge(context.Background(), Request{Input: budgetInput()}); strings.HasPrefix(r.Error, NotSent) {
					refused.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if inner.calls.Load() != 10 || refused.Load() != 104-10 {
		t.Fatalf("sent %d (want 10), refused %d (want 94)", inner.calls.Load(), refused.Load())
	}
	if stops.Load() != 1 || reason != "--max-calls 10 reached" || b.Stopped() != reason {
		t.Fatalf("onStop %d times, reason %q", stops.Load(), reason)
	}
	if rep := b.Report(); rep.Calls != 10 || rep.Stopped == "" {
		t.Fatalf("report %+v", rep)
	}
}

// With --retries 2 a call holds 3 requests while it runs and gives back
// the two it did not use.
func TestBudgetHoldsRetries(t *testing.T) {
	t.Parallel()
	inner := &tokenJudge{}
	b := NewBudget(7, 0, 2, nil)
	j := b.Limit(inner, nil)
	for i := 0; i < 10; i++ {
		j.Judge(context.Background(), Request{Input: budgetInput()})
	}
	// 5 one-attempt calls use 5; the sixth needs 3 of the 2 left: refused.
	if inner.calls.Load() != 5 {
		t.Fatalf("sent %d, want 5", inner.calls.Load())
	}
	if s := b.Stopped(); !strings.Contains(s, "2 left") {
		t.Fatalf("reason %q", s)
	}
}

// --budget-usd: the calls' real token costs are spent, and no call starts
// when its estimate would pass the budget.
func TestBudgetUSD(t *testing.T) {
	t.Parallel()
	// 1,000 prompt and 100 completion tokens at $1 / $10 per million:
	// $0.002 a call.
	inner := &tokenJudge{prompt: 1000, completion: 100}
	b := NewBudget(0, 0.01, 0, nil)
	j := b.Limit(inner, &Prices{In: 1, Out: 10})
	for i := 0; i < 20; i++ {
		j.Judge(context.Background(), Request{Input: budgetInput()})
	}
	rep := b.Report()
	if rep.USD > 0.01+1e-12 {
		t.Fatalf("spent %g past the budget", rep.USD)
	}
	// After the first call the estimate is calibrated to $0.002: five fit.
	if inner.calls.Load() != 5 || rep.Unmetered != 0 || !strings.Contains(rep.Stopped, "--budget-usd") {
		t.Fatalf("sent %d, report %+v", inner.calls.Load(), rep)
	}
}

// Under a call budget alone no call is unmetered: only a cost budget
// needs token counts.
func TestBudgetCallsAloneCountNoUnmetered(t *testing.T) {
	t.Parallel()
	inner := &tokenJudge{}
	b := NewBudget(5, 0, 0, nil)
	j := b.Limit(inner, nil)
	for i := 0; i < 8; i++ {
		j.Judge(context.Background(), Request{Input: budgetInput()})
	}
	if rep := b.Report(); rep.Calls != 5 || rep.Unmetered != 0 || rep.Stopped == "" {
		t.Fatalf("report %+v, want 5 calls, stopped, none unmetered", rep)
	}
}

// A judge that reports no token counts is not free: each call costs its
// size-based estimate and is counted as unmetered.
func TestBudgetUnmeteredIsNotFree(t *testing.T) {
	t.Parallel()
	inner := &tokenJudge{}
	b := NewBudget(0, 0.01, 0, nil)
	j := b.Limit(inner, &Prices{In: 1, Out: 10})
	for i := 0; i < 100; i++ {
		j.Judge(context.Background(), Request{Input: budgetInput()})
	}
	rep := b.Report()
	n := inner.calls.Load()
	if n == 0 || n >= 100 || rep.Unmetered != n || rep.USD <= 0 || rep.USD > 0.01 {
		t.Fatalf("sent %d, report %+v", n, rep)
	}
}

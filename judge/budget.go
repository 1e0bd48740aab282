package judge

import (
	"context"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/apeval/apeval/judge/core"
)

// NotSent starts the error of a call a Budget refused: it never reached
// the judge's server. The command leaves such calls' cases out of the run
// (they are not finished work) and reports the run as partial.
const NotSent = "not sent: "

// Prices are a judge's prices in currency units per million prompt (In)
// and completion (Out) tokens.
type Prices struct{ In, Out float64 }

// cost is the price of a call's tokens.
func (p Prices) cost(prompt, completion float64) float64 {
	return (prompt*p.In + completion*p.Out) / 1e6
}

// Budget bounds what a run sends to its live judges: at most MaxCalls
// requests (--max-calls) and at most MaxUSD of tokens at the judges'
// prices (--budget-usd). It fails closed: a call takes its share before
// it is sent — one request, or 1+Retries while retries may follow, and
// its estimated cost — and gives back what it did not use when it returns,
// so at any concurrency no more than MaxCalls requests leave and an
// estimate never lets spending pass MaxUSD. The first call refused stops
// the budget for good: every later call is refused too, and onStop (the
// command's "stop feeding cases") is told once why.
//
// A call's estimated cost before it is sent is its input's size at three
// bytes a token plus the prompt's, and 30 completion tokens a rule plus 20,
// scaled by what the judge's calls so far really cost against their
// estimates. A call that returns token counts costs what they say; one
// that returns none (a server that reports no usage, a failure) keeps its
// estimate — counted, never free — and is counted in Unmetered.
type Budget struct {
	maxCalls int64
	maxUSD   float64
	retries  int64
	onStop   func(reason string)

	mu       sync.Mutex
	sent     int64   // requests held or used
	spent    float64 // settled costs
	held     float64 // estimates of calls in flight
	stopped  string  // why the budget stopped, "" while it runs
	stopOnce sync.Once

	unmetered atomic.Int64
}

// NewBudget returns a budget of maxCalls requests (0: no limit) and maxUSD
// (0: no limit) for judges retrying up to retries times; onStop may be nil.
func NewBudget(maxCalls int64, maxUSD float64, retries int, onStop func(reason string)) *Budget {
	return &Budget{maxCalls: maxCalls, maxUSD: maxUSD, retries: int64(retries), onStop: onStop}
}

// Stopped is why the budget stopped sending ("" while it has not).
func (b *Budget) Stopped() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.stopped
}

// Report is the budget's state.
func (b *Budget) Report() BudgetReport {
	b.mu.Lock()
	defer b.mu.Unlock()
	return BudgetReport{MaxCalls: b.maxCalls, MaxUSD: b.maxUSD, Calls: b.sent, USD: b.spent + b.held,
		Unmetered: b.unmetered.Load(), Stopped: b.stopped}
}

// Limit puts j under the budget. prices may be nil only without MaxUSD. A
// judge that calls no model (not IsLive: recorded, none) is left as it is.
func (b *Budget) Limit(j Judge, prices *Prices) Judge {
	if !IsLive(j) {
		return j
	}
	return &budgeted{judge: j, b: b, prices: prices}
}

// budgeted is a judge whose calls take their share of a Budget first.
type budgeted struct {
	judge  Judge
	b      *Budget
	prices *Prices

	mu             sync.Mutex
	actual, guessd float64 // metered calls: real cost and their estimates
}

func (bj *budgeted) Identity() Identity { return bj.judge.Identity() }
func (bj *budgeted) Unwrap() Judge      { return bj.judge }

func (bj *budgeted) Details() map[string]string {
	if d, ok := bj.judge.(Describer); ok {
		return d.Details()
	}
	return nil
}

func (bj *budgeted) Close() error {
	if c, ok := bj.judge.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// promptBytes is what the prompt adds to the input (the built-in prompt's
// text is about 1,700 bytes).
const promptBytes = 2000

// estimate is the call's cost before it is sent, and its size-based guess.
func (bj *budgeted) estimate(in Input) (est, guess float64) {
	if bj.prices == nil {
		return 0, 0
	}
	var c Canonical
	n := len(c.AppendInput(nil, in))
	guess = bj.prices.cost(float64(n+promptBytes)/3, float64(30*len(in.Rules)+20))
	bj.mu.Lock()
	defer bj.mu.Unlock()
	if bj.guessd > 0 {
		return guess * bj.actual / bj.guessd, guess
	}
	return guess, guess
}

func (bj *budgeted) Judge(ctx context.Context, req Request) Response {
	b := bj.b
	est, guess := bj.estimate(req.Input)
	calls, hold := 1+b.retries, est*float64(1+b.retries)
	b.mu.Lock()
	switch {
	case b.stopped != "":
	case b.maxCalls > 0 && b.sent+calls > b.maxCalls:
		if b.sent < b.maxCalls && calls > 1 {
			b.stopped = fmt.Sprintf("--max-calls %d: %d left, a call with --retries %d needs %d", b.maxCalls, b.maxCalls-b.sent, b.retries, calls)
		} else {
			b.stopped = fmt.Sprintf("--max-calls %d reached", b.maxCalls)
		}
	case b.maxUSD > 0 && b.spent+b.held+hold > b.maxUSD:
		b.stopped = fmt.Sprintf("--budget-usd %s reached (spent %s, the next call's estimate %s)",
			usd(b.maxUSD), usd(b.spent+b.held), usd(hold))
	}
	if reason := b.stopped; reason != "" {
		b.mu.Unlock()
		b.stopOnce.Do(func() {
			if b.onStop != nil {
				b.onStop(reason)
			}
		})
		return Response{Status: StatusError, Cause: CauseBudget, Error: NotSent + "budget " + reason}
	}
	b.sent += calls
	b.held += hold
	b.mu.Unlock()

	resp := bj.judge.Judge(ctx, req)

	used := int64(max(resp.Attempts, 1))
	cost := est * float64(used)
	metered := resp.Server.PromptTokens > 0 || resp.Server.CompletionTokens > 0
	if metered && bj.prices != nil {
		cost = bj.prices.cost(float64(resp.Server.PromptTokens), float64(resp.Server.CompletionTokens))
		bj.mu.Lock()
		bj.actual += cost
		bj.guessd += guess
		bj.mu.Unlock()
	} else if !metered && bj.b.maxUSD > 0 {
		// Only a cost budget needs token counts: under --max-calls alone
		// an unmetered call is no estimate.
		bj.b.unmetered.Add(1)
	}
	b.mu.Lock()
	b.sent -= calls - min(used, calls)
	b.held -= hold
	b.spent += cost
	b.mu.Unlock()
	return resp
}

func usd(v float64) string { return "$" + core.USD(v) }

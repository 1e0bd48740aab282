package main

import (
	"sync/atomic"

	"github.com/spf13/pflag"

	"github.com/apeval/apeval/internal/config"
	"github.com/apeval/apeval/judge"
)

// budgetFlags bound what a run sends to its live judges.
type budgetFlags struct {
	MaxCalls  int64
	BudgetUSD float64

	budget  *judge.Budget
	stopped atomic.Bool // the budget refused a call: feed no more cases
}

func (f *budgetFlags) register(fs *pflag.FlagSet) {
	fs.Int64Var(&f.MaxCalls, "max-calls", 0, "send at most `N` judge requests (cache hits are free); when reached the run stops, keeps its finished cases, is marked partial and exits 2")
	fs.Float64Var(&f.BudgetUSD, "budget-usd", 0, "spend at most `X` on live judges at their prices (price_in/price_out); when reached the run stops like --max-calls")
}

func (f *budgetFlags) validate(retries int) error {
	if f.MaxCalls < 0 {
		return usagef("--max-calls must not be negative, got %d", f.MaxCalls)
	}
	if f.BudgetUSD < 0 {
		return usagef("--budget-usd must not be negative, got %g", f.BudgetUSD)
	}
	if f.MaxCalls > 0 && f.MaxCalls < int64(retries)+1 {
		return usagef("--max-calls %d cannot hold one call with --retries %d (a call holds %d requests while it may retry)", f.MaxCalls, retries, retries+1)
	}
	return nil
}

// start makes the run's budget (none without --max-calls and
// --budget-usd) when a run starts, not when its flags are checked: each run
// of the same options counts from zero.
func (f *budgetFlags) start(retries int) {
	f.budget = nil
	f.stopped.Store(false)
	if f.MaxCalls > 0 || f.BudgetUSD > 0 {
		f.budget = judge.NewBudget(f.MaxCalls, f.BudgetUSD, retries, func(string) { f.stopped.Store(true) })
	}
}

// limit puts a live judge under the budget; --budget-usd needs its prices.
func (f *budgetFlags) limit(j judge.Judge, spec string, p config.Prices) (judge.Judge, error) {
	if f.budget == nil || !judge.IsLive(j) {
		return j, nil
	}
	var prices *judge.Prices
	if f.BudgetUSD > 0 {
		if p.In == nil && p.Out == nil {
			return nil, usagef("--budget-usd: judge %s has no prices (price_in / price_out in its [[judge]] table, or --judge-option price_in=…)", spec)
		}
		prices = &judge.Prices{}
		if p.In != nil {
			prices.In = *p.In
		}
		if p.Out != nil {
			prices.Out = *p.Out
		}
	}
	return f.budget.Limit(j, prices), nil
}

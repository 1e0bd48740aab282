package main

import (
	"github.com/spf13/pflag"

	"github.com/apeval/apeval/internal/runplan"
)

// registerBudget defines --max-calls and --budget-usd.
func registerBudget(fs *pflag.FlagSet, f *runplan.Budget) {
	fs.Int64Var(&f.MaxCalls, "max-calls", 0, "send at most `N` judge requests (cache hits are free); when reached the run stops, keeps its finished cases, is marked partial and exits 2")
	fs.Float64Var(&f.BudgetUSD, "budget-usd", 0, "spend at most `X` on live judges at their prices (price_in/price_out); when reached the run stops like --max-calls")
}

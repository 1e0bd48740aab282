package replay

import (
	"sync"

	"github.com/apeval/apeval/judge/core"
)

// BudgetCut leaves out of a run the results a budget stopped (--max-calls,
// --budget-usd): a case with a call that was not sent (core.CauseBudget)
// is not finished work, and neither is any later case of its session for
// that judge (its trajectory state would lack the stopped case). The zero
// value is ready; it is safe for concurrent use.
type BudgetCut struct {
	mu      sync.Mutex
	cut     map[[2]string]bool // judge, session
	dropped int64
	// cases counts the cases with a result left out; a case's results are
	// emitted together, so a new case ID is a new case.
	cases    int64
	lastCase string
}

// Drop reports whether r is to be left out, and counts it when it is.
func (c *BudgetCut) Drop(r *Result) bool {
	key := [2]string{r.Judge, r.SessionID}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cut[key] {
		c.count(r)
		return true
	}
	for i := range r.Calls {
		if r.Calls[i].Cause == core.CauseBudget {
			if c.cut == nil {
				c.cut = map[[2]string]bool{}
			}
			c.cut[key] = true
			c.count(r)
			return true
		}
	}
	return false
}

// count counts a dropped result, and its case when it is the case's first.
func (c *BudgetCut) count(r *Result) {
	c.dropped++
	if c.cases == 0 || r.CaseID != c.lastCase {
		c.cases++
		c.lastCase = r.CaseID
	}
}

// DroppedCases is the number of cases with a result Drop left out (for
// some judge, or all of them).
func (c *BudgetCut) DroppedCases() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cases
}

// Dropped is the number of results Drop left out.
func (c *BudgetCut) Dropped() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dropped
}

package replay

import (
	"testing"

	"github.com/apeval/apeval/judge/core"
)

func TestBudgetCutDropsTheStoppedCaseAndTheRestOfItsSession(t *testing.T) {
	sent := func(judge, session string) *Result {
		return &Result{Judge: judge, SessionID: session, Calls: []Call{{Status: core.StatusOK}}}
	}
	stopped := func(judge, session string) *Result {
		return &Result{Judge: judge, SessionID: session, Calls: []Call{
			{Status: core.StatusOK},
			{Status: core.StatusError, Cause: core.CauseBudget, Error: "not sent: budget max-calls 3"},
		}}
	}
	failed := &Result{Judge: "a", SessionID: "s3", Calls: []Call{{Status: core.StatusTimeout, Cause: core.CauseTimeout}}}
	var c BudgetCut
	steps := []struct {
		r    *Result
		drop bool
	}{
		{sent("a", "s1"), false},
		{stopped("a", "s1"), true},
		{sent("a", "s1"), true},  // later case of the cut session, same judge
		{sent("b", "s1"), false}, // another judge's trajectory is whole
		{sent("a", "s2"), false}, // another session
		{failed, false},          // a timeout is a finished (failed) call, not a stopped one
		{&Result{Judge: "a", SessionID: "s4"}, false},
	}
	for i, s := range steps {
		if got := c.Drop(s.r); got != s.drop {
			t.Errorf("step %d (%s/%s): Drop = %v, want %v", i, s.r.Judge, s.r.SessionID, got, s.drop)
		}
	}
	if got := c.Dropped(); got != 2 {
		t.Errorf("Dropped = %d, want 2", got)
	}
}

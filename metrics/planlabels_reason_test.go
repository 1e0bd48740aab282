package metrics

import (
	"fmt"
	"strings"
	"testing"

	"github.com/apeval/apeval/replay"
)

// TestPlanLabelsReasonCountsTheRulesPairs: where no number of labels
// decides a rule, the reason counts that rule's pairs (every one of which
// the whole queue labels), not every rule's: with a second rule of 150
// pairs beside rule r's, "labeling all N pairs" said N = both rules'.
func TestPlanLabelsReasonCountsTheRulesPairs(t *testing.T) {
	t.Parallel()
	ps := simPopulationSeed(5)[:400]
	tab := NewPairTable(nil, nil)
	for _, p := range ps {
		label := "no_match"
		if p.pos {
			label = "match"
		}
		rules := []replay.RuleResult{rr("r", "style", "judge", res(p.c), label, "ok", p.c, 0)}
		if len(tab.order) < 2*150 {
			rules = append(rules, rr("s", "style", "judge", res(p.r), label, "ok", p.r, 0))
		}
		tab.Add(&replay.Result{CaseID: p.id, SessionID: p.session, Judge: "C", Rules: rules})
	}
	var nr, ns int
	for _, p := range tab.order {
		switch p.RuleID {
		case "r":
			nr++
		case "s":
			ns++
		}
	}
	// The threshold at rule r's own precision: no labels decide it.
	var tp, fp float64
	for _, p := range ps {
		if p.c && p.pos {
			tp++
		} else if p.c {
			fp++
		}
	}
	crit := replay.DefaultKillCriteria()
	crit.PrecisionMin = tp / (tp + fp)
	plans, err := PlanLabels(tab, crit, LabelPlanOptions{Reps: 4, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"r": nr, "s": ns}
	for _, p := range plans {
		if p.Labels != nil {
			if p.Rule == "r" {
				t.Errorf("rule r is decided by %d labels against its own precision %.3f", *p.Labels, crit.PrecisionMin)
			}
			continue
		}
		if w := fmt.Sprintf("labeling all %d pairs of the rule (the whole queue: %d labels over every rule)", want[p.Rule], nr+ns); !strings.Contains(p.Reason, w) {
			t.Errorf("rule %s (%d pairs of %d): reason %q, want %q", p.Rule, want[p.Rule], nr+ns, p.Reason, w)
		}
	}
	if len(plans) != 2 || nr == ns || nr+ns != len(tab.order) {
		t.Errorf("%d plans; rule pairs %d and %d", len(plans), nr, ns)
	}
}

// TestPlanLabelsBudgetBeyondThePairs: a label budget above the pilot's
// pairs cannot be simulated (its queues hold every pair at most): an
// error naming the flag and the most it takes, before any simulation
// (--labels 1000000000 ran for minutes and printed shares "with
// 1000000000 labels").
func TestPlanLabelsBudgetBeyondThePairs(t *testing.T) {
	t.Parallel()
	tab := simTable(simPopulationSeed(5)[:200])
	n := len(tab.order)
	crit := replay.DefaultKillCriteria()
	if _, err := PlanLabels(tab, crit, LabelPlanOptions{Budget: 1_000_000_000, Reps: 10, Seed: 1}); err == nil ||
		!strings.Contains(err.Error(), fmt.Sprintf("--labels 1000000000: the pilot has %d pairs to label", n)) ||
		!strings.Contains(err.Error(), fmt.Sprintf("plan at most --labels %d", n)) {
		t.Errorf("budget 1e9 over %d pairs: %v", n, err)
	}
	var steps []string
	plans, err := PlanLabels(tab, crit, LabelPlanOptions{Budget: n, Baseline: "R", Reps: 10, Seed: 1, Progress: func(_ int, what string) { steps = append(steps, what) }})
	if err != nil || len(plans) == 0 || plans[0].BudgetPass == nil {
		t.Fatalf("budget of every pair: %+v %v", plans, err)
	}
	// Progress names each size simulated and ends with "" (done).
	if len(steps) < 3 || !strings.Contains(steps[0], "simulating queues of ") || !strings.Contains(steps[len(steps)-2], fmt.Sprintf("at the budget of %d labels", n)) || steps[len(steps)-1] != "" {
		t.Errorf("progress: %q", steps)
	}
}

// TestPlanProgressNamesEachSize: a plan from guesses tells Progress each
// size it simulates (a plan near its threshold runs for many seconds)
// and ends with "".
func TestPlanProgressNamesEachSize(t *testing.T) {
	t.Parallel()
	var steps []string
	g := PlanGuesses{Rates: map[string]float64{CriterionPrecisionMin: 0.95}, SessionSize: 1}
	plans, err := Plan(replay.DefaultKillCriteria(), g, PlanOptions{Reps: 10, Seed: 1, Progress: func(_ int, what string) { steps = append(steps, what) }})
	if err != nil || len(plans) != 1 || plans[0].Sessions == nil {
		t.Fatalf("%+v %v", plans, err)
	}
	if len(steps) < 3 || steps[0] != "precision_min at 2 sessions" || steps[len(steps)-1] != "" {
		t.Errorf("progress: %q", steps)
	}
}

// TestMoreSessionsSaysOneSession: a label plan's reason asks for "about 1
// more session of traffic", not "1 more sessions" (a 40-session pilot
// of the sample printed that).
func TestMoreSessionsSaysOneSession(t *testing.T) {
	t.Parallel()
	if got := moreSessions(1); got != "1 more session" {
		t.Errorf("got %q", got)
	}
	if got := moreSessions(64); got != "64 more sessions" {
		t.Errorf("got %q", got)
	}
}

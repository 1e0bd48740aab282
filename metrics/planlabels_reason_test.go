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

package metrics

import (
	"fmt"
	"testing"

	"github.com/apeval/apeval/replay"
)

// TestFirstStagesOneQueue: the first stages of two rules are one
// `label queue` with both --rule, and that queue holds exactly the two
// rules' own queues' labels added (a --reach queue fills each stratum of
// each rule on its own); one rule, or stages that differ in their reach,
// give no joined command.
func TestFirstStagesOneQueue(t *testing.T) {
	t.Parallel()
	tab := NewPairTable(nil, nil)
	add := func(rule string, n int, r1, r2 string) {
		for i := range n {
			id := fmt.Sprintf("%s-%s-%s-%d", rule, r1, r2, i)
			for _, j := range []struct{ id, res string }{{"J1", r1}, {"J2", r2}} {
				tab.Add(&replay.Result{CaseID: id, SessionID: id, Judge: j.id, Rules: []replay.RuleResult{rr(rule, "style", "judge", j.res, "", "ok", false, -1)}})
			}
		}
	}
	add("r1", 25, "match", "no_match")
	add("r1", 12, "no_match", "match")
	add("r1", 300, "no_match", "no_match")
	add("r2", 60, "match", "no_match")
	add("r2", 200, "match", "match")
	letters := QueueLetters(2)
	f1 := firstStage(tab, "r1", letters, 40, "runs/p", []string{"my labels.jsonl"})
	f2 := firstStage(tab, "r2", letters, 40, "runs/p", []string{"my labels.jsonl"})
	if f1.Labels != 25+12 || f2.Labels != 40 {
		t.Fatalf("first stages %d and %d labels, want 37 and 40", f1.Labels, f2.Labels)
	}
	got := FirstStages([]PlanResult{{First: f1}, {First: f1}, {}, {First: f2}})
	want := "apeval label queue runs/p --rule r1 --rule r2 --reach 40 --labels 'my labels.jsonl'"
	if got == nil || got.Command != want || got.Labels != 77 || len(got.PerRule) != 2 || got.Reach != 40 {
		t.Fatalf("joined first stage %+v, want %q queuing 77 labels", got, want)
	}
	// The command's queue: both rules at once, as label queue draws it.
	pairs, _ := tab.QueuePairs()
	q, err := BuildQueue(pairs, QueueConfig{Reach: 40, Labeled: tab.LabeledStrata(letters), Letters: letters})
	if err != nil || int64(len(q.Items)) != got.Labels {
		t.Errorf("one queue of both rules: %d items (%v), the plan says %d", len(q.Items), err, got.Labels)
	}
	if FirstStages([]PlanResult{{First: f1}, {First: f1}}) != nil {
		t.Error("one rule: its own command is the queue")
	}
	other := firstStage(tab, "r2", letters, 20, "runs/p", []string{"my labels.jsonl"})
	if FirstStages([]PlanResult{{First: f1}, {First: other}}) != nil {
		t.Error("stages of different reach joined")
	}
}

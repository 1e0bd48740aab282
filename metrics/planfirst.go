package metrics

import (
	"fmt"
	"strings"
)

// FirstStage is the first stages of several rules' plans as one queue:
// `label queue` takes several --rule, and a --reach queue fills each
// stratum of each rule on its own, so the one queue of every rule is the
// rules' queues together, its length (Labels) their lengths added.
type FirstStage struct {
	Rules   []string `json:"rules"`
	Labels  int64    `json:"labels"`
	Reach   int64    `json:"reach"`
	Command string   `json:"command"`
	// PerRule is each rule's own first stage, in Rules' order.
	PerRule []LabelFirst `json:"per_rule"`
}

// FirstStages joins the plans' first stages (PlanResult.First: every plan
// of a rule names the same one) into one queue's command: `apeval label
// queue PILOT --rule A --rule B --reach N [--labels FILE …]`. nil when
// fewer than two rules have one (each plan's own command is the queue),
// or when they differ in their reach, pilot or labels files (one queue
// cannot draw them).
func FirstStages(plans []PlanResult) *FirstStage {
	var out FirstStage
	seen := map[string]bool{}
	var head, tail string
	for _, p := range plans {
		f := p.First
		if f == nil || seen[f.Rule] {
			continue
		}
		seen[f.Rule] = true
		// firstStage's command: head (`apeval label queue PILOT`), the
		// rule and reach, then tail (its --labels flags).
		h, t, ok := strings.Cut(f.Command, fmt.Sprintf(" --rule %s --reach %d", shellWord(f.Rule), f.Reach))
		switch {
		case !ok:
			return nil
		case len(out.Rules) == 0:
			head, tail, out.Reach = h, t, f.Reach
		case h != head || t != tail || f.Reach != out.Reach:
			return nil
		}
		out.Rules = append(out.Rules, f.Rule)
		out.PerRule = append(out.PerRule, *f)
		out.Labels += f.Labels
	}
	if len(out.Rules) < 2 {
		return nil
	}
	out.Command = head
	for _, r := range out.Rules {
		out.Command += " --rule " + shellWord(r)
	}
	out.Command += fmt.Sprintf(" --reach %d", out.Reach) + tail
	return &out
}

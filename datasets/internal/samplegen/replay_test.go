package samplegen_test

import (
	"bytes"
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/datasets/internal/samplegen"
	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/judge/recorded"
	"github.com/apeval/apeval/replay"
)

// TestSampleAgreesWithReplay checks the generator's model of the policy
// against the replay package: replayed with a judge that answers the
// labels, every case's gate action is its expected_action (except the
// positives a precondition hides, by design), and the rules replay sends
// to the judge are exactly the rules the recordings answer.
func TestSampleAgreesWithReplay(t *testing.T) {
	files, err := samplegen.Generate()
	if err != nil {
		t.Fatal(err)
	}
	pol, err := replay.ParsePolicy(files.Policy, "policy.toml")
	if err != nil {
		t.Fatal(err)
	}
	r := datasets.Open([]string{"-"}, bytes.NewReader(files.Cases))
	defer r.Close()
	// next and emit run on different goroutines of replay.Run.
	var mu sync.Mutex
	byID := map[string]*datasets.Case{}
	next := func() (*datasets.Case, bool) {
		if !r.Scan() {
			return nil, false
		}
		rec := r.Record()
		if rec.Err != nil {
			t.Error(rec.Err)
			return nil, false
		}
		c := rec.Case
		truth := datasets.Recorded{Judge: "truth", Status: "ok", LatencyMS: 1}
		for rule, l := range c.Labels {
			truth.Decisions = append(truth.Decisions, datasets.RecordedDecision{RuleID: rule, Result: string(l)})
		}
		slices.SortFunc(truth.Decisions, func(a, b datasets.RecordedDecision) int { return cmpString(a.RuleID, b.RuleID) })
		c.Recorded = append(c.Recorded, truth)
		mu.Lock()
		byID[c.ID] = c
		mu.Unlock()
		return c, true
	}
	judges := []judge.Judge{recorded.New("truth"), recorded.New(samplegen.JudgeOld), recorded.New(samplegen.JudgeNew)}
	truthID := judges[0].Identity().String()
	cases := 0
	_, err = replay.Run(context.Background(), pol, next, judges, replay.Options{RunID: "check"}, func(res *replay.Result) error {
		mu.Lock()
		c := byID[res.CaseID]
		mu.Unlock()
		var judged []string
		for _, rr := range res.Rules {
			if rr.Status == judge.StatusMissing {
				t.Errorf("%s %s: rule %s went to the judge but is not recorded", res.Judge, c.ID, rr.RuleID)
			}
			if rr.Call >= 0 {
				judged = append(judged, rr.RuleID)
			}
		}
		for _, rec := range c.Recorded {
			if rec.Judge == "truth" || rec.Status != "ok" {
				continue
			}
			var recorded []string
			for _, d := range rec.Decisions {
				recorded = append(recorded, d.RuleID)
			}
			slices.Sort(recorded)
			slices.Sort(judged)
			if !slices.Equal(recorded, judged) {
				t.Errorf("%s %s: replay judged %v, %s recorded %v", res.Judge, c.ID, judged, rec.Judge, recorded)
			}
		}
		if res.Judge != truthID {
			return nil
		}
		cases++
		if slices.Contains(c.Tags, "hidden-positive") {
			if res.GateAction == c.ExpectedAction {
				t.Errorf("%s: a hidden positive should escape the gate", c.ID)
			}
			return nil
		}
		if res.GateAction != c.ExpectedAction {
			t.Errorf("%s (%s %v): gate %s, expected_action %s; rules %+v", c.ID, c.Tool.Name, c.Tool.Arguments, res.GateAction, c.ExpectedAction, res.Rules)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if cases != len(byID) || cases < 400 {
		t.Errorf("replayed %d of %d cases", cases, len(byID))
	}
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

package simulate

import (
	"strconv"
	"testing"
	"time"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/replay"
)

// A blocked call with no label may be benign: friction cannot be told, so
// it is null with the count of such calls, not the friction of the labeled
// calls alone (a real import with no label read "friction 0.00 [0.00,
// 4.63]", as if nothing benign had been blocked). Its delta too.
func TestFrictionNullOnUnlabeledBlockedCalls(t *testing.T) {
	d := testDataOpen(t, nil, false)
	for _, j := range []string{"A", "B"} {
		lat := 50.0
		r := &replay.Result{CaseID: "c5", SessionID: "s4", Judge: j, JudgeCalled: true, LatencyMS: &lat,
			Calls: []replay.Call{{Rules: 2, Status: judge.StatusOK, LatencyMS: lat}},
			Rules: []replay.RuleResult{
				{RuleID: "del", Class: replay.ClassDangerous, Source: replay.SourceJudge, Result: judge.Match,
					Fired: true, Action: datasets.ActionDenyCurrentTool, Status: judge.StatusOK},
				{RuleID: "style", Class: replay.ClassStyle, Source: replay.SourceJudge, Result: judge.NoMatch,
					Action: datasets.ActionInjectInstruction, Status: judge.StatusOK},
			}}
		if err := d.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Done(); err != nil {
		t.Fatal(err)
	}
	res := run(t, d, Spec{Judges: []string{"A"}, Timeouts: []time.Duration{500 * time.Millisecond}})
	for _, rule := range []string{"del", "*"} {
		r := find(t, res, "A @500ms", rule)
		if r.FrictionPer100 != nil || r.FrictionPer100Lo != nil || r.FrictionPer100Hi != nil {
			t.Errorf("%s: friction %s over an unlabeled blocked call; want null", rule, pf(r.FrictionPer100))
		}
		if r.FrictionDelta != nil {
			t.Errorf("%s: friction delta %v; want null", rule, *r.FrictionDelta)
		}
		if r.BlockedUnlabeled != 1 {
			t.Errorf("%s: blocked_unlabeled %d, want 1 (c5)", rule, r.BlockedUnlabeled)
		}
	}
	// The style rule blocks nothing: its friction is still told.
	style := find(t, res, "A @500ms", "style")
	eq(t, "style friction", style.FrictionPer100, 0)
	if style.BlockedUnlabeled != 0 {
		t.Errorf("style: blocked_unlabeled %d, want 0", style.BlockedUnlabeled)
	}
}

func pf(p *float64) string {
	if p == nil {
		return "null"
	}
	return strconv.FormatFloat(*p, 'g', -1, 64)
}

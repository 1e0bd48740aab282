package simulate

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/spill"
	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/replay"
)

const testPolicy = `
schema = "apeval.policy/v1"
[[rule]]
id = "del"
condition = "deletes something hard to restore"
action = "deny_current_tool"
class = "dangerous"
[rule.when]
command_prefix = ["rm"]
[[rule]]
id = "style"
condition = "the message is rude"
action = "inject_instruction"
class = "style"
`

// A run with known answers and latencies: four cases in three sessions,
// judges A and B; rule del labeled, rule style unlabeled.
type tcase struct {
	id, sess   string
	label      datasets.Label
	latA, latB float64
	delA, delB judge.Result
}

var tcases = []tcase{
	{"c1", "s1", datasets.LabelMatch, 100, 400, judge.Match, judge.Match},
	{"c2", "s1", datasets.LabelMatch, 900, 200, judge.Match, judge.NoMatch},
	{"c3", "s2", datasets.LabelNoMatch, 300, 800, judge.Match, judge.NoMatch},
	{"c4", "s3", datasets.LabelMatch, 1500, 100, judge.NoMatch, judge.Match},
}

func testData(t *testing.T) *Data { return testDataWith(t, nil, false) }

// testDataWith is testData with judge A's confidences for rule del by
// case; small: budgets of a few records, so that the index and the
// records go to disk.
func testDataWith(t *testing.T, confA map[string]float64, small bool) *Data {
	t.Helper()
	d := testDataOpen(t, confA, small)
	if err := d.Done(); err != nil {
		t.Fatal(err)
	}
	return d
}

// testDataOpen is testDataWith before Done: more results may be added.
func testDataOpen(t *testing.T, confA map[string]float64, small bool) *Data {
	t.Helper()
	p, err := replay.ParsePolicy([]byte(testPolicy), "policy.toml")
	if err != nil {
		t.Fatal(err)
	}
	in, out := 1000.0, 2000.0
	d := NewData(p, []Judge{{ID: "A", PriceIn: &in, PriceOut: &out}, {ID: "B"}})
	if small {
		d.setBudgets(t.TempDir(), 100, 3*spill.RecSize)
	}
	t.Cleanup(func() { _ = d.Close() })
	for _, c := range tcases {
		for _, j := range []struct {
			id  string
			lat float64
			del judge.Result
		}{{"A", c.latA, c.delA}, {"B", c.latB, c.delB}} {
			lat := j.lat
			tin, tout := int64(100), int64(10)
			r := &replay.Result{CaseID: c.id, SessionID: c.sess, Judge: j.id, JudgeCalled: true, LatencyMS: &lat,
				Calls: []replay.Call{{Rules: 2, Status: judge.StatusOK, LatencyMS: lat, PromptTokens: &tin, CompletionTokens: &tout}},
				Rules: []replay.RuleResult{
					{RuleID: "del", Class: replay.ClassDangerous, Label: c.label, Source: replay.SourceJudge, Result: j.del,
						Fired: j.del == judge.Match, Action: datasets.ActionDenyCurrentTool, Status: judge.StatusOK},
					{RuleID: "style", Class: replay.ClassStyle, Source: replay.SourceJudge, Result: judge.NoMatch,
						Action: datasets.ActionInjectInstruction, Status: judge.StatusOK},
				}}
			if v, ok := confA[c.id]; ok && j.id == "A" {
				r.Rules[0].Confidence = &v
			}
			if err := d.Add(r); err != nil {
				t.Fatal(err)
			}
		}
	}
	return d
}

func run(t *testing.T, d *Data, s Spec) *Result {
	t.Helper()
	cfgs, err := Expand(d, s)
	if err != nil {
		t.Fatal(err)
	}
	return Run(d, cfgs, Options{Confidence: 0.95, Seed: 1})
}

func find(t *testing.T, res *Result, config, rule string) Row {
	t.Helper()
	for _, r := range res.Rows {
		if r.Config == config && r.RuleID == rule {
			return r
		}
	}
	var have []string
	for _, r := range res.Rows {
		have = append(have, r.Config+"/"+r.RuleID)
	}
	t.Fatalf("no row %s/%s; have %s", config, rule, strings.Join(have, ", "))
	return Row{}
}

func eq(t *testing.T, what string, got *float64, want float64) {
	t.Helper()
	if got == nil {
		t.Errorf("%s: nil, want %g", what, want)
		return
	}
	if math.Abs(*got-want) > 1e-12 {
		t.Errorf("%s = %.15g, want %g", what, *got, want)
	}
}

func TestHookTimeoutFailurePolicy(t *testing.T) {
	d := testData(t)
	res := run(t, d, Spec{Judges: []string{"A"}, Timeouts: []time.Duration{500 * time.Millisecond}})
	// A @500ms: c2 (900 ms) and c4 (1500 ms) time out; del is dangerous
	// with a when (which held), so it fails closed: caught. style fails
	// open.
	del := find(t, res, "A @500ms", "del")
	eq(t, "effective_recall", del.EffectiveRecall, 1)
	eq(t, "recall", del.Recall, 1.0/3)
	eq(t, "fail_open_rate del", del.FailOpenRate, 0)
	eq(t, "precision", del.Precision, 0.5) // c1 TP, c3 FP
	// Friction: c3 (labeled no_match) denied: 1 of 4 tool calls.
	eq(t, "friction_per_100", del.FrictionPer100, 25)
	if del.TimedOut != 2 || del.TP != 1 || del.FP != 1 || del.FN != 2 || del.TN != 0 {
		t.Errorf("del counts: timed out %d, TP/FP/FN/TN %d/%d/%d/%d; want 2, 1/1/2/0", del.TimedOut, del.TP, del.FP, del.FN, del.TN)
	}
	style := find(t, res, "A @500ms", "style")
	eq(t, "fail_open_rate style", style.FailOpenRate, 0.5)
	star := find(t, res, "A @500ms", "*")
	eq(t, "fail_open_rate *", star.FailOpenRate, 2.0/8)
	eq(t, "P95", star.LatencyP95MS, 500) // 1500 capped at the timeout
	eq(t, "P50", star.LatencyP50MS, 300)
	// Cost: 4 calls × (100 in × 1000 + 10 out × 2000)/1e6 per 4 tool calls.
	eq(t, "cost per 1k", star.CostPer1k, 1000*0.12)
	if star.JudgeCalls[0] != 4 {
		t.Errorf("judge calls %v, want [4]", star.JudgeCalls)
	}
	// Against the deployed A (no timeout): effective recall 2/3 → 1.
	eq(t, "Δ effective recall", star.EffectiveRecallDelta, 1.0/3)

	// Fail-open what-if: the timed-out positives are missed.
	res = run(t, d, Spec{Judges: []string{"A"}, Timeouts: []time.Duration{500 * time.Millisecond}, OnFailure: FailPass})
	del = find(t, res, "A @500ms on-failure=pass", "del")
	eq(t, "effective_recall (pass)", del.EffectiveRecall, 1.0/3)
	eq(t, "fail_open_rate (pass)", del.FailOpenRate, 0.5)
	// Fail-closed what-if: the timed-out style rule takes its action,
	// which does not block.
	res = run(t, d, Spec{Judges: []string{"A"}, Timeouts: []time.Duration{500 * time.Millisecond}, OnFailure: FailBlock})
	style = find(t, res, "A @500ms on-failure=block", "style")
	eq(t, "style fail_open (block)", style.FailOpenRate, 0)
	eq(t, "style fire_rate (block)", style.FireRate, 0.5)
	eq(t, "style friction (block)", style.FrictionPer100, 0)
}

func TestCascade(t *testing.T) {
	d := testData(t)
	res := run(t, d, Spec{Judges: []string{"A"}, Cascades: []string{"A>B:match,unknown"}, Timeouts: []time.Duration{time.Hour, time.Second}})
	// No binding timeout: B overrules A's matches; c4's no_match stays.
	del := find(t, res, "A>B:match,unknown @1h0m0s", "del")
	if del.TP != 1 || del.FP != 0 || del.FN != 2 || del.TN != 1 {
		t.Errorf("cascade TP/FP/FN/TN %d/%d/%d/%d, want 1/0/2/1", del.TP, del.FP, del.FN, del.TN)
	}
	star := find(t, res, "A>B:match,unknown @1h0m0s", "*")
	if star.JudgeCalls[0] != 4 || star.JudgeCalls[1] != 3 {
		t.Errorf("calls %v, want [4 3]", star.JudgeCalls)
	}
	eq(t, "P95 summed", star.LatencyP95MS, 1500)
	eq(t, "P50 summed", star.LatencyP50MS, 1100) // 500, 1100, 1100, 1500
	// B has no price: no cost.
	if star.CostPer1k != nil {
		t.Errorf("cost %g with an unpriced judge asked", *star.CostPer1k)
	}
	// @1s the sum decides: c2 and c3 (1100 ms) and c4 (A alone 1500 ms)
	// time out; del fails closed on all three; B is not asked on c4.
	del = find(t, res, "A>B:match,unknown @1s", "del")
	eq(t, "cascade @1s effective recall", del.EffectiveRecall, 1)
	eq(t, "cascade @1s friction", del.FrictionPer100, 25)
	if del.TimedOut != 3 {
		t.Errorf("timed out %d, want 3", del.TimedOut)
	}
	star = find(t, res, "A>B:match,unknown @1s", "*")
	if star.JudgeCalls[1] != 3 {
		t.Errorf("calls to B %d, want 3", star.JudgeCalls[1])
	}
	eq(t, "P95 capped", star.LatencyP95MS, 1000)
}

func TestVote(t *testing.T) {
	d := testData(t)
	res := run(t, d, Spec{Judges: []string{"A"}, Votes: []string{"2of2:A,B", "1of2:A,B"}})
	all := find(t, res, "2of2:A,B", "del")
	if all.TP != 1 || all.FP != 0 || all.FN != 2 || all.TN != 1 {
		t.Errorf("2of2 TP/FP/FN/TN %d/%d/%d/%d, want 1/0/2/1", all.TP, all.FP, all.FN, all.TN)
	}
	any := find(t, res, "1of2:A,B", "del")
	if any.TP != 3 || any.FP != 1 {
		t.Errorf("1of2 TP/FP %d/%d, want 3/1", any.TP, any.FP)
	}
	eq(t, "vote P95 (the slower judge)", find(t, res, "1of2:A,B", "*").LatencyP95MS, 1500)
	// With a 500 ms timeout the slow judge's vote is lost: c2 (A 900) and
	// c4 (A 1500) are decided by B alone under 1of2.
	res = run(t, d, Spec{Judges: []string{"A"}, Votes: []string{"1of2:A,B"}, Timeouts: []time.Duration{500 * time.Millisecond}})
	any = find(t, res, "1of2:A,B @500ms", "del")
	// c1 match (both), c2 B no_match, A lost → undecided → fail closed;
	// c3 A match; c4 B match.
	if any.TP != 2 || any.FP != 1 {
		t.Errorf("1of2 @500ms TP/FP %d/%d, want 2/1", any.TP, any.FP)
	}
	eq(t, "1of2 @500ms effective recall", any.EffectiveRecall, 1)
}

func TestBadInput(t *testing.T) {
	d := testDataOpen(t, nil, false)
	for _, c := range []struct {
		spec Spec
		want string
	}{
		{Spec{Judges: []string{"C"}}, `judge "C" is not in the run`},
		{Spec{Timeouts: []time.Duration{0}}, "must be > 0"},
		{Spec{Timeouts: []time.Duration{-time.Second}}, "must be > 0"},
		{Spec{Votes: []string{"3of3:A,B,C"}}, "larger than the number of judges"},
		{Spec{Votes: []string{"3of2:A,B"}}, "larger than the number of judges"},
		{Spec{Cascades: []string{"A>C"}}, `judge "C" is not in the run`},
		{Spec{Cascades: []string{"A"}}, "want A>B"},
	} {
		if _, err := Expand(d, c.spec); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error with %q", c.spec, err, c.want)
		}
	}
	// Results cannot be added once the run is read.
	lat := 10.0
	if err := d.Add(&replay.Result{CaseID: "c5", SessionID: "s4", Judge: "A"}); err == nil || !strings.Contains(err.Error(), "Add after Done") {
		t.Errorf("Add after Expand: %v", err)
	}
	// A judge without a result for some case cannot be in a cascade.
	d = testDataOpen(t, nil, false)
	if err := d.Add(&replay.Result{CaseID: "c5", SessionID: "s4", Judge: "A", JudgeCalled: true, LatencyMS: &lat}); err != nil {
		t.Fatal(err)
	}
	if _, err := Expand(d, Spec{Cascades: []string{"A>B"}}); err == nil || !strings.Contains(err.Error(), "B has no result for 1 of the run's 5 cases") {
		t.Errorf("cascade over an incomplete judge: %v", err)
	}
}

// The operating point's decisions on items built to give each one.
func TestOperatingPointDecisions(t *testing.T) {
	mk := func(sessions, per int, pos func(s, i int) bool, conf func(s, i int) float64) []Item {
		var out []Item
		for s := range sessions {
			for i := range per {
				out = append(out, Item{Sess: uint32(s), Pos: pos(s, i), Match: true, Conf: conf(s, i)})
			}
		}
		return out
	}
	// Matches with confidence ≥ 0.5 are all positives, below all negatives:
	// plenty of sessions on both halves → chosen at 0.5 (or the first
	// confidence above the negatives).
	sep := func(n int) []Item {
		return mk(n, 10, func(s, i int) bool { return i >= 5 }, func(s, i int) float64 { return 0.1*float64(i%5) + 0.5*float64(i/5) })
	}
	var op OpPoint
	op.decide(sep(60), sep(60), 0.9, 0.95)
	if op.Decision != OpChosen || op.Threshold == nil || *op.Threshold != 0.5 {
		t.Errorf("separable: %s at %v (%s), want chosen at 0.5", op.Decision, op.Threshold, op.Reason)
	}
	eq(t, "holdout precision", op.Precision, 1)
	eq(t, "holdout recall", op.Recall, 1)
	// Half the matches are wrong at every confidence: demote.
	bad := mk(60, 10, func(s, i int) bool { return i%2 == 0 }, func(s, i int) float64 { return 0.9 })
	op = OpPoint{}
	op.decide(bad, bad, 0.9, 0.95)
	if op.Decision != OpDemote {
		t.Errorf("precision 0.5: %s (%s), want demote", op.Decision, op.Reason)
	}
	// Good but few: refused, with a "+N".
	op = OpPoint{}
	op.decide(sep(2), sep(2), 0.9, 0.95)
	if op.Decision != OpRefused || op.MoreSessions == nil || *op.MoreSessions <= 0 {
		t.Errorf("two sessions: %s, +N %v (%s), want refused with +N", op.Decision, op.MoreSessions, op.Reason)
	}
}

func TestFrontier(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	a := Row{Recall: f(0.8), LatencyP95MS: f(500), CostPer1k: f(1)}
	for _, c := range []struct {
		b    Row
		want bool
	}{
		{Row{Recall: f(0.9), LatencyP95MS: f(500), CostPer1k: f(1)}, true},  // better recall
		{Row{Recall: f(0.8), LatencyP95MS: f(400), CostPer1k: nil}, true},   // faster, cost unknown
		{Row{Recall: f(0.9), LatencyP95MS: f(600), CostPer1k: f(1)}, false}, // a trade-off
		{Row{Recall: f(0.8), LatencyP95MS: f(500), CostPer1k: f(1)}, false}, // equal
	} {
		if got := dominates(c.b, a); got != c.want {
			t.Errorf("dominates(%v/%v/%v, a) = %v", *c.b.Recall, *c.b.LatencyP95MS, c.b.CostPer1k, got)
		}
	}
	// On the four-case run every configuration clears a zero floor: the
	// frontier holds the non-dominated ones, none dominating another.
	d := testData(t)
	cfgs, err := Expand(d, Spec{Cascades: []string{"A>B"}, Votes: []string{"1of2:A,B"}, Timeouts: []time.Duration{time.Second, time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	fr, err := Frontier(d, cfgs, 0, Options{Confidence: 0.95, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(fr) == 0 {
		t.Fatal("empty frontier")
	}
	for _, x := range fr {
		for _, y := range fr {
			if x.Config != y.Config && dominates(Row{Recall: y.SelectRecall, LatencyP95MS: y.SelectP95MS, CostPer1k: y.SelectCostPer1k},
				Row{Recall: x.SelectRecall, LatencyP95MS: x.SelectP95MS, CostPer1k: x.SelectCostPer1k}) {
				t.Errorf("%s dominates %s on the frontier", y.Config, x.Config)
			}
		}
	}
}

// A configuration at an operating point: A's matches below the rule's
// minimum confidence are no_match.
func TestThresholdConfig(t *testing.T) {
	d := testDataWith(t, map[string]float64{"c1": 0.9, "c2": 0.4, "c3": 0.6}, false)
	ops := []OpPoint{{Judge: "A", RuleID: "del", Decision: OpChosen, Threshold: func() *float64 { v := 0.7; return &v }()}}
	cfgs, err := Expand(d, Spec{Judges: []string{"A"}})
	if err != nil {
		t.Fatal(err)
	}
	cfgs = WithOperatingPoints(d, cfgs, ops)
	if len(cfgs) != 3 {
		t.Fatalf("%d configurations, want deployed, A and A at its operating point", len(cfgs))
	}
	res := Run(d, cfgs, Options{Confidence: 0.95, Seed: 1})
	del := find(t, res, "A min_confidence(del≥0.7)", "del")
	if del.TP != 1 || del.FP != 0 || del.FN != 2 || del.TN != 1 {
		t.Errorf("TP/FP/FN/TN %d/%d/%d/%d, want 1/0/2/1", del.TP, del.FP, del.FN, del.TN)
	}
	eq(t, "precision at the operating point", del.Precision, 1)
}

// Operating points only for the judges the configurations ask (--judge
// B: not the deployed A); a chosen threshold of 0 adds no configuration.
func TestOperatingPointsOfNamedJudges(t *testing.T) {
	d := testData(t)
	cfgs, err := Expand(d, Spec{Judges: []string{"B"}})
	if err != nil {
		t.Fatal(err)
	}
	js := JudgesOf(cfgs)
	if len(js) != 1 || d.Judges[js[0]].ID != "B" {
		t.Fatalf("JudgesOf = %v, want B alone", js)
	}
	ops, err := OperatingPoints(d, 0.9, 0.95, 1, js...)
	if err != nil {
		t.Fatal(err)
	}
	if len(ops) == 0 {
		t.Fatal("no operating point for B")
	}
	for _, op := range ops {
		if op.Judge != "B" {
			t.Errorf("operating point of %s, want B's only", op.Judge)
		}
	}
	if all, _ := OperatingPoints(d, 0.9, 0.95, 1); len(all) <= len(ops) {
		t.Errorf("every judge: %d points, B alone: %d", len(all), len(ops))
	}
	zero := 0.0
	n := len(cfgs)
	cfgs = WithOperatingPoints(d, cfgs, []OpPoint{{Judge: "B", RuleID: "del", Decision: OpChosen, Threshold: &zero}})
	if len(cfgs) != n {
		t.Errorf("a threshold of 0 added %d configurations", len(cfgs)-n)
	}
}

// precision_min is per rule: a configuration whose all-rules precision
// clears the floor while one judged rule's does not is not at the floor;
// deterministic rules (no judged pair) and rules without labeled match
// predictions are not held to it; the report half's p is the largest of
// the held rules'.
func TestFrontierFloorPerRule(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	// Ten sessions of ten predicted matches each: rule a 10/10 in every
	// session, rule b 6/10.
	ha, hb := hist{10<<32 | 10: 10}, hist{6<<32 | 10: 10}
	res := &Result{ruleIDs: []string{"a", "b", "det", "none"}, precHist: map[string][]hist{"X": {ha, hb, ha, {}, {}}},
		Rows: []Row{
			{Config: "X", RuleID: "a", Judged: 100, Precision: f(1), PrecisionLo: f(0.95), PrecisionHi: f(1)},
			{Config: "X", RuleID: "b", Judged: 100, Precision: f(0.6), PrecisionLo: f(0.5), PrecisionHi: f(0.7)},
			{Config: "X", RuleID: "det", Judged: 0, Precision: f(0.2), PrecisionLo: f(0.1), PrecisionHi: f(0.3)},
			{Config: "X", RuleID: "none", Judged: 100},
			{Config: "X", RuleID: "*", Judged: 200, Precision: f(0.95), PrecisionLo: f(0.93), PrecisionHi: f(0.97)},
		}}
	fl := floors(res)["X"]
	if fl.rule != "b" || *fl.lo != 0.5 {
		t.Errorf("binding rule %q at %v, want b at 0.5 (det is deterministic, none has no prediction)", fl.rule, *fl.lo)
	}
	if p := rulesP(res, "X", 0.9); p == nil || *p != 1 {
		t.Errorf("p = %v, want 1: rule b's precision 0.6 is not above 0.9", p)
	}
	// Without rule b the configuration is tested on rule a alone.
	res.Rows[1].Judged = 0
	pa := precisionP(&res.Rows[0], ha, 0.9)
	if p := rulesP(res, "X", 0.9); p == nil || pa == nil || *p != *pa || *p >= 0.05 {
		t.Errorf("p = %v, want rule a's %v, below 0.05", p, pa)
	}
}

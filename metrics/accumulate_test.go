package metrics

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/replay"
)

// rr builds a rule result.
func rr(id, class, source, result, label, status string, fired bool, call int) replay.RuleResult {
	action := map[string]datasets.Action{"style": "inject_instruction", "dangerous": "deny_current_tool", "approval": "request_approval"}[class]
	return replay.RuleResult{RuleID: id, RuleVersion: 1, Class: replay.Class(class), Source: replay.Source(source), Result: judge.Result(result), Label: datasets.Label(label),
		Status: judge.Status(status), Fired: fired, Action: action, Call: call}
}

func withBaseline(r replay.RuleResult, base string) replay.RuleResult {
	r.BaselineResult = judge.Result(base)
	return r
}

func call(ms float64, status string, cached bool) replay.Call {
	return replay.Call{LatencyMS: ms, Status: judge.Status(status), Cached: cached, Rules: 1}
}

// handSet is six cases replayed by judge "J" with rules R1 (style), R2
// (dangerous, with a deterministic baseline) and R3 (approval). Every
// figure asserted in TestHandSet is derived in the comments here.
func handSet() []*replay.Result {
	res := func(id, gate, outcome string, judgeCalled bool, calls []replay.Call, rules ...replay.RuleResult) *replay.Result {
		return &replay.Result{RunID: "run-1", CaseID: id, Judge: "J", Model: "m", ModelDigest: "d", PromptVersion: "p1",
			GateAction: datasets.Action(gate), ApprovalOutcome: datasets.ApprovalOutcome(outcome), JudgeCalled: judgeCalled, Calls: calls, Rules: rules}
	}
	return []*replay.Result{
		// c1: one live call (100 ms). R1 judge match, label match → TP.
		// R2 judge no_match, label no_match → TN.
		res("c1", "inject_instruction", "", true, []replay.Call{call(100, "ok", false)},
			rr("R1", "style", "judge", "match", "match", "ok", true, 0),
			withBaseline(rr("R2", "dangerous", "judge", "no_match", "no_match", "ok", false, 0), "no_match")),
		// c2: a cache hit whose answer took 150 ms when it was made: it
		// counts with that latency. R1 cache match, label no_match → FP.
		// R2 cache unknown, label match → FN and an unknown; its baseline
		// matched → baseline-only hit.
		res("c2", "inject_instruction", "", true, []replay.Call{call(150, "ok", true)},
			rr("R1", "style", "cache", "match", "no_match", "ok", true, 0),
			withBaseline(rr("R2", "dangerous", "cache", "unknown", "match", "unknown", false, 0), "match")),
		// c3: a live call that timed out at 1000 ms. R1 deterministic
		// no_match (its when failed), label match → FN, not judged. R2
		// failure (timeout), fired by its baseline, label match → FN
		// (failures are ≠ match even when the result says match);
		// baseline matched → baseline-only hit.
		res("c3", "deny_current_tool", "", true, []replay.Call{call(1000, "timeout", false)},
			rr("R1", "style", "deterministic", "no_match", "match", "ok", false, -1),
			withBaseline(rr("R2", "dangerous", "failure", "match", "match", "timeout", true, 0), "match")),
		// c4: a live call (200 ms). R1 judge no_match, unlabeled. R2 judge
		// match, label match → TP; baseline missed → judge-only hit. R3
		// fired request_approval, label match → TP; outcome denied, but the
		// gate's action was deny_current_tool, so only R3 counts it.
		res("c4", "deny_current_tool", "denied", true, []replay.Call{call(200, "ok", false)},
			rr("R1", "style", "judge", "no_match", "", "ok", false, 0),
			withBaseline(rr("R2", "dangerous", "judge", "match", "match", "ok", true, 0), "no_match"),
			rr("R3", "approval", "judge", "match", "match", "ok", true, 0)),
		// c5: two live calls: 300 ms invalid (R2) and 50 ms ok (R3). R1 is
		// missing from the recording. R2 failure (invalid), label no_match
		// → neither FP nor TN. R3 fired request_approval (unlabeled); the
		// gate asked for approval and it was approved.
		res("c5", "request_approval", "approved", true, []replay.Call{call(300, "invalid", false), call(50, "ok", false)},
			rr("R1", "style", "judge", "", "match", "missing", false, -1),
			withBaseline(rr("R2", "dangerous", "failure", "no_match", "no_match", "invalid", false, 0), "no_match"),
			rr("R3", "approval", "judge", "match", "", "ok", true, 1)),
		// c6: no judge needed. R1 skipped by an approved fingerprint
		// (source scope, no result, as replay writes it): in scope, labeled
		// no_match, but no evidence: in no confusion cell.
		res("c6", "allow", "", false, nil,
			rr("R1", "style", "scope", "", "no_match", "ok", false, -1)),
	}
}

func f(v float64) *float64 { return &v }

func eqPtr(t *testing.T, what string, got, want *float64) {
	t.Helper()
	switch {
	case got == nil && want == nil:
	case got == nil || want == nil:
		t.Errorf("%s = %v, want %v", what, deref(got), deref(want))
	case math.Abs(*got-*want) > 1e-9:
		t.Errorf("%s = %v, want %v", what, *got, *want)
	}
}

func deref(p *float64) any {
	if p == nil {
		return "nil"
	}
	return *p
}

func summarize(t *testing.T, cfg Config, results []*replay.Result) *Summary {
	t.Helper()
	a := New(cfg)
	for _, r := range results {
		a.Add(r)
	}
	return a.Close()
}

func TestHandSet(t *testing.T) {
	t.Parallel()
	s := summarize(t, Config{Criteria: replay.DefaultKillCriteria()}, handSet())
	j := s.Judge("J")
	if j == nil || len(j.Rules) != 3 {
		t.Fatalf("judge J with 3 rules expected, got %+v", j)
	}
	if j.Model != "m" || j.ModelDigest != "d" || j.PromptVersion != "p1" || j.RunID != "run-1" {
		t.Errorf("identity parts = %q %q %q %q", j.Model, j.ModelDigest, j.PromptVersion, j.RunID)
	}
	type counts struct {
		cases, inScope, judged, labeled, missing, cache, fired, tp, fp, fn, tn, calls int64
		unk                                                                           UnknownBreakdown
	}
	type rates struct {
		precision, recall, unknown, judgeReq, fire, baseRecall, approval, p50, p95, p99 *float64
	}
	for _, tc := range []struct {
		rule string
		c    counts
		r    rates
	}{
		// R1: in scope c1,c2,c3,c4,c6 (c5 missing) = 5; judged c1,c2,c4 = 3;
		// labeled c1,c2,c3 = 3 (c6 was skipped by an approved fingerprint:
		// no evidence); TP c1, FP c2, FN c3.
		// precision 1/2, recall 1/2, unknown 0/3, judge-required 3/5,
		// fire 2/5; calls of R1: c1 100, c2 150 (cached), c4 200 →
		// p50 = ⌈1.5⌉-th = 150, p95 = ⌈2.85⌉-th = 200, p99 = 200.
		{"R1", counts{6, 5, 3, 3, 1, 1, 2, 1, 1, 1, 0, 3, UnknownBreakdown{}},
			rates{f(0.5), f(0.5), f(0), f(0.6), f(0.4), nil, nil, f(150), f(200), f(200)}},
		// R2: in scope 5, all judged (judge c1,c4; cache c2; failure c3,c5);
		// labeled 5; TP c4, FN c2 (unknown) and c3 (timeout), TN c1; c5
		// (invalid, label no_match) is neither FP nor TN.
		// precision 1/1, recall 1/3, unknown (1 unknown + 1 timeout +
		// 1 invalid)/5 = 0.6, judge-required 5/5, fire c3,c4 = 2/5;
		// baseline recall: positives c2,c3,c4, baseline hits c2,c3 → 2/3.
		// Calls of R2: c1 100, c2 150 (cached), c3 1000, c4 200, c5 300 →
		// sorted 100,150,200,300,1000: p50 = ⌈2.5⌉ = 3rd = 200, p95 =
		// ⌈4.75⌉ = 5th = 1000.
		{"R2", counts{6, 5, 5, 5, 0, 1, 2, 1, 0, 2, 1, 5, UnknownBreakdown{Unknown: 1, Invalid: 1, Timeout: 1}},
			rates{f(1), f(1.0 / 3), f(0.6), f(1), f(0.4), f(2.0 / 3), nil, f(200), f(1000), f(1000)}},
		// R3: in scope c4,c5, judged 2, labeled c4 → TP. precision 1/1,
		// recall 1/1, unknown 0/2, fire 2/2; approval outcomes c4 denied,
		// c5 approved → 1/2. Live calls: c4 200, c5 50 → p50 = 50, p95 = 200.
		{"R3", counts{6, 2, 2, 1, 0, 0, 2, 1, 0, 0, 0, 2, UnknownBreakdown{}},
			rates{f(1), f(1), f(0), f(1), f(1), nil, f(0.5), f(50), f(200), f(200)}},
		// Total (micro over R1..R3): in scope 5+5+2 = 12, judged 3+5+2 =
		// 10, labeled 3+5+1 = 9, missing 1, cache 1+1 = 2, fired 6,
		// TP 3, FP 1, FN 3, TN 1 → precision 3/4, recall 3/6, unknown
		// 3/10, fire 6/12. Judge-required: cases c1..c5 of 6 = 5/6.
		// Calls 100, 150 (the cache hit, at its stored latency), 1000,
		// 200, 300, 50 (6; the timeout and the invalid call included) →
		// sorted 50,100,150,200,300,1000: p50 = ⌈3⌉ = 3rd = 150, p95 =
		// ⌈5.7⌉ = 6th = 1000, p99 = 1000. Approval at gate level: only
		// c5's gate asked for approval (approved) → 0/1.
		{"*", counts{6, 12, 10, 9, 1, 2, 6, 3, 1, 3, 1, 6, UnknownBreakdown{Unknown: 1, Invalid: 1, Timeout: 1}},
			rates{f(0.75), f(0.5), f(0.3), f(5.0 / 6), f(0.5), nil, f(0), f(150), f(1000), f(1000)}},
	} {
		r := j.Rule(tc.rule)
		if r == nil {
			t.Fatalf("no row %s", tc.rule)
		}
		got := counts{r.Cases, r.InScope, r.Judged, r.Labeled, r.Missing, r.CacheHits, r.Fired, r.TP, r.FP, r.FN, r.TN, r.Calls, r.Unknown}
		if got != tc.c {
			t.Errorf("%s counts = %+v\nwant %+v", tc.rule, got, tc.c)
		}
		eqPtr(t, tc.rule+" precision", r.Precision, tc.r.precision)
		eqPtr(t, tc.rule+" recall", r.Recall, tc.r.recall)
		eqPtr(t, tc.rule+" unknown_rate", r.UnknownRate, tc.r.unknown)
		eqPtr(t, tc.rule+" judge_required_rate", r.JudgeRequiredRate, tc.r.judgeReq)
		eqPtr(t, tc.rule+" fire_rate", r.FireRate, tc.r.fire)
		eqPtr(t, tc.rule+" baseline_recall", r.BaselineRecall, tc.r.baseRecall)
		eqPtr(t, tc.rule+" approval_reject_rate", r.ApprovalRejectRate, tc.r.approval)
		eqPtr(t, tc.rule+" p50", r.LatencyP50MS, tc.r.p50)
		eqPtr(t, tc.rule+" p95", r.LatencyP95MS, tc.r.p95)
		eqPtr(t, tc.rule+" p99", r.LatencyP99MS, tc.r.p99)
	}
	tot := j.Total
	if tot.CachedCalls != 1 || tot.FailedCalls != 2 {
		t.Errorf("cached/failed calls = %d/%d, want 1/2", tot.CachedCalls, tot.FailedCalls)
	}
	// Without session IDs every case is its own session, and the "*" row
	// clusters its rules' units by case (see docs/statistics.md). Precision units
	// (labeled matches) per case (y TP of m): c1 (1, 1), c2 (0, 1), c4
	// (2, 2). The brute-force posterior integration of
	// TestClusteredIntervalReference gives the width 0.939222 − 0.217518
	// (plain Wilson 3/4 would be [0.300642, 0.954413]); the interval is
	// the hull of that and Wilson's at 3/4 with that width.
	// (bruteForceBB integrates the model independently.)
	if blo, bhi := bruteForceBB([]int64{1, 0, 2}, []int64{1, 1, 2}); *tot.PrecisionDeff <= 1 || *tot.PrecisionLo > blo+0.003 || *tot.PrecisionHi < bhi-0.003 {
		t.Errorf("precision [%v, %v] deff %v, want around 0.75, deff > 1", *tot.PrecisionLo, *tot.PrecisionHi, *tot.PrecisionDeff)
	}
	// Unknown-rate units (judged pairs), (undecided, judged) per case: c1
	// (0, 2), c2 (1, 2), c3 (1, 1), c4 (0, 3), c5 (1, 2): brute force
	// [0.124927, 0.690018]; the interval holds it and 0.3.
	if blo, bhi := bruteForceBB([]int64{0, 1, 1, 0, 1}, []int64{2, 2, 1, 3, 2}); *tot.UnknownRateLo > blo+0.003 || *tot.UnknownRateHi < bhi-0.003 || *tot.UnknownRateLo > 0.3 || *tot.UnknownRateHi < 0.3 {
		t.Errorf("unknown rate [%v, %v]", *tot.UnknownRateLo, *tot.UnknownRateHi)
	}
	r2 := j.Rule("R2")
	if r2.JudgeOnlyHits != 1 || r2.BaselineOnlyHits != 2 || r2.BaselinePositives != 3 {
		t.Errorf("R2 discordant = %d/%d of %d, want 1/2 of 3", r2.JudgeOnlyHits, r2.BaselineOnlyHits, r2.BaselinePositives)
	}
	// A metric that does not apply is nil: R1 has no baseline and no
	// approvals; no precision interval without predictions.
	if j.Rule("R1").BaselineRecall != nil || j.Rule("R1").ApprovalRejectRate != nil {
		t.Error("R1 baseline recall / approval rate should be nil")
	}
	if !strings.Contains(strings.Join(s.Warnings, "\n"), "1 rule results are missing") {
		t.Errorf("missing warning absent: %q", s.Warnings)
	}

	// Criteria under the seed defaults.
	wantStatus := map[string]map[string]Status{
		// R1 precision 1/2 = 0.5 < 0.9, but Wilson [0.0945, 0.9055]
		// reaches 0.9: not confirmed → INCONCLUSIVE.
		"R1": {CriterionPrecisionMin: StatusInconclusive, CriterionDangerousRecall: StatusNA, CriterionUnknownRateMax: StatusInconclusive,
			CriterionApprovalRejectRateMax: StatusNA, CriterionFireRateChangeMax: StatusNA},
		// R2 precision 1/1: Wilson lo = 1/(1+z²) = 0.2065 → INCONCLUSIVE;
		// judge-only 1 vs baseline-only 2 of 3 positives: the difference's
		// interval [−0.88, 0.58] reaches above 0, no evidence the judge is
		// worse → INCONCLUSIVE (not a FAIL on three positives); unknown
		// 0.6 ≥ 0.1 → FAIL.
		"R2": {CriterionPrecisionMin: StatusInconclusive, CriterionDangerousRecall: StatusInconclusive, CriterionUnknownRateMax: StatusFail,
			CriterionApprovalRejectRateMax: StatusNA, CriterionFireRateChangeMax: StatusNA},
		// R3: approval 1/2 = 0.5 equals the max: not on the bad side, the
		// interval reaches it → INCONCLUSIVE, with no sample size.
		"R3": {CriterionPrecisionMin: StatusInconclusive, CriterionDangerousRecall: StatusNA, CriterionUnknownRateMax: StatusInconclusive,
			CriterionApprovalRejectRateMax: StatusInconclusive, CriterionFireRateChangeMax: StatusNA},
		// Judge: P95 1000 = max, 5 calls cannot bound it → INCONCLUSIVE;
		// judge-required 5/6: Wilson lo 0.4365 ≥ 0.2 → FAIL; unknown 3/10
		// clustered (above), wider than Wilson's [0.108, 0.603] →
		// INCONCLUSIVE.
		"*": {CriterionJudgeP95Max: StatusInconclusive, CriterionJudgeRequiredRateMax: StatusFail, CriterionUnknownRateMax: StatusInconclusive},
	}
	for rule, want := range wantStatus {
		r := j.Rule(rule)
		if len(r.Criteria) != len(want) {
			t.Errorf("%s has %d criteria, want %d", rule, len(r.Criteria), len(want))
		}
		for name, st := range want {
			if got := r.Status(name); got != st {
				t.Errorf("%s %s = %s, want %s (%s)", rule, name, got, st, r.Criterion(name).Reason)
			}
		}
	}
	if r := j.Rule("R3"); r.Status(CriterionJudgeP95Max) != "" {
		t.Error("a rule row must not carry judge_p95_max")
	}
	// R3 precision 1/1 (one unit, one session: Wilson): the hint in new
	// sessions of one unit each (hintScan).
	pc := j.Rule("R3").Criterion(CriterionPrecisionMin)
	if want := hintScan(1, 0.9, 1, true); pc.SamplesNeeded == nil || *pc.SamplesNeeded != want || *pc.MoreSamples != want-1 || *pc.MoreSessions != want-1 {
		t.Errorf("R3 precision samples = %v/%v, want %d", pc.SamplesNeeded, pc.MoreSamples, want)
	}
	// R3 unknown 0/2, one unit in each of two cases: Wilson.
	uc := j.Rule("R3").Criterion(CriterionUnknownRateMax)
	if want := hintScan(0, 0.1, 2, false); uc.SamplesNeeded == nil || *uc.SamplesNeeded != want || *uc.MoreSamples != want-2 {
		t.Errorf("R3 unknown samples = %v/%v, want %d", uc.SamplesNeeded, uc.MoreSamples, want)
	}
	if ac := j.Rule("R3").Criterion(CriterionApprovalRejectRateMax); ac.SamplesNeeded != nil {
		t.Errorf("approval at the threshold: samples = %d, want nil", *ac.SamplesNeeded)
	}
	for rule, v := range map[string]Verdict{"R1": VerdictInconclusive, "R2": VerdictNoGo, "R3": VerdictInconclusive, "*": VerdictNoGo} {
		if got := j.Rule(rule).Verdict; got != v {
			t.Errorf("%s verdict = %s, want %s", rule, got, v)
		}
	}
	if j.Verdict != VerdictNoGo || s.Verdict != VerdictNoGo {
		t.Errorf("judge/run verdict = %s/%s, want NO-GO", j.Verdict, s.Verdict)
	}

	// Stable JSON keys, nulls for what does not apply.
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"judges":`, `"rule_id":"*"`, `"baseline_recall":null`, `"latency_p95_ms":1000`,
		`"precision_min"`, fmt.Sprintf(`"samples_needed":%d`, hintScan(1, 0.9, 1, true)), `"unknown":{"unknown":1,"invalid":1,"timeout":1,"error":0}`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("summary JSON lacks %s", key)
		}
	}
}

// Splitting the input differently (shards) and feeding it in another
// order must give the same figures.
func TestOrderIndependent(t *testing.T) {
	t.Parallel()
	in := handSet()
	a := summarize(t, Config{Criteria: replay.DefaultKillCriteria()}, in)
	rev := make([]*replay.Result, len(in))
	for i, r := range in {
		rev[len(in)-1-i] = r
	}
	b := summarize(t, Config{Criteria: replay.DefaultKillCriteria()}, rev)
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		t.Errorf("order changed the summary:\n%s\n%s", ja, jb)
	}
}

func TestEmpty(t *testing.T) {
	t.Parallel()
	s := New(Config{Criteria: replay.DefaultKillCriteria()}).Close()
	if s.Verdict != VerdictInconclusive || len(s.Warnings) == 0 {
		t.Errorf("empty run: verdict %s, warnings %q", s.Verdict, s.Warnings)
	}
	b, err := json.Marshal(s)
	if err != nil || !strings.Contains(string(b), `"judges":[]`) {
		t.Errorf("empty JSON = %s (%v)", b, err)
	}
}

func TestBadConfidence(t *testing.T) {
	t.Parallel()
	crit := replay.DefaultKillCriteria()
	crit.Confidence = 0
	s := summarize(t, Config{Criteria: crit}, handSet())
	if s.Thresholds.Confidence != 0.95 || !strings.Contains(strings.Join(s.Warnings, "\n"), "confidence") {
		t.Errorf("confidence 0: got %v, warnings %q", s.Thresholds.Confidence, s.Warnings)
	}
}

func TestWarnings(t *testing.T) {
	t.Parallel()
	one := func(id string, version int, class, source, status string, call int, calls int) *replay.Result {
		r := rr("R", class, source, "match", "match", status, true, call)
		r.RuleVersion = version
		return &replay.Result{CaseID: id, Judge: "J", Rules: []replay.RuleResult{r}, Calls: make([]replay.Call, calls)}
	}
	s := summarize(t, Config{Criteria: replay.DefaultKillCriteria()}, []*replay.Result{
		one("a", 1, "style", "judge", "ok", 0, 1),
		one("a", 2, "style", "judge", "ok", 0, 1),     // same case again, new version
		one("b", 2, "dangerous", "judge", "ok", 0, 1), // class changed
		one("c", 2, "dangerous", "failure", "ok", 0, 1),
		one("d", 2, "dangerous", "oracle", "ok", -1, 0),
		one("e", 2, "dangerous", "judge", "ok", 3, 1),
	})
	w := ""
	for _, x := range s.Warnings {
		w += x + "\n"
	}
	for _, want := range []string{
		"J: 1 results repeat a case",
		"J: rules seen with more than one version (mixed policies?): R (1..2)",
		"J: 1 rules seen with more than one class",
		"J: 1 judged rule results carry no recognisable result or failure status",
		"J: 1 rule results carry an unknown source",
		"J: 1 rule results point at a call the case does not have",
	} {
		if !strings.Contains(w, want) {
			t.Errorf("warnings lack %q:\n%s", want, w)
		}
	}
	r := s.Judge("J").Rule("R")
	// The failure row with status ok counts as an error; its class is the
	// last seen, its version the highest.
	if r.Unknown.Error != 1 || r.Class != "dangerous" || r.RuleVersion != 2 {
		t.Errorf("row %+v", r)
	}
}

// TestFailurePolicyUnknown: replay routes a judge's own "unknown" answer
// through the failure policy (source failure, status unknown). It counts as
// unknown, not as an error, and raises no warning; a label match makes it a
// false negative.
func TestFailurePolicyUnknown(t *testing.T) {
	t.Parallel()
	calls := []replay.Call{call(100, "ok", false)}
	res := []*replay.Result{
		{CaseID: "a", Judge: "J", JudgeCalled: true, Calls: calls, Rules: []replay.RuleResult{rr("R", "dangerous", "failure", "unknown", "match", "unknown", true, 0)}},
		{CaseID: "b", Judge: "J", JudgeCalled: true, Calls: calls, Rules: []replay.RuleResult{rr("R", "dangerous", "failure", "unknown", "no_match", "timeout", false, 0)}},
	}
	s := summarize(t, Config{Criteria: replay.DefaultKillCriteria()}, res)
	r := s.Judge("J").Rule("R")
	if r.Unknown.Unknown != 1 || r.Unknown.Timeout != 1 || r.Unknown.Error != 0 {
		t.Errorf("breakdown = %+v, want unknown 1, timeout 1, error 0", r.Unknown)
	}
	if r.FN != 1 || r.TP != 0 || r.TN != 0 || r.FP != 0 {
		t.Errorf("TP/FP/FN/TN = %d/%d/%d/%d, want 0/0/1/0", r.TP, r.FP, r.FN, r.TN)
	}
	for _, w := range append(s.Warnings, s.Judge("J").Warnings...) {
		if strings.Contains(w, "recognisable") {
			t.Errorf("unexpected warning %q", w)
		}
	}
}

// TestScopeRowsAreNoEvidence: a rule skipped through an approved fingerprint
// (source scope, no result) is in scope but counts in no confusion cell.
func TestScopeRowsAreNoEvidence(t *testing.T) {
	t.Parallel()
	res := []*replay.Result{
		{CaseID: "a", Judge: "J", Rules: []replay.RuleResult{rr("R", "dangerous", "scope", "", "match", "ok", false, -1)}},
		{CaseID: "b", Judge: "J", Rules: []replay.RuleResult{rr("R", "dangerous", "deterministic", "match", "match", "ok", true, -1)}},
	}
	r := summarize(t, Config{Criteria: replay.DefaultKillCriteria()}, res).Judge("J").Rule("R")
	if r.TP != 1 || r.FN != 0 || r.Labeled != 1 || r.InScope != 2 {
		t.Errorf("TP %d FN %d labeled %d in scope %d; want 1, 0, 1, 2", r.TP, r.FN, r.Labeled, r.InScope)
	}
}

// TestRuleNeverInScope: a policy rule no case had in scope is listed with
// its reason and warned about, not silently dropped.
func TestRuleNeverInScope(t *testing.T) {
	t.Parallel()
	rs := []*replay.Result{{CaseID: "c1", Judge: "J", Rules: []replay.RuleResult{rr("A", "style", "judge", "match", "match", "ok", true, -1)}}}
	s := summarize(t, Config{Criteria: replay.DefaultKillCriteria(), PolicyRules: []string{"A", "B"}}, rs)
	j := s.Judges[0]
	if len(j.NeverInScope) != 1 || j.NeverInScope[0].RuleID != "B" || j.NeverInScope[0].Reason == "" {
		t.Fatalf("never in scope = %+v, want B with a reason", j.NeverInScope)
	}
	if !strings.Contains(strings.Join(s.Warnings, "\n"), "rule B was never in scope") {
		t.Errorf("no warning: %q", s.Warnings)
	}
}

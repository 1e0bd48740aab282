package metrics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/apeval/apeval/replay"
)

func defaultEval() *evaluator { return newEvaluator(replay.DefaultKillCriteria()) }

// units gives a row whose figures have one unit per session (the plain
// Wilson case), as Close would: every unit its own session.
func units(r *Row) *Row {
	set := func(lane int, x, n int64) {
		if n == 0 {
			return
		}
		o := &sessScratch{}
		for i := range n {
			o.ms = append(o.ms, 1)
			o.ys = append(o.ys, map[bool]int64{true: 1}[i < x])
		}
		r.setClustered(lane, clusteredOf(o, z95, 0.95))
	}
	set(lanePrec, r.TP, r.TP+r.FP)
	set(laneRec, r.TP, r.TP+r.FN)
	set(laneUnk, r.Unknown.Total(), r.Judged)
	if r.Cases > 0 {
		set(laneJR, r.JudgeRequired, r.Cases)
	}
	set(laneAppr, r.ApprovalRejected, r.ApprovalOutcomes)
	return r
}

func TestProportionCriteriaEdges(t *testing.T) {
	t.Parallel()
	e := defaultEval()
	type want struct {
		status Status
		needed int64 // 0 = nil
	}
	for _, tc := range []struct {
		name string
		c    Criterion
		want want
	}{
		// precision_min 0.9. A criterion FAILs only when the whole interval
		// lies on the bad side (see docs/statistics.md).
		// 8/10 = 0.8 < 0.9 but Wilson [0.4902, 0.9433] reaches 0.9 →
		// INCONCLUSIVE; the size that confirms the failure is the first n
		// whose upper bound at 0.8 is below 0.9 (hintScan).
		{"precision 8/10", e.precision(units(&Row{TP: 8, FP: 2})), want{StatusInconclusive, hintScan(0.8, 0.9, 10, false)}},
		// 80/100: centre (0.8 + z²/200)/(1 + z²/100) = 0.8193/1.0384 =
		// 0.7890, half 1.96·√(0.0016 + 0.000096)/1.0384 = 0.0777, hi 0.8667
		// < 0.9 → FAIL.
		{"precision 80/100", e.precision(units(&Row{TP: 80, FP: 20})), want{StatusFail, 0}},
		// 9/10 = 0.9 exactly: not below (seed: "< 90 %" kills), Wilson lo
		// 0.5958 < 0.9 → INCONCLUSIVE; at the threshold no n decides it.
		{"precision 9/10", e.precision(units(&Row{TP: 9, FP: 1})), want{StatusInconclusive, 0}},
		// 100/100: lo = 100/(100+z²) = 0.9630 > 0.9 → PASS.
		{"precision 100/100", e.precision(units(&Row{TP: 100})), want{StatusPass, 0}},
		// 0 predictions: INCONCLUSIVE (the exception to N/A in docs/statistics.md).
		{"precision 0/0", e.precision(units(&Row{})), want{StatusInconclusive, 0}},
		// 10/10: lo = 10/(10+z²) = 0.7225 → INCONCLUSIVE; the hint in
		// new sessions (one unit each) from the half-width 1 − 0.7225.
		{"precision 10/10", e.precision(units(&Row{TP: 10})), want{StatusInconclusive, hintScan(1, 0.9, 10, true)}},
		// unknown_rate_max 0.1: 1/10 = 0.1 is on the bad side (seed:
		// "≥ 10 %") but Wilson [0.0179, 0.4042] reaches below it →
		// INCONCLUSIVE; at the threshold itself no n decides it.
		{"unknown 1/10", e.unknownRate(units(&Row{Judged: 10, Unknown: UnknownBreakdown{Timeout: 1}})), want{StatusInconclusive, 0}},
		// 30/100: centre 0.3192/1.0384 = 0.3074, half 1.96·√(0.0021 +
		// 0.000096)/1.0384 = 0.0885, lo 0.2189 ≥ 0.1 → FAIL.
		{"unknown 30/100", e.unknownRate(units(&Row{Judged: 100, Unknown: UnknownBreakdown{Unknown: 30}})), want{StatusFail, 0}},
		// 0/100: hi = z²/(100+z²) = 0.0370 < 0.1 → PASS.
		{"unknown 0/100", e.unknownRate(units(&Row{Judged: 100})), want{StatusPass, 0}},
		// 0/20: hi = 0.1611 (Newcombe Table I) → INCONCLUSIVE; the hint
		// from the half-width 0.1611.
		{"unknown 0/20", e.unknownRate(units(&Row{Judged: 20})), want{StatusInconclusive, hintScan(0, 0.1, 20, false)}},
		{"unknown nothing judged", e.unknownRate(units(&Row{})), want{StatusNA, 0}},
		// judge_required_rate_max 0.2: 20/100 = the max, Wilson [0.1334,
		// 0.2888] → INCONCLUSIVE without a size; 500/1000: lo 0.4691 → FAIL;
		// 10/1000 → PASS (hi 0.0183); 1/10 → INCONCLUSIVE (hi 0.4042).
		{"judge required 20/100", e.judgeRequiredRate(units(&Row{Cases: 100, JudgeRequired: 20})), want{StatusInconclusive, 0}},
		{"judge required 500/1000", e.judgeRequiredRate(units(&Row{Cases: 1000, JudgeRequired: 500})), want{StatusFail, 0}},
		{"judge required 10/1000", e.judgeRequiredRate(units(&Row{Cases: 1000, JudgeRequired: 10})), want{StatusPass, 0}},
		{"judge required 1/10", e.judgeRequiredRate(units(&Row{Cases: 10, JudgeRequired: 1})), want{StatusInconclusive, hintScan(0.1, 0.2, 10, false)}},
		{"judge required no cases", e.judgeRequiredRate(units(&Row{})), want{StatusNA, 0}},
		// approval_reject_rate_max 0.5: 6/10, Wilson [0.3127, 0.8318] →
		// INCONCLUSIVE, confirmed once lo > 0.5 (neededAbove); 80/100: lo
		// 0.7112 → FAIL; 5/10 = max → INCONCLUSIVE without a sample size;
		// 2/100 → PASS.
		{"approval 6/10", e.approvalRejectRate(units(&Row{ApprovalOutcomes: 10, ApprovalRejected: 6})), want{StatusInconclusive, hintScan(0.6, 0.5, 10, true)}},
		{"approval 80/100", e.approvalRejectRate(units(&Row{ApprovalOutcomes: 100, ApprovalRejected: 80})), want{StatusFail, 0}},
		{"approval 5/10", e.approvalRejectRate(units(&Row{ApprovalOutcomes: 10, ApprovalRejected: 5})), want{StatusInconclusive, 0}},
		{"approval 2/100", e.approvalRejectRate(units(&Row{ApprovalOutcomes: 100, ApprovalRejected: 2})), want{StatusPass, 0}},
		{"approval none (approval rule)", e.approvalRejectRate(units(&Row{Action: "request_approval"})), want{StatusNA, 0}},
		{"approval none (other rule)", e.approvalRejectRate(units(&Row{Action: "audit_only"})), want{StatusNA, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.c.Status != tc.want.status {
				t.Errorf("status = %s, want %s (%s)", tc.c.Status, tc.want.status, tc.c.Reason)
			}
			switch {
			case tc.want.needed == 0 && tc.c.SamplesNeeded != nil:
				t.Errorf("samples needed = %d, want nil", *tc.c.SamplesNeeded)
			case tc.want.needed != 0 && (tc.c.SamplesNeeded == nil || *tc.c.SamplesNeeded != tc.want.needed):
				t.Errorf("samples needed = %v, want %d", derefI(tc.c.SamplesNeeded), tc.want.needed)
			case tc.want.needed != 0 && *tc.c.MoreSamples != tc.want.needed-tc.c.N:
				t.Errorf("more samples = %d, want %d", *tc.c.MoreSamples, tc.want.needed-tc.c.N)
			}
			if tc.c.Reason == "" {
				t.Error("no reason")
			}
		})
	}
}

func TestDangerousRecallEdges(t *testing.T) {
	t.Parallel()
	e := defaultEval()
	dangerous := func(pos, baseHits, judgeOnly, baseOnly int64) *Row {
		return &Row{Class: "dangerous", TP: baseHits - baseOnly + judgeOnly, FN: pos - (baseHits - baseOnly + judgeOnly),
			BaselinePositives: pos, BaselineHits: baseHits, JudgeOnlyHits: judgeOnly, BaselineOnlyHits: baseOnly}
	}
	dr := func(e *evaluator, pos, baseHits, judgeOnly, baseOnly int64) Criterion {
		both := baseHits - baseOnly
		return e.dangerousRecall(dangerous(pos, baseHits, judgeOnly, baseOnly), mcnemar{b: judgeOnly, c: baseOnly},
			oneUnitCells(both, judgeOnly, baseOnly, pos-both-judgeOnly-baseOnly), 1)
	}
	off := replay.DefaultKillCriteria()
	off.DangerousRecallMustBeatBaseline = false
	for _, tc := range []struct {
		name string
		c    Criterion
		want Status
		p    float64 // 0 = no p-value expected
	}{
		// 20 positives, baseline hits 5; judge-only 10, baseline-only 2:
		// one-sided P(X ≥ 10 | Bin(12, ½)) = 79/4096 = 0.0193 < 0.05 → PASS.
		{"beats", dr(e, 20, 5, 10, 2), StatusPass, 79.0 / 4096},
		// 9 vs 3: 299/4096 = 0.0730 ≥ 0.05 → INCONCLUSIVE.
		{"not yet", dr(e, 20, 5, 9, 3), StatusInconclusive, 299.0 / 4096},
		// 2 vs 2: difference 0, but its interval reaches above 0: no
		// evidence the judge is not better → INCONCLUSIVE.
		{"tie", dr(e, 20, 5, 2, 2), StatusInconclusive, 11.0 / 16}, // P(X ≥ 2 | Bin(4, ½))
		// 3 positives, the judge catching exactly what the baseline does:
		// not a FAIL on three cases.
		{"three equal", dr(e, 3, 2, 0, 0), StatusInconclusive, 1},
		// 1 vs 3: worse, but the interval still reaches above 0.
		{"worse", dr(e, 20, 5, 1, 3), StatusInconclusive, 0},
		// 0 vs 10 of 20: the interval lies wholly below 0 → FAIL.
		{"much worse", dr(e, 20, 12, 0, 10), StatusFail, 0},
		{"not dangerous", e.dangerousRecall(&Row{Class: "style", TP: 3, BaselinePositives: 3}, mcnemar{}, nil, 1), StatusNA, 0},
		{"no positives", e.dangerousRecall(&Row{Class: "dangerous", FP: 3}, mcnemar{}, nil, 1), StatusNA, 0},
		{"no baseline", e.dangerousRecall(&Row{Class: "dangerous", TP: 3}, mcnemar{}, nil, 1), StatusNA, 0},
		{"disabled", dr(newEvaluator(off), 20, 5, 10, 2), StatusNA, 0},
	} {
		if tc.c.Status != tc.want {
			t.Errorf("%s: status %s, want %s (%s)", tc.name, tc.c.Status, tc.want, tc.c.Reason)
		}
		if tc.p != 0 {
			if tc.c.PValue == nil {
				t.Errorf("%s: no p-value", tc.name)
			} else {
				near(t, tc.name+" p", *tc.c.PValue, tc.p, 1e-12)
			}
		}
	}
	// Estimate = (judge-only − baseline-only)/positives = (10−2)/20.
	if c := dr(e, 20, 5, 10, 2); *c.Estimate != 0.4 || *c.Lo >= 0.4 || *c.Hi <= 0.4 {
		t.Errorf("estimate %v [%v, %v], want 0.4 inside", *c.Estimate, *c.Lo, *c.Hi)
	}
	// The INCONCLUSIVE case says how many new sessions (here of one
	// positive each: 20 sessions, judge-only 9, baseline-only 3) would
	// decide it with 80 % probability: gainScan, a linear scan of the
	// normal power of the continuity-corrected sign test.
	c := dr(e, 20, 5, 9, 3)
	wantS := gainScan(20, 6, 12, 1.6448536269514722)
	if c.MoreSessions == nil || *c.MoreSessions != wantS || *c.MoreSamples != wantS || *c.SamplesNeeded != 20+wantS {
		t.Errorf("more sessions = %v, want %d", c.MoreSessions, wantS)
	}
	if !strings.Contains(c.Reason, fmt.Sprintf("about %d more sessions like these, ≈ %d labeled positives, would decide it with 80%% probability", wantS, wantS)) {
		t.Errorf("reason %q", c.Reason)
	}
}

// gainScan is the reference for dangerous recall's hint: k sessions with
// Σd = s and Σd² = ss; new sessions bring d with mean s/k and spread
// √(ss/k − (s/k)²), raised by √((k−1)/χ²₀.₁(k−1)); the first n = 1, 2, …
// with Φ((s − 1 + n·μ − z·√(ss + n·ss/k))/(σ·√n)) ≥ 0.8.
func gainScan(k, s, ss, z float64) int64 {
	mu, m2 := s/k, ss/k
	sd := math.Sqrt(m2-mu*mu) * math.Sqrt((k-1)/distuv.ChiSquared{K: k - 1}.Quantile(0.1))
	for n := 1.0; ; n++ {
		if distuv.UnitNormal.CDF((s-1+n*mu-z*math.Sqrt(ss+n*m2))/(sd*math.Sqrt(n))) >= 0.8 {
			return int64(n)
		}
	}
}

func TestJudgeP95Edges(t *testing.T) {
	t.Parallel()
	e := defaultEval()
	row := func(vals ...float64) *Row {
		r := &Row{Calls: int64(len(vals))}
		e.latency(r, singleCalls(vals))
		return r
	}
	flat := func(n int, v float64) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = v
		}
		return out
	}
	// 100 calls: the upper bound is rank 100 (TestQuantileInterval).
	tail := append(flat(99, 500), 1200)
	over := append(flat(90, 500), flat(10, 1500)...)
	off := replay.DefaultKillCriteria()
	off.JudgeP95Max = 0
	for _, tc := range []struct {
		name string
		c    Criterion
		want Status
	}{
		{"100 calls at 500 ms", e.judgeP95(row(flat(100, 500)...)), StatusPass},
		// P95 = 95th = 500 but the 100th (upper bound) is 1200 → INCONCLUSIVE.
		{"tail reaches", e.judgeP95(row(tail...)), StatusInconclusive},
		// P95 = 95th = 1500 > 1000, but its lower bound (rank 90, 500 ms)
		// is not above 1000 → INCONCLUSIVE, not confirmed.
		{"over", e.judgeP95(row(over...)), StatusInconclusive},
		// 100 calls at 1500 ms: every bound is 1500 > 1000 → FAIL.
		{"all over", e.judgeP95(row(flat(100, 1500)...)), StatusFail},
		// 10 calls cannot bound a P95 from above (72 needed).
		{"10 fast calls", e.judgeP95(row(flat(10, 5)...)), StatusInconclusive},
		{"no calls", e.judgeP95(&Row{}), StatusNA},
		{"disabled", newEvaluator(off).judgeP95(row(flat(100, 500)...)), StatusNA},
	} {
		if tc.c.Status != tc.want {
			t.Errorf("%s: status %s, want %s (%s)", tc.name, tc.c.Status, tc.want, tc.c.Reason)
		}
	}
	if c := e.judgeP95(row(flat(100, 500)...)); c.Threshold != 1000 || *c.Hi != 500 {
		t.Errorf("threshold %v hi %v, want 1000 / 500", c.Threshold, *c.Hi)
	}
	crit := replay.DefaultKillCriteria()
	crit.JudgeP95Max = 400 * time.Millisecond
	if c := newEvaluator(crit).judgeP95(row(flat(100, 500)...)); c.Status != StatusFail {
		t.Errorf("400 ms max: %s", c.Status)
	}
}

func TestFireRateChangeEdges(t *testing.T) {
	t.Parallel()
	e := defaultEval()
	for _, tc := range []struct {
		name       string
		a, b, c, d int64
		want       Status
		needed     int64
	}{
		// 500 both, 500 neither: interval ±0.00196 (Newcombe, φ = 0.998)
		// inside ±0.05 → PASS.
		{"stable", 500, 0, 0, 500, StatusPass, 0},
		// 5 both, 5 neither: ±0.1666 reaches ±0.05 → INCONCLUSIVE; scaling
		// new sessions like these (fireScan sizes it).
		{"small", 5, 0, 0, 5, StatusInconclusive, fireScan(5, 0, 0, 5, 0.05, true)},
		// (13 − 3)/41 = 0.244 > 0.05 → FAIL.
		{"drift", 10, 13, 3, 15, StatusFail, 0},
		// Decrease: (0 − 10)/100 = −0.1, Newcombe [−0.1599, −0.0380]
		// reaches inside ±0.05 → INCONCLUSIVE until the interval lies wholly
		// outside (fireOutside scans for the size).
		{"drop", 40, 0, 10, 50, StatusInconclusive, fireScan(40, 0, 10, 50, 0.05, false)},
		// Ten times the table: −0.1 with [−0.1186, −0.0812] → FAIL.
		{"drop confirmed", 400, 0, 100, 500, StatusFail, 0},
		{"no pairs", 0, 0, 0, 0, StatusNA, 0},
	} {
		c := e.fireRateChange(oneUnitCells(tc.a, tc.b, tc.c, tc.d))
		if c.Status != tc.want {
			t.Errorf("%s: %s, want %s (%s)", tc.name, c.Status, tc.want, c.Reason)
		}
		if tc.needed != 0 && (c.SamplesNeeded == nil || *c.SamplesNeeded != tc.needed) {
			t.Errorf("%s: samples %v, want %d", tc.name, c.SamplesNeeded, tc.needed)
		}
	}
}

// oneUnitCells is a paired table of one unit per session: a both, b
// first side only, c second only, d neither.
func oneUnitCells(a, b, c, d int64) *pairDiff {
	var s []pairSess
	for range a {
		s = append(s, pairSess{1, 1, 1, 1})
	}
	for range b {
		s = append(s, pairSess{1, 0, 0, 1})
	}
	for range c {
		s = append(s, pairSess{0, 1, 0, 1})
	}
	for range d {
		s = append(s, pairSess{0, 0, 0, 1})
	}
	return newPairDiff(s)
}

// fireScan is the reference for the drift hint on a table of one unit
// per session (k = n sessions): Newcombe's paired interval gives the
// half-widths toward +m and −m, each se = half/z raised by
// √((n−1)/χ²₀.₁(n−1)); after s new sessions a side moves past its limit
// with Φ((D − z·u)/(u·√(1 − u²))), u = √(n/(n+s)), D = |est − limit|/se;
// outside: the side facing the nearer limit; inside: both,
// 1 − Σ(1 − P). The first s = 1, 2, … reaching 0.8, plus n.
func fireScan(a, b, c, d int64, m float64, inside bool) int64 {
	n := float64(a + b + c + d)
	est, lo, hi := NewcombePaired(float64(a), float64(b), float64(c), float64(d), z95)
	up := math.Sqrt((n - 1) / distuv.ChiSquared{K: n - 1}.Quantile(0.1))
	p := func(limit, half, s float64) float64 {
		se := half / z95 * up
		u := math.Sqrt(n / (n + s))
		return distuv.UnitNormal.CDF((math.Abs(est-limit)/se - z95*u) / (u * math.Sqrt(1-u*u)))
	}
	for s := 1.0; ; s++ {
		var ok bool
		switch {
		case inside:
			ok = 1-(1-p(m, hi-est, s))-(1-p(-m, est-lo, s)) >= 0.8
		case est > 0:
			ok = p(m, est-lo, s) >= 0.8
		default:
			ok = p(-m, hi-est, s) >= 0.8
		}
		if ok {
			return int64(n + s)
		}
	}
}

func TestVerdicts(t *testing.T) {
	t.Parallel()
	cs := func(ss ...Status) []Criterion {
		var out []Criterion
		for _, s := range ss {
			out = append(out, Criterion{Status: s})
		}
		return out
	}
	for _, tc := range []struct {
		in   []Criterion
		want Verdict
	}{
		{cs(StatusPass, StatusPass), VerdictGo},
		{cs(StatusPass, StatusNA), VerdictGo},
		{cs(StatusNA), VerdictGo},
		{cs(StatusPass, StatusInconclusive, StatusNA), VerdictInconclusive},
		{cs(StatusInconclusive, StatusFail, StatusPass), VerdictNoGo},
	} {
		if got := verdictOf(tc.in); got != tc.want {
			t.Errorf("verdictOf(%v) = %s, want %s", tc.in, got, tc.want)
		}
	}
	if Worst() != VerdictGo || Worst(VerdictGo, VerdictInconclusive) != VerdictInconclusive || Worst(VerdictNoGo, VerdictInconclusive) != VerdictNoGo {
		t.Error("Worst ordering")
	}
	base := &JudgeSummary{Judge: "B", Verdict: VerdictNoGo}
	cand := &JudgeSummary{Judge: "C", Verdict: VerdictGo}
	if v := runVerdict([]*JudgeSummary{base, cand}, base); v != VerdictGo {
		t.Errorf("run verdict with a failing baseline = %s, want the candidate's GO", v)
	}
	if v := runVerdict([]*JudgeSummary{base, cand}, nil); v != VerdictNoGo {
		t.Errorf("run verdict without baseline = %s, want NO-GO", v)
	}
	if v := runVerdict([]*JudgeSummary{base}, base); v != VerdictNoGo {
		t.Errorf("baseline alone = %s, want its own NO-GO", v)
	}
}

func derefI(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestDangerousRecallHintUnderHolm: with two dangerous rules the hint is
// sized at the level Holm's first step asks, α/2, and its clause replaces
// the one sized at α.
func TestDangerousRecallHintUnderHolm(t *testing.T) {
	t.Parallel()
	e := defaultEval()
	row := func() *Row {
		r := &Row{Class: "dangerous", TP: 2 + 9, FN: 20 - 11, BaselinePositives: 20, BaselineHits: 5, JudgeOnlyHits: 9, BaselineOnlyHits: 3}
		r.Criteria = []Criterion{e.dangerousRecall(r, mcnemar{b: 9, c: 3}, oneUnitCells(2, 9, 3, 6), 1)}
		return r
	}
	rows := []*Row{row(), row()}
	alone := gainScan(20, 6, 12, 1.6448536269514722)
	if c := rows[0].Criteria[0]; c.MoreSessions == nil || *c.MoreSessions != alone {
		t.Fatalf("before Holm: %v, want %d", c.MoreSessions, alone)
	}
	e.holmDangerous(rows)
	want := gainScan(20, 6, 12, 1.959963984540054) // z at 1 − 0.05/2
	c := rows[0].Criteria[0]
	if c.Status != StatusInconclusive || c.MoreSessions == nil || *c.MoreSessions != want || want <= alone {
		t.Errorf("under Holm: %v, want %d (alone %d)", c.MoreSessions, want, alone)
	}
	if strings.Count(c.Reason, "more sessions like these") != 1 || !strings.Contains(c.Reason, fmt.Sprintf("about %d more sessions", want)) {
		t.Errorf("reason %q", c.Reason)
	}
}

// dangerous recall on the unweighted path prints the bounds that invert
// its own test: enumerating one-unit sessions (5–60 positives, every
// judge-only / baseline-only split), PASS exactly when the one-sided
// lower bound lies above 0 exactly when the one-sided McNemar p < 0.05,
// FAIL exactly when the upper bound lies below 0 (exactly when the
// reverse test rejects), the bounds within [−1, 1] around the estimate
// and named for what they are. Before, 91 splits PASSed beside a 95 % CI
// reaching 0 or below (13 vs 5 of 20: p = 0.048, [−0.011, 0.690]) and 6
// were INCONCLUSIVE beside one wholly above 0 (4 of 5: p = 0.0625,
// [0.193, 0.964]).
func TestRecallGainBoundsAreItsTest(t *testing.T) {
	t.Parallel()
	e := defaultEval()
	step := int64(1)
	if testing.Short() {
		step = 5
	}
	for n := int64(5); n <= 60; n++ {
		for b := int64(0); b <= n; b++ {
			for c := int64(0); b+c <= n; c++ {
				if n > 20 && (b+c)%step != 0 {
					continue
				}
				r := &Row{Class: "dangerous", TP: b, FN: n - b, BaselinePositives: n, BaselineHits: c, JudgeOnlyHits: b, BaselineOnlyHits: c}
				cr := e.dangerousRecall(r, mcnemar{b: b, c: c}, oneUnitCells(0, b, c, n-b-c), 1)
				p, lo, hi, est := *cr.PValue, *cr.Lo, *cr.Hi, *cr.Estimate
				pL := McNemarGreater(c, b)
				if (lo > 0) != (p < 0.05) || (cr.Status == StatusPass) != (lo > 0) || (cr.Status == StatusFail) != (hi < 0) || (hi < 0) != (pL < 0.05) ||
					lo < -1 || hi > 1 || lo > est || hi < est {
					t.Fatalf("%d vs %d of %d: %s p=%g (reverse %g) est %g [%g, %g]", b, c, n, cr.Status, p, pL, est, lo, hi)
				}
				if cr.Bounds != "one-sided 95% bounds" || !strings.Contains(cr.Reason, "one-sided 95% bounds [") || strings.Contains(cr.Reason, "CI") {
					t.Fatalf("%d vs %d of %d: %q %s", b, c, n, cr.Bounds, cr.Reason)
				}
				switch {
				case n == 20 && b == 13 && c == 5:
					if cr.Status != StatusPass || math.Abs(p-0.048126) > 1e-6 {
						t.Errorf("13 vs 5 of 20: %s", cr.Reason)
					}
				case n == 5 && b == 4 && c == 0:
					if cr.Status != StatusInconclusive || math.Abs(p-0.0625) > 1e-12 || lo > 0 {
						t.Errorf("4 of 5: %s", cr.Reason)
					}
				}
			}
		}
	}
}

// clusteredRecall is dangerous recall over sessions, each {judge-only,
// baseline-only, both, neither} positives, as Close builds it.
func clusteredRecall(e *evaluator, sess [][4]int64, seed uint64) Criterion {
	var ps []pairSess
	var m mcnemar
	r := &Row{Class: "dangerous"}
	for _, s := range sess {
		j, b, both, none := s[0], s[1], s[2], s[3]
		n := j + b + both + none
		ps = append(ps, pairSess{y1: j + both, y2: b + both, y12: both, m: n})
		m.addSessions(j-b, j+b, 1)
		r.BaselinePositives += n
		r.BaselineHits += b + both
		r.JudgeOnlyHits += j
		r.BaselineOnlyHits += b
		r.TP += j + both
		r.FN += n - j - both
	}
	return e.dangerousRecall(r, m, newPairDiff(ps), seed)
}

// The clustered case: the sign flip over sessions is inverted over the
// difference (sessionFlipGain), so its p (the old test's, exactly) and
// the one-sided bounds agree. By hand: 6 sessions of 4 positives, the
// judge alone catching 3, 2, 2, 1, 1, 0: p = 2/64, and sorting the 63
// flip patterns by the gain of the sessions they flip, lo = 1/8 (the
// fourth of 64 from the bottom counting the pattern that flips nothing,
// 3.2 needed), hi = 5/8 — the labeled path's own figures on census
// labels (TestLabeledGainHandComputed). On random clustered sessions (3–40,
// up to 6 discordant positives each, either way): PASS exactly when the
// lower bound is above 0 exactly when p < 0.05, FAIL exactly when the
// upper is below 0, p the one-sided SignFlip's.
func TestClusteredRecallGainBoundsAreItsTest(t *testing.T) {
	t.Parallel()
	e := defaultEval()
	c := clusteredRecall(e, [][4]int64{{3, 0, 0, 1}, {2, 0, 0, 2}, {2, 0, 0, 2}, {1, 0, 0, 3}, {1, 0, 0, 3}, {0, 0, 0, 4}}, 1)
	if c.Status != StatusPass || math.Abs(*c.PValue-1.0/32) > 1e-12 || math.Abs(*c.Lo-0.125) > 1e-12 || math.Abs(*c.Hi-0.625) > 1e-12 {
		t.Errorf("hand case: %s", c.Reason)
	}
	if !strings.Contains(c.Reason, "one-sided sign-flip over sessions p=0.03125") || !strings.Contains(c.Reason, "one-sided 95% bounds [0.125, 0.625]") {
		t.Errorf("hand case reason: %s", c.Reason)
	}
	rng := rand.New(rand.NewPCG(3, 7))
	for range 300 {
		k := 3 + rng.IntN(38)
		lean := rng.Float64()
		sess := make([][4]int64, k)
		var ds []int64
		for i := range sess {
			for range 1 + rng.IntN(6) {
				switch u := rng.Float64(); {
				case u < 0.25*lean:
					sess[i][0]++
				case u < 0.25:
					sess[i][1]++
				case u < 0.6:
					sess[i][2]++
				default:
					sess[i][3]++
				}
			}
			ds = append(ds, sess[i][0]-sess[i][1])
		}
		c := clusteredRecall(e, sess, 1)
		p, lo, hi, est := *c.PValue, *c.Lo, *c.Hi, *c.Estimate
		if (lo > 0) != (p < 0.05) || (c.Status == StatusPass) != (lo > 0) || (c.Status == StatusFail) != (hi < 0) ||
			lo < -1 || hi > 1 || lo > est || hi < est {
			t.Fatalf("%v: %s", sess, c.Reason)
		}
		if f := SignFlip(ds, 1); f.mcErr == nil && !strings.Contains(c.Reason, "McNemar") && math.Abs(f.greater-p) > 1e-9 {
			t.Fatalf("%v: p %g, the sign flip's %g", sess, p, f.greater)
		}
	}
}

// Under Holm the bounds move to Holm's level for the rule (holmLevels),
// so a PASS still goes with a lower bound above 0 and an open rule with
// one at or below it. Two rules at p = 0.0193 (10 vs 2 of 20) and 0.0481
// (13 vs 5 of 20): Holm rejects both, at one-sided 97.5 % and 95 %.
// Three rules at 0.0193: Holm's first step asks p < 0.0167, so none
// passes, each beside its one-sided 98.33 % bounds, which reach 0 (at
// 95 % alone they clear it).
func TestRecallGainBoundsUnderHolm(t *testing.T) {
	t.Parallel()
	e := defaultEval()
	row := func(b, c int64) *Row {
		r := &Row{Class: "dangerous", TP: b, FN: 20 - b, BaselinePositives: 20, BaselineHits: c, JudgeOnlyHits: b, BaselineOnlyHits: c}
		r.Criteria = []Criterion{e.dangerousRecall(r, mcnemar{b: b, c: c}, oneUnitCells(0, b, c, 20-b-c), 1)}
		return r
	}
	check := func(name string, rows []*Row, want []Status, bounds []string) {
		t.Helper()
		e.holmDangerous(rows)
		for i, r := range rows {
			c := r.Criteria[0]
			if c.Status != want[i] || c.Bounds != bounds[i] || (*c.Lo > 0) != (*c.PAdjusted < 0.05) || (c.Status == StatusPass) != (*c.Lo > 0) ||
				!strings.Contains(c.Reason, bounds[i]+" [") || !strings.Contains(c.Reason, "Holm-adjusted over") {
				t.Errorf("%s rule %d: %s (%s) p_adj %g lo %g: %s", name, i, c.Status, c.Bounds, *c.PAdjusted, *c.Lo, c.Reason)
			}
		}
	}
	check("two", []*Row{row(10, 2), row(13, 5)}, []Status{StatusPass, StatusPass}, []string{"one-sided 97.5% bounds", "one-sided 95% bounds"})
	alone := row(10, 2).Criteria[0]
	if alone.Status != StatusPass || *alone.Lo <= 0 {
		t.Fatalf("10 vs 2 alone: %s", alone.Reason)
	}
	check("three", []*Row{row(10, 2), row(10, 2), row(10, 2)}, []Status{StatusInconclusive, StatusInconclusive, StatusInconclusive},
		[]string{"one-sided 98.33% bounds", "one-sided 98.33% bounds", "one-sided 98.33% bounds"})
}

// The sessions' sign flip is discrete, so its upper bound often lands
// exactly on 0 where the test the other way does not reject a gain of 0:
// 4 sessions in which the baseline alone catches 2 positives and 2 in
// which both catch alike give bounds [−0.4, 0] with a reverse p of 1/16.
// That is no evidence that the judge is not better: INCONCLUSIVE, not
// FAIL (FAILing on an upper bound at 0 gave a judge 0.02 better than its
// baseline, 10 sessions of 5 positives, a false FAIL 0.066 of the time,
// over α). A fifth such session (reverse p = 1/32) FAILs.
func TestRecallGainFailNeedsTheReverseTest(t *testing.T) {
	t.Parallel()
	e := defaultEval()
	worse, alike := [4]int64{0, 2, 2, 1}, [4]int64{0, 0, 4, 1}
	c := clusteredRecall(e, [][4]int64{worse, worse, worse, worse, alike, alike}, 1)
	if c.Status != StatusInconclusive || *c.Hi != 0 || math.Abs(*c.Lo+0.4) > 1e-12 {
		t.Errorf("4 sessions worse: %s [%g, %g], want INCONCLUSIVE on [−0.4, 0]: %s", c.Status, *c.Lo, *c.Hi, c.Reason)
	}
	// A negative bound takes a true minus, as the tables print one.
	if !strings.Contains(c.Reason, "bounds [−0.4, 0]") {
		t.Errorf("4 sessions worse: %s", c.Reason)
	}
	c = clusteredRecall(e, [][4]int64{worse, worse, worse, worse, worse, alike}, 1)
	if c.Status != StatusFail || *c.Hi >= 0 {
		t.Errorf("5 sessions worse: %s [%g, %g], want FAIL below 0: %s", c.Status, *c.Lo, *c.Hi, c.Reason)
	}
}

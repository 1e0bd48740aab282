package metrics

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/apeval/apeval/replay"
)

// unknownRun is n cases of judge J, each its own session, one rule judged
// on each, unk of them answered unknown.
func unknownRun(n, unk int) *Summary {
	a := New(Config{Criteria: replay.DefaultKillCriteria()})
	for i := range n {
		res, status := "no_match", "ok"
		if i < unk {
			res, status = "unknown", "unknown"
		}
		a.Add(&replay.Result{RunID: "r", CaseID: fmt.Sprintf("c%d", i), SessionID: fmt.Sprintf("s%d", i), Judge: "J",
			JudgeCalled: true, Calls: []replay.Call{call(100, "ok", false)},
			Rules: []replay.RuleResult{rr("R", "style", "judge", res, "", status, false, 0)}})
	}
	return a.Close()
}

// A "+N" hint that no realistic amount of new data can meet (an estimate
// just beside its threshold) says it is at the limit instead of quoting a
// figure of millions as if it were a plan; a hint within reach reads as
// before.
func TestMoreHintAtTheLimit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		n, unk int
		limit  bool
	}{
		{1000, 101, true},    // 0.101 vs 0.10: about 600,000 more
		{10000, 1030, false}, // 0.103 vs 0.10: about 70,000 more
	} {
		s := unknownRun(tc.n, tc.unk)
		c := s.Judge("J").Rule("R").Criterion(CriterionUnknownRateMax)
		if c == nil || c.Status != StatusInconclusive || c.MoreSamples == nil {
			t.Fatalf("n=%d: criterion %+v", tc.n, c)
		}
		if got := AtLimit(*c.MoreSamples, c.N); got != tc.limit {
			t.Errorf("n=%d: +%d at the limit = %v, want %v", tc.n, *c.MoreSamples, got, tc.limit)
		}
		if got := strings.Contains(c.Reason, "; at the limit: "); got != tc.limit {
			t.Errorf("n=%d: reason %q", tc.n, c.Reason)
		}
		if !tc.limit && !strings.Contains(c.Reason, fmt.Sprintf("; about %d more sessions like these, ≈ %d units, would confirm the failure with 80%% probability", *c.MoreSessions, *c.MoreSamples)) {
			t.Errorf("n=%d: reason %q", tc.n, c.Reason)
		}
	}
	for _, tc := range []struct {
		more, n int64
		want    bool
	}{{100_000, 1000, false}, {100_001, 1000, true}, {100_001, 20_000, false}, {3_154_905, 30_000, true}} {
		if got := AtLimit(tc.more, tc.n); got != tc.want {
			t.Errorf("AtLimit(%d, %d) = %v", tc.more, tc.n, got)
		}
	}
}

// hintScan is the reference for a session-sized hint on n units, one per
// session, at rate p against thr: Wilson's half-width toward thr (the
// lower side when up) gives se₀ = h₀/z, raised by √((n−1)/χ²₀.₁(n−1)),
// and D = |p − thr|/se₀; the first s = 1, 2, … new sessions with
// Φ((D − z·u)/(u·√(1−u²))) ≥ 0.8, u = √(n/(n+s)), by plain linear scan.
// It returns n + s.
func hintScan(p, thr float64, n int64, up bool) int64 {
	z := zScore(0.95)
	lo, hi := Wilson(p*float64(n), float64(n), z)
	h0 := hi - p
	if up {
		h0 = p - lo
	}
	se := h0 / z
	if n > 1 {
		se *= math.Sqrt(float64(n-1) / distuv.ChiSquared{K: float64(n - 1)}.Quantile(0.1))
	}
	d := math.Abs(p-thr) / se
	for s := int64(1); ; s++ {
		u := math.Sqrt(float64(n) / float64(n+s))
		if distuv.UnitNormal.CDF((d-z*u)/(u*math.Sqrt(1-u*u))) >= 0.8 {
			return n + s
		}
	}
}

// TestLabelHintNotOnAnEstimateHighByChance: a population of the
// near-threshold calibration row (precision ≈ 0.71 against 0.65, 300
// labels of the queue, 19 of them on the judge's matches) whose estimate,
// 0.846, lies far above the recorded pairs' own precision by chance. The
// check centred on the estimate named "about 178 more labels", and
// labeling every pair left it INCONCLUSIVE: the promise could not be
// kept. With the recorded pairs' figure taken at its one-sided 90 %
// bound, the hint says labels alone are unlikely to decide and names
// sessions of new traffic.
func TestLabelHintNotOnAnEstimateHighByChance(t *testing.T) {
	t.Parallel()
	crit := replay.DefaultKillCriteria()
	crit.PrecisionMin = 0.65
	pop := simPopulationSeed(10984986628214318559)
	eval := func(k int) Criterion {
		us := queueUnitsOther(pop, 3000, k, 13893196076374276685)
		return SamplePrecision(WeightedPrecision(us, crit.Confidence).WithTraffic(600, 3000), crit)
	}
	if all := eval(3000); all.Status != StatusInconclusive {
		t.Fatalf("labeling every pair: %s (%s); the case needs a population labels cannot decide", all.Status, all.Reason)
	}
	c := eval(300)
	if c.Status != StatusInconclusive || c.MoreSamples == nil {
		t.Fatalf("300 labels: %s, %s", c.Status, c.Reason)
	}
	if c.MoreSessions == nil || !strings.Contains(c.Reason, "labels alone are not shown to clear it") {
		t.Errorf("the hint names labels that cannot decide: %s", c.Reason)
	}
	t.Log(c.Reason)
}

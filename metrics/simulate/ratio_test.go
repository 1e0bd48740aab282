package simulate

import (
	"math"
	"testing"

	"github.com/apeval/apeval/metrics"
)

// TestRatioInterval checks RatioInterval against values computed by hand
// (t quantiles from tables: t₂(0.975) = 4.302653, t₁(0.975) = 12.706205).
func TestRatioInterval(t *testing.T) {
	near := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-6 {
			t.Errorf("%s = %.9f, want %.9f", name, got, want)
		}
	}
	// Three sessions 3/4, 1/4, 2/2: R = 0.6; residuals 0.6, −1.4, 0.8 over
	// 1 − m/M = 0.6, 0.6, 0.8 sum to 4.666667, v = 0.04666667, n_eff =
	// 0.24/v = 5.142857; Wilson at 0.6 with n 5.142857 and z = t₂.
	lo, hi := RatioInterval([]int64{3, 1, 2}, []int64{4, 4, 2}, 0.95)
	near("lo", lo, 0.081345872)
	near("hi", hi, 0.962135082)
	// Sessions without units are ignored.
	lo2, hi2 := RatioInterval([]int64{3, 0, 1, 2}, []int64{4, 0, 4, 2}, 0.95)
	near("lo with an empty session", lo2, lo)
	near("hi with an empty session", hi2, hi)
	// 5/10 and 4/10: n_eff = 0.2475/0.0025 = 99 is capped at M = 20
	// (design effect ≥ 1); z = t₁.
	lo, hi = RatioInterval([]int64{5, 4}, []int64{10, 10}, 0.95)
	near("capped lo", lo, 0.023109247)
	near("capped hi", hi, 0.965868289)
	// No spread between sessions (every one all successes) or a single
	// session: the variance says nothing; the beta-binomial interval.
	for _, c := range []struct{ ys, ms []int64 }{{[]int64{4, 6, 3}, []int64{4, 6, 3}}, {[]int64{7}, []int64{9}}} {
		lo, hi = RatioInterval(c.ys, c.ms, 0.95)
		blo, bhi, _ := metrics.ClusteredInterval(c.ys, c.ms, 0.95)
		if lo != blo || hi != bhi {
			t.Errorf("%v/%v: [%g, %g], want the beta-binomial's [%g, %g]", c.ys, c.ms, lo, hi, blo, bhi)
		}
		if lo >= float64(sum(c.ys))/float64(sum(c.ms)) {
			t.Errorf("%v/%v: lower bound %g does not lie below the rate", c.ys, c.ms, lo)
		}
	}
}

func sum(v []int64) int64 {
	var s int64
	for _, x := range v {
		s += x
	}
	return s
}

// A row survives packing into 8 bytes, every field at its extremes.
func TestRowPack(t *testing.T) {
	for _, r := range []row{
		{},
		{rule: 65535, label: labNoMatch, outcome: outMissing, judged: true, scope: true, timedOut: true, fired: true, baseline: true, action: 7, conf: 0.25},
		{rule: 3, label: labMatch, outcome: outFailed, fired: true, action: 2, conf: float32(math.Inf(-1))},
		{rule: 1, outcome: outUnknown, judged: true, baseline: true, conf: 1},
	} {
		if got := r.pack().unpack(); got != r {
			t.Errorf("pack/unpack %+v = %+v", r, got)
		}
	}
	nan := row{conf: float32(math.NaN())}.pack().unpack()
	if !math.IsNaN(float64(nan.conf)) {
		t.Errorf("NaN confidence came back as %g", nan.conf)
	}
}

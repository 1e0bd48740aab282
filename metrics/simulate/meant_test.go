package simulate

import (
	"math"
	"testing"
)

// Approvals per session when every session has the same count: the t
// interval had no width ("0.00 [0.00, 0.00]" on 23 real sessions without
// an approval); it is the exact Poisson interval of the count per session,
// checked against hand-computed values. A spread keeps the t interval.
func TestMeanTNoSpread(t *testing.T) {
	near := func(what string, got *float64, want float64) {
		t.Helper()
		if got == nil {
			t.Errorf("%s = nil, want %.4f", what, want)
		} else if math.Abs(*got-want) > 5e-4 {
			t.Errorf("%s = %.4f, want %.4f", what, *got, want)
		}
	}
	// 23 sessions, none: [0, −ln(0.025)/23].
	est, lo, hi := meanT([3]float64{23, 0, 0}, 0.95)
	near("none: est", est, 0)
	near("none: lo", lo, 0)
	near("none: hi", hi, -math.Log(0.025)/23) // 0.1604
	// 10 sessions of 2 each: S = 20, [χ²(.025; 40)/2, χ²(.975; 42)/2]/10 = [24.433/20, 61.777/20].
	est, lo, hi = meanT([3]float64{10, 20, 40}, 0.95)
	near("two each: est", est, 2)
	near("two each: lo", lo, 24.4330/20)
	near("two each: hi", hi, 61.7767/20)
	// 4 sessions 0, 1, 2, 3 (the t interval, cut at 0): mean 1.5, s² = 5/3, t(.975; 3) = 3.1824.
	est, lo, hi = meanT([3]float64{4, 6, 14}, 0.95)
	h := 3.182446 * math.Sqrt(5.0/3/4)
	near("spread: est", est, 1.5)
	near("spread: lo", lo, max(0, 1.5-h)) // cut at 0
	near("spread: hi", hi, 1.5+h)
}

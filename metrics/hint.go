package metrics

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// SessionHint is a "+N" sized for data that arrive as new sessions
// (docs/statistics.md, "Hints that keep their promise"): about Sessions
// more sessions like the observed ones, ≈ Units units, would decide the
// criterion with probability Assurance.
type SessionHint struct {
	Sessions, Units int64
	Assurance       float64
}

// HintInputs is what a proportion's hint rests on: the estimate, the
// threshold, the half-width of the interval the verdict used on the side
// facing the threshold (how far the method says the figure may lie from
// the estimate there), the normal quantile z of its confidence, and the
// data's units M and sessions K.
type HintInputs struct {
	Estimate, Threshold, HalfWidth, Z float64
	M, K                              float64
}

// SessionsToDecide sizes the hint: the fewest new sessions after which
// the interval decides with probability target (0.8), or ok false when no
// number does. New sessions come with the observed mean size M/K and the
// data's between-session spread, which the method's interval already
// carries: its half-width h₀ = z·se₀ reflects the design effect, so the
// variance per new unit is M·se₀²; se₀ is raised to its 90 % upper χ²
// bound on K − 1 degrees of freedom (hintQ). After a more units the
// estimate is p̂_f = (M·p̂ + a·p̂ₙ)/(M + a), whose spread around p̂ is
// se₀·u·√(1 − u²), and the interval's half-width shrinks to z·se₀·u,
// u = √(M/(M + a)); so the interval decides with probability
//
//	P(a) = Φ((D − z·u)/(u·√(1 − u²))),  D = |p̂ − threshold|/se₀,
//
// the smallest number of sessions with P ≥ target found by doubling and
// bisection.
func SessionsToDecide(in HintInputs, target float64) (h SessionHint, ok bool) {
	if !(in.HalfWidth > 0) || !(in.Z > 0) || !(in.M > 0) || !(in.K > 0) || !(target > 0 && target < 1) {
		return h, false
	}
	mean := in.M / in.K
	okAt := func(s float64) bool { return assuranceAt(in, s) >= target }
	if okAt(0) {
		return SessionHint{Assurance: target}, true
	}
	lo, hi := 0.0, 1.0
	for !okAt(hi) {
		if hi > 1<<40 {
			return h, false
		}
		lo, hi = hi, hi*2
	}
	for hi-lo > 1 {
		mid := math.Floor((lo + hi) / 2)
		if okAt(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return SessionHint{Sessions: int64(hi), Units: int64(math.Ceil(hi * mean)), Assurance: target}, true
}

// hintQ is the lower tail of the χ² bound on the spread: the hint is
// sized for the spread's 90 % upper bound given the sessions it rests on
// (few sessions that happen to agree understate how much new ones will
// differ).
const hintQ = 0.1

// assuranceAt is the probability the interval decides after the given
// number of new sessions of the mean size.
func assuranceAt(in HintInputs, sessions float64) float64 {
	se := in.HalfWidth / in.Z
	if in.K > 1 {
		// The spread se₀ rests on K sessions: size the hint for an upper
		// estimate of it (a χ² bound on K − 1 degrees of freedom).
		se *= math.Sqrt((in.K - 1) / distuv.ChiSquared{K: in.K - 1}.Quantile(hintQ))
	}
	d := math.Abs(in.Estimate-in.Threshold) / se
	a := sessions * in.M / in.K
	u := math.Sqrt(in.M / (in.M + a))
	if a <= 0 || u >= 1 {
		if d > in.Z {
			return 1
		}
		return 0
	}
	return distuv.UnitNormal.CDF((d - in.Z*u) / (u * math.Sqrt(1-u*u)))
}

// hintHalfWidth is the half-width of [lo, hi] on the side the hint must
// move past the threshold: toward the threshold from the estimate.
func hintHalfWidth(d Direction, dec Decision, est, lo, hi float64) float64 {
	up := d == AtLeast || d == Gain // clearing needs the lower bound above
	if dec.BadSide {
		up = !up
	}
	if up {
		return est - lo
	}
	return hi - est
}

package metrics

import "math"

// ConfidenceSequence is an anytime-valid confidence sequence for the mean
// of values in [0, 1] that arrive one at a time — here each session's own
// rate (y/m), sessions being the unit: with probability at least 1 − α the
// true mean lies in every interval it ever gives, however many times it is
// looked at (docs/statistics.md, "Stopping early"). It is the hedged
// betting sequence of Waudby-Smith and Ramdas (2023): for each candidate
// mean m, two gamblers bet on x > m and x < m with predictable stakes;
// their averaged wealth is a nonnegative martingale under m, so by Ville's
// inequality it reaches 1/α with probability at most α, and the set of m
// whose wealth has never reached 1/α is the sequence (the running
// intersection of its intervals).
//
// NewOneSidedSequence gives the one-sided pair instead: each gambler is
// its own sequence at α, so the lower bound alone and the upper bound
// alone each hold with probability at least 1 − α at every look.
type ConfidenceSequence struct {
	alpha float64
	thr   float64   // log(1/α): a gambler's log wealth that excludes
	logUp []float64 // log wealth of the gambler betting above, per m
	logDn []float64
	out   []bool // m has been excluded (one-sided: from below, by the gambler betting above)
	// first and last bound the candidates not excluded (every one
	// outside them is): Add and Interval look at these only.
	first, last int
	// oneSided: outDn marks the m the gambler betting below excluded
	// (from above); first is the smallest m out leaves, last the largest
	// outDn leaves, and neither gambler bets outside [first, last]
	// (addOneSided), so out and outDn hold there only.
	oneSided bool
	outDn    []bool
	n        int
	sum      float64 // Σx
	sumSq    float64 // Σ(x − running mean)² for the stakes
	mean     float64
}

// csGrid is the number of candidate means (a resolution of 1/csGrid).
const csGrid = 2000

// csMeans are the candidate means, csCapUp and csCapDn the largest
// stakes that keep each gambler's wealth positive at each: shared by
// every sequence, never written.
var csMeans, csCapUp, csCapDn = func() (g, up, dn []float64) {
	g, up, dn = make([]float64, csGrid+1), make([]float64, csGrid+1), make([]float64, csGrid+1)
	for i := range g {
		g[i] = float64(i) / csGrid
		up[i] = 0.75 / math.Max(g[i], 1e-12)
		dn[i] = 0.75 / math.Max(1-g[i], 1e-12)
	}
	return g, up, dn
}()

// NewConfidenceSequence starts a sequence at level 1 − alpha.
func NewConfidenceSequence(alpha float64) *ConfidenceSequence {
	return &ConfidenceSequence{alpha: alpha, thr: math.Log(1 / alpha),
		logUp: make([]float64, csGrid+1), logDn: make([]float64, csGrid+1), out: make([]bool, csGrid+1), mean: 0.5, last: csGrid}
}

// NewOneSidedSequence starts a pair of one-sided sequences at level
// 1 − alpha each: the lower bound is the smallest mean the gambler
// betting above has not excluded, the upper the largest the gambler
// betting below has not, each gambler a nonnegative martingale under the
// true mean on its own (Ville's inequality at α, not α/2 as the hedged
// pair). A test that the mean exceeds m (the lower bound above m) is
// then a one-sided level-α test valid at every look, and the upper bound
// below m the test the other way at the same level; together [lo, hi] is
// a 1 − 2α sequence. The recall gain's lane decides on it (its PASS is a
// one-sided test, as on the fixed-n path).
func NewOneSidedSequence(alpha float64) *ConfidenceSequence {
	cs := NewConfidenceSequence(alpha)
	cs.oneSided = true
	cs.outDn = make([]bool, csGrid+1)
	return cs
}

// OneSided reports whether the sequence is a one-sided pair
// (NewOneSidedSequence).
func (cs *ConfidenceSequence) OneSided() bool { return cs.oneSided }

// Add takes the next session's value x ∈ [0, 1] (its rate).
func (cs *ConfidenceSequence) Add(x float64) {
	x = min(max(x, 0), 1)
	t := float64(cs.n + 1)
	// Predictable stake (chosen before x is seen): the "predictable
	// plug-in" λ = √(2·log(2/α) / (σ̂²·t·log(t+1))), σ̂² a running variance
	// shrunk toward ¼, truncated so the wealth stays positive; one-sided,
	// log(1/α) for log(2/α).
	sigma2 := (0.25 + cs.sumSq) / t
	sides := 2.0
	if cs.oneSided {
		sides = 1
	}
	lam := math.Sqrt(2 * math.Log(sides/cs.alpha) / (sigma2 * t * math.Log(t+1)))
	if cs.oneSided {
		cs.addOneSided(x, lam)
		return
	}
	// A candidate whose larger log wealth lies this far below the
	// threshold cannot reach it hedged (the average of the two is at most
	// the larger): the log-sum-exp is skipped, not its outcome.
	near := cs.thr - 1e-9
	for i := cs.first; i <= cs.last; i++ {
		if cs.out[i] {
			continue
		}
		m := csMeans[i]
		up := cs.logUp[i] + math.Log1p(min(lam, csCapUp[i])*(x-m))
		dn := cs.logDn[i] + math.Log1p(-min(lam, csCapDn[i])*(x-m))
		cs.logUp[i], cs.logDn[i] = up, dn
		if max(up, dn) < near {
			continue
		}
		// Hedged: half the capital on each side.
		if logSumExp(up, dn)-math.Ln2 >= cs.thr {
			cs.out[i] = true
		}
	}
	cs.first, cs.last = shrinkIn(cs.out, cs.first, cs.last)
	cs.count(x)
}

// addOneSided bets each gambler on its own, on the m between the bounds:
// the one betting above on those it has not excluded from below, the one
// betting below on those it has not excluded from above; an m is out on
// a side once that gambler's wealth reaches 1/α. A gambler's bets past
// the other side's bound (the one betting above on m above the upper
// bound) are not made: its own bound could reach such an m only by
// passing the other bound, and from then on the sequence has excluded
// every rate (Excluded) and its interval is the running mean, whatever
// either gambler holds. The bounds are those of betting on every m not
// excluded, bit for bit (TestSequenceMatchesReference), at a fraction of
// the cost.
func (cs *ConfidenceSequence) addOneSided(x, lam float64) {
	for i := cs.first; i <= cs.last; i++ {
		m := csMeans[i]
		if !cs.out[i] {
			l := cs.logUp[i] + math.Log1p(min(lam, csCapUp[i])*(x-m))
			cs.logUp[i], cs.out[i] = l, l >= cs.thr
		}
		if !cs.outDn[i] {
			l := cs.logDn[i] + math.Log1p(-min(lam, csCapDn[i])*(x-m))
			cs.logDn[i], cs.outDn[i] = l, l >= cs.thr
		}
	}
	for cs.first <= cs.last && cs.out[cs.first] {
		cs.first++
	}
	for cs.last >= cs.first && cs.outDn[cs.last] {
		cs.last--
	}
	cs.count(x)
}

// count adds x to the running sums.
func (cs *ConfidenceSequence) count(x float64) {
	t := float64(cs.n + 1)
	cs.n++
	cs.sum += x
	d := x - cs.mean
	cs.mean += d / t
	cs.sumSq += d * (x - cs.mean)
}

// shrinkIn moves first and last inward past excluded candidates; first >
// last when every one is.
func shrinkIn(out []bool, first, last int) (int, int) {
	for first <= last && out[first] {
		first++
	}
	for last >= first && out[last] {
		last--
	}
	return first, last
}

func logSumExp(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	return a + math.Log1p(math.Exp(b-a))
}

// N is the number of values added.
func (cs *ConfidenceSequence) N() int { return cs.n }

// Interval is the sequence's current interval: the smallest and largest
// candidate mean not yet excluded (widened by the grid's resolution);
// [0, 1] before any value. One-sided (NewOneSidedSequence), lo is the
// lower bound and hi the upper, each at 1 − α.
func (cs *ConfidenceSequence) Interval() (lo, hi float64) {
	first, last := cs.first, cs.last
	if first > last {
		// Every candidate excluded (possible only when the values are not
		// from one mean): the running mean is all that is left.
		m := cs.sum / float64(max(cs.n, 1))
		return m, m
	}
	return max(0, csMeans[first]-1.0/csGrid), min(1, csMeans[last]+1.0/csGrid)
}

// Excluded reports whether the values so far have excluded every candidate
// mean (Interval is then only the running mean): they are not draws of one
// mean.
func (cs *ConfidenceSequence) Excluded() bool { return cs.n > 0 && cs.first > cs.last }

// SequentialDecision is where a criterion stands on a confidence
// sequence: decided (PASS or FAIL) as soon as the sequence's interval
// lies on one side of the threshold, INCONCLUSIVE before, after N sessions.
type SequentialDecision struct {
	Status Status  `json:"status"`
	N      int     `json:"sessions"`
	Lo     float64 `json:"lo"`
	Hi     float64 `json:"hi"`
}

// Decide applies the one verdict rule (Direction.Decide) to the
// sequence's current interval for the named criterion at threshold thr;
// INCONCLUSIVE once every rate is excluded (Excluded: the interval is
// then the running mean alone, nothing to decide on), and on fewer than
// MinSessions sessions.
func (cs *ConfidenceSequence) Decide(name string, thr float64) SequentialDecision {
	spec, _ := SpecOf(name)
	lo, hi := cs.Interval()
	if cs.Excluded() {
		return SequentialDecision{Status: StatusInconclusive, N: cs.n, Lo: lo, Hi: hi}
	}
	d := spec.Direction.Decide(thr, Evidence{Estimate: cs.sum / float64(max(cs.n, 1)), Lo: lo, Hi: hi, Sessions: float64(cs.n)})
	return SequentialDecision{Status: d.Status, N: cs.n, Lo: lo, Hi: hi}
}

// Clone is an independent copy (to simulate continuations).
func (cs *ConfidenceSequence) Clone() *ConfidenceSequence {
	c := *cs
	c.logUp = append([]float64(nil), cs.logUp...)
	c.logDn = append([]float64(nil), cs.logDn...)
	c.out = append([]bool(nil), cs.out...)
	if cs.oneSided {
		c.outDn = append([]bool(nil), cs.outDn...)
	}
	return &c
}

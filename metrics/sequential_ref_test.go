package metrics

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSequenceMatchesReference: the sequences (the two-sided and the
// one-sided pair, the latter betting only near its bounds and catching
// up the rest from the stored values) give the same intervals, bit for
// bit, as the straightforward implementation below (every gambler bets
// on every candidate it has not excluded, each session) after every
// value, on many random streams: stable rates, drifting ones and ones
// that swing back and forth, which exclude every candidate, all-0 and all-1 streams, values outside
// [0, 1], and clones continued apart.
func TestSequenceMatchesReference(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 12))
	streams := 300
	if testing.Short() {
		streams = 120
	}
	for s := range streams {
		n := 50 + rng.IntN(400)
		if s%10 == 0 {
			n = 3000
		}
		alpha := []float64{0.05, 0.025, 0.1, 0.005}[s%4]
		mu := rng.Float64()
		drift, swing := s%3 == 0, s%3 == 1
		xs := make([]float64, n)
		for i := range xs {
			p := mu
			if drift && i > n/3 {
				p = math.Mod(mu+0.4+float64(i)/float64(4*n), 1)
			}
			if swing && i > 40 && (i/(30+s%90))%2 == 1 {
				// Blocks at another rate, back and forth.
				p = math.Mod(mu+0.5, 1)
			}
			switch s % 5 {
			case 0: // Bernoulli
				if rng.Float64() < p {
					xs[i] = 1
				}
			case 1: // sessions of 1–20
				m := 1 + rng.IntN(20)
				y := 0
				for range m {
					if rng.Float64() < p {
						y++
					}
				}
				xs[i] = float64(y) / float64(m)
			case 2: // constant
				xs[i] = math.Round(mu)
			case 3: // out of range, clamped
				xs[i] = p + 0.6*(rng.Float64()-0.5)*3
			default:
				xs[i] = min(1, max(0, p+0.2*rng.NormFloat64()))
			}
		}
		for _, one := range []bool{false, true} {
			got, want := NewConfidenceSequence(alpha), newRefSequence(alpha)
			if one {
				got, want = NewOneSidedSequence(alpha), newRefOneSided(alpha)
			}
			var gotC *ConfidenceSequence
			var wantC *refSequence
			for i, x := range xs {
				got.Add(x)
				want.Add(x)
				if i == n/2 {
					gotC, wantC = got.Clone(), want.Clone()
				}
				if gotC != nil && i%2 == 0 {
					// The clones go on with other values.
					y := 1 - x
					gotC.Add(y)
					wantC.Add(y)
					sameSeq(t, s, one, "clone", i, gotC, wantC)
				}
				sameSeq(t, s, one, "", i, got, want)
				if t.Failed() {
					return
				}
			}
		}
	}
}

func sameSeq(t *testing.T, s int, one bool, what string, i int, got *ConfidenceSequence, want *refSequence) {
	t.Helper()
	gl, gh := got.Interval()
	wl, wh := want.Interval()
	if math.Float64bits(gl) != math.Float64bits(wl) || math.Float64bits(gh) != math.Float64bits(wh) || got.Excluded() != want.Excluded() || got.N() != want.n {
		t.Errorf("stream %d one-sided %v %s after %d: [%v, %v] excluded %v, want [%v, %v] %v",
			s, one, what, i+1, gl, gh, got.Excluded(), wl, wh, want.Excluded())
	}
}

// refSequence is ConfidenceSequence as it was before it bet only near its
// bounds (commit 1659adb): the reference the fast one must equal.
type refSequence struct {
	alpha float64
	grid  []float64 // candidate means
	logUp []float64 // log wealth of the gambler betting above, per m
	logDn []float64
	out   []bool // m has been excluded (one-sided: from below, by the gambler betting above)
	// first and last bound the candidates not excluded (every one
	// outside them is): Add and Interval look at these only.
	first, last int
	// oneSided: outDn marks the m the gambler betting below excluded
	// (from above); first is the smallest m out leaves, last the largest
	// outDn leaves.
	oneSided bool
	outDn    []bool
	n        int
	sum      float64 // Σx
	sumSq    float64 // Σ(x − running mean)² for the stakes
	mean     float64
}

func newRefSequence(alpha float64) *refSequence {
	cs := &refSequence{alpha: alpha, grid: make([]float64, csGrid+1),
		logUp: make([]float64, csGrid+1), logDn: make([]float64, csGrid+1), out: make([]bool, csGrid+1), mean: 0.5, last: csGrid}
	for i := range cs.grid {
		cs.grid[i] = float64(i) / csGrid
	}
	return cs
}
func newRefOneSided(alpha float64) *refSequence {
	cs := newRefSequence(alpha)
	cs.oneSided = true
	cs.outDn = make([]bool, csGrid+1)
	return cs
}
func (cs *refSequence) Add(x float64) {
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
	thr := math.Log(1 / cs.alpha)
	if cs.oneSided {
		cs.addOneSided(x, lam, thr)
		return
	}
	for i := cs.first; i <= cs.last; i++ {
		m := cs.grid[i]
		if cs.out[i] {
			continue
		}
		lu := min(lam, 0.75/math.Max(m, 1e-12))
		ld := min(lam, 0.75/math.Max(1-m, 1e-12))
		cs.logUp[i] += math.Log1p(lu * (x - m))
		cs.logDn[i] += math.Log1p(-ld * (x - m))
		// Hedged: half the capital on each side.
		w := logSumExp(cs.logUp[i], cs.logDn[i]) - math.Ln2
		if w >= thr {
			cs.out[i] = true
		}
	}
	cs.first, cs.last = shrinkIn(cs.out, cs.first, cs.last)
	cs.count(x)
}
func (cs *refSequence) addOneSided(x, lam, thr float64) {
	for i := cs.first; i <= csGrid; i++ {
		if cs.out[i] {
			continue
		}
		m := cs.grid[i]
		cs.logUp[i] += math.Log1p(min(lam, 0.75/math.Max(m, 1e-12)) * (x - m))
		cs.out[i] = cs.logUp[i] >= thr
	}
	for i := 0; i <= cs.last; i++ {
		if cs.outDn[i] {
			continue
		}
		m := cs.grid[i]
		cs.logDn[i] += math.Log1p(-min(lam, 0.75/math.Max(1-m, 1e-12)) * (x - m))
		cs.outDn[i] = cs.logDn[i] >= thr
	}
	for cs.first <= csGrid && cs.out[cs.first] {
		cs.first++
	}
	for cs.last >= 0 && cs.outDn[cs.last] {
		cs.last--
	}
	cs.count(x)
}
func (cs *refSequence) count(x float64) {
	t := float64(cs.n + 1)
	cs.n++
	cs.sum += x
	d := x - cs.mean
	cs.mean += d / t
	cs.sumSq += d * (x - cs.mean)
}

func (cs *refSequence) Interval() (lo, hi float64) {
	first, last := cs.first, cs.last
	if first > last {
		// Every candidate excluded (possible only when the values are not
		// from one mean): the running mean is all that is left.
		m := cs.sum / float64(max(cs.n, 1))
		return m, m
	}
	return max(0, cs.grid[first]-1.0/csGrid), min(1, cs.grid[last]+1.0/csGrid)
}

func (cs *refSequence) Excluded() bool { return cs.n > 0 && cs.first > cs.last }

func (cs *refSequence) Clone() *refSequence {
	c := *cs
	c.logUp = append([]float64(nil), cs.logUp...)
	c.logDn = append([]float64(nil), cs.logDn...)
	c.out = append([]bool(nil), cs.out...)
	if cs.outDn != nil {
		c.outDn = append([]bool(nil), cs.outDn...)
	}
	return &c // grid is shared: never written
}

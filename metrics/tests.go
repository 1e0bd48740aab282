package metrics

import (
	"cmp"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// Test names of comparison figures (Figure.Test).
const (
	// TestSignFlip: the session sign-flip randomization test of the
	// discordant units (exact, or Monte Carlo with Figure.PValueMCError).
	TestSignFlip = "sign_flip_sessions"
	// TestDeltaT: precision's difference by the delta method, t on the
	// sessions (k − 1 degrees of freedom).
	TestDeltaT = "delta_t_sessions"
	// TestBootstrapCalls: a latency quantile's difference by bootstrap of
	// the calls, p from the same draws as the interval.
	TestBootstrapCalls = "bootstrap_calls"
	// TestQuantileSessions: a latency quantile's difference linearized
	// with the quantile's session-clustered slope, t on the sessions
	// (k − 1 degrees of freedom); used when a session holds several calls.
	TestQuantileSessions = "quantile_t_sessions"
	// TestQuantileFlip: a latency quantile's difference by the sessions'
	// sign-flip randomization test (exact, 2^K swaps of which judge made a
	// session's calls), the interval by inverting it; used with fewer than
	// flipMaxSessions sessions, where the linearization does not hold α.
	TestQuantileFlip = "quantile_flip_sessions"
	TestMannWhitney  = "mann_whitney"
)

// BootstrapResamples is the number of resamples of every bootstrap.
const BootstrapResamples = 2000

// SignFlipDraws is the number of Monte Carlo sign flips when the exact
// distribution is too costly (see signFlip).
const SignFlipDraws = 20000

// signFlipExactCost bounds the work of the exact distribution (array
// cells × flips) before Monte Carlo takes over.
const signFlipExactCost = 20_000_000

// mcnemar is the discordance of one paired binary figure: b units where
// only the first (baseline) side had the event, c where only the second
// had it, and per session d_i = b_i − c_i, the sign-flip test's data.
type mcnemar struct {
	b, c      int64
	clustered bool // some session holds more than one discordant unit
	// The sessions' d_i ≠ 0 as the sign-flip test and the hints use them:
	// Σd, Σd² and how many sessions have each |d|.
	sumD, sumD2 int64
	abs         map[int64]int64
}

// addSessions adds k sessions of n discordant units each, d = b-type −
// c-type in each.
func (m *mcnemar) addSessions(d, n, k int64) {
	m.b += (n + d) / 2 * k
	m.c += (n - d) / 2 * k
	m.clustered = m.clustered || n > 1
	if d != 0 {
		m.sumD += d * k
		m.sumD2 += d * d * k
		if m.abs == nil {
			m.abs = map[int64]int64{}
		}
		m.abs[max(d, -d)] += k
	}
}

// flip is the sign-flip test of the discordance (seeded for Monte Carlo).
func (m mcnemar) flip(seed uint64) flipResult {
	if !m.clustered {
		// Every session holds at most one discordant unit: the sign-flip
		// distribution is Binomial(b+c, ½), i.e. exact McNemar.
		return flipResult{two: McNemarTwoSided(m.b, m.c), greater: McNemarGreater(m.b, m.c)}
	}
	gs := make([]flipGroup, 0, len(m.abs))
	for a, n := range m.abs {
		gs = append(gs, flipGroup{a, n})
	}
	slices.SortFunc(gs, func(x, y flipGroup) int { return cmpInt(x.a - y.a) })
	return signFlip(m.sumD, gs, seed)
}

// flipGroup is n sessions whose discordance has absolute value a.
type flipGroup struct{ a, n int64 }

func (m mcnemar) test() string { return TestSignFlip }

// flipResult is a sign-flip test's p-values: two-sided, and one-sided for
// "the first side's discordance is more likely" (Σd large); mcErr is the
// Monte Carlo standard error of two, nil when exact.
type flipResult struct {
	two, greater float64
	mcErr        *float64
}

// SignFlip is the session sign-flip randomization test of per-session
// differences d_i (b-type − c-type discordant units): under "the two
// sides are exchangeable within a session", each session's d_i is as
// likely to be −d_i, so T = Σd_i is compared with the 2^k sums Σ±d_i.
// Two-sided p = P(|T*| ≥ |T|), one-sided P(T* ≥ T). The distribution is
// exact (dynamic programming over the sums of the distinct |d_i|, their
// flips binomial) when that costs at most 2·10⁷ steps, else Monte Carlo
// with SignFlipDraws seeded draws, p = (1 + hits)/(1 + draws), and the
// standard error √(p(1−p)/draws). With every |d_i| = 1 it is exact
// McNemar. No discordance gives p = 1.
func SignFlip(d []int64, seed uint64) flipResult {
	abs := make([]int64, 0, len(d))
	var t int64
	for _, v := range d {
		if v == 0 {
			continue
		}
		t += v
		if v < 0 {
			v = -v
		}
		abs = append(abs, v)
	}
	slices.Sort(abs)
	var gs []flipGroup
	for _, a := range abs {
		if len(gs) > 0 && gs[len(gs)-1].a == a {
			gs[len(gs)-1].n++
			continue
		}
		gs = append(gs, flipGroup{a, 1})
	}
	return signFlip(t, gs, seed)
}

// signFlip is SignFlip of the sessions gs (sorted by a, every a > 0) whose
// d_i sum to t.
func signFlip(t int64, gs []flipGroup, seed uint64) flipResult {
	var span int64
	for _, g := range gs {
		span += g.a * g.n
	}
	if span == 0 {
		return flipResult{two: 1, greater: 1}
	}
	at := t
	if at < 0 {
		at = -at
	}
	var cost int64
	for _, g := range gs {
		cost += (g.n + 1) * (2*span + 1)
	}
	if cost <= signFlipExactCost {
		// dist[s+span] = P(T* = s).
		dist := make([]float64, 2*span+1)
		dist[span] = 1
		next := make([]float64, len(dist))
		for _, g := range gs {
			clear(next)
			bin := distuv.Binomial{N: float64(g.n), P: 0.5}
			for x := int64(0); x <= g.n; x++ {
				w := bin.Prob(float64(x))
				shift := g.a * (2*x - g.n)
				for s, v := range dist {
					if v != 0 {
						next[int64(s)+shift] += w * v
					}
				}
			}
			dist, next = next, dist
		}
		var two, gr float64
		for i, v := range dist {
			s := int64(i) - span
			if s >= at || s <= -at {
				two += v
			}
			if s >= t {
				gr += v
			}
		}
		return flipResult{two: min(1, two), greater: min(1, gr)}
	}
	rng := rand.New(rand.NewPCG(seedOr1(seed), 0x5f11))
	var hits, hitsG int
	for range SignFlipDraws {
		var s int64
		for _, g := range gs {
			x := int64(distuv.Binomial{N: float64(g.n), P: 0.5, Src: rng}.Rand())
			s += g.a * (2*x - g.n)
		}
		if s >= at || s <= -at {
			hits++
		}
		if s >= t {
			hitsG++
		}
	}
	n := float64(SignFlipDraws)
	p := (1 + float64(hits)) / (1 + n)
	e := math.Sqrt(p * (1 - p) / n)
	return flipResult{two: p, greater: (1 + float64(hitsG)) / (1 + n), mcErr: &e}
}

// normalSurvival is P(Z > z) for a standard normal Z, by Erfc: 1 − Erf
// underflows to 0 far in the tail, Erfc does not.
func normalSurvival(z float64) float64 { return 0.5 * math.Erfc(z/math.Sqrt2) }

// MannWhitney is the two-sided Mann–Whitney U test of two samples, both
// sorted ascending: U of the second sample, and the p-value of the normal
// approximation with tie correction and continuity correction,
// σ² = n₁n₂/12 · ((N+1) − Σ(t³−t)/(N(N−1))). p is 1 when σ is 0 (all
// values equal) and NaN when either sample is empty.
func MannWhitney(x, y []float64) (u, p float64) {
	n1, n2 := float64(len(x)), float64(len(y))
	if len(x) == 0 || len(y) == 0 {
		return math.NaN(), math.NaN()
	}
	// Walk both sorted samples at once, giving each tie group its mid-rank.
	var rankY, ties float64
	i, k, pos := 0, 0, 0
	for i < len(x) || k < len(y) {
		var v float64
		switch {
		case k >= len(y) || (i < len(x) && x[i] <= y[k]):
			v = x[i]
		default:
			v = y[k]
		}
		tx, ty := 0, 0
		for i < len(x) && x[i] == v {
			i++
			tx++
		}
		for k < len(y) && y[k] == v {
			k++
			ty++
		}
		t := float64(tx + ty)
		mid := float64(pos) + (t+1)/2
		rankY += float64(ty) * mid
		ties += t*t*t - t
		pos += tx + ty
	}
	u = rankY - n2*(n2+1)/2
	n := n1 + n2
	mean := n1 * n2 / 2
	sigma := math.Sqrt(n1 * n2 / 12 * ((n + 1) - ties/(n*(n-1))))
	if sigma == 0 {
		return u, 1
	}
	z := (math.Abs(u-mean) - 0.5) / sigma
	if z < 0 {
		z = 0
	}
	return u, min(1, 2*normalSurvival(z))
}

// bootInterval is the interval of sorted bootstrap draws of a difference
// and its two-sided p-value, 2·min(#draws ≤ 0, #draws ≥ 0)/B, chosen to
// agree: the bounds are the (j+1)-th smallest and largest draws with
// j = ⌈αB/2⌉ − 1, so 0 lies outside [lo, hi] exactly when p < α.
func bootInterval(sorted []float64, conf float64) (lo, hi, p float64) {
	n := len(sorted)
	a := alphaOf(conf)
	j := max(int(math.Ceil(math.Round(a*float64(n)/2*1e9)/1e9))-1, 0)
	lo, hi = sorted[min(j, n-1)], sorted[max(n-1-j, 0)]
	le, ge := 0, 0
	for _, d := range sorted {
		if d <= 0 {
			le++
		}
		if d >= 0 {
			ge++
		}
	}
	return lo, hi, min(1, 2*float64(min(le, ge))/float64(n))
}

// precisionSession is one session's paired precision counts: true
// positives and labeled predicted matches of baseline and candidate.
type precisionSession struct{ tpB, ppB, tpC, ppC int64 }

// precisionDeltaT is the difference of two paired precisions over
// sessions, candidate − baseline, by the delta method: each session's
// linearized contribution u_i = (tpC_i − P_C·ppC_i)/ΣppC −
// (tpB_i − P_B·ppB_i)/ΣppB, V = k/(k−1)·Σu_i², t = Δ/√V on k − 1 degrees
// of freedom; the interval is Δ ± t_{1−α/2}·√V. It depends on the data
// alone (no seed). Nil without predictions of either judge; no interval
// or p with fewer than two sessions.
func precisionDeltaT(sess []precisionSession, conf float64) (delta, lo, hi, p *float64) {
	counts := make([]precisionCount, len(sess))
	for i, s := range sess {
		counts[i] = precisionCount{s, 1}
	}
	return precisionDeltaTCounts(counts, conf)
}

// precisionCount is n sessions with the counts s.
type precisionCount struct {
	s precisionSession
	n int64
}

// precisionDeltaTCounts is precisionDeltaT of the sessions counts
// describe: the same sums in the same order.
func precisionDeltaTCounts(counts []precisionCount, conf float64) (delta, lo, hi, p *float64) {
	var t precisionSession
	var k int64
	for _, c := range counts {
		s := c.s
		t.tpB += s.tpB * c.n
		t.ppB += s.ppB * c.n
		t.tpC += s.tpC * c.n
		t.ppC += s.ppC * c.n
		k += c.n
	}
	if t.ppB == 0 || t.ppC == 0 {
		return nil, nil, nil, nil
	}
	pb, pc := float64(t.tpB)/float64(t.ppB), float64(t.tpC)/float64(t.ppC)
	d := pc - pb
	if k < 2 {
		return ptr(d), nil, nil, nil
	}
	// Sorted, so that the sum does not depend on the sessions' order.
	slices.SortFunc(counts, func(x, y precisionCount) int {
		a, b := x.s, y.s
		for _, x := range [4]int64{a.tpB - b.tpB, a.ppB - b.ppB, a.tpC - b.tpC, a.ppC - b.ppC} {
			if x != 0 {
				return cmpInt(x)
			}
		}
		return 0
	})
	var ss float64
	for _, c := range counts {
		s := c.s
		u := (float64(s.tpC)-pc*float64(s.ppC))/float64(t.ppC) - (float64(s.tpB)-pb*float64(s.ppB))/float64(t.ppB)
		for range c.n {
			ss += u * u
		}
	}
	v := float64(k) / float64(k-1) * ss
	df := float64(k - 1)
	if v == 0 {
		if d == 0 {
			return ptr(d), ptr(0.0), ptr(0.0), ptr(1.0)
		}
		return ptr(d), ptr(d), ptr(d), ptr(0.0)
	}
	st := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}
	se := math.Sqrt(v)
	q := st.Quantile(1 - alphaOf(conf)/2)
	return ptr(d), ptr(max(d-q*se, -1)), ptr(min(d+q*se, 1)), ptr(min(1, 2*st.Survival(math.Abs(d)/se)))
}

func cmpInt(d int64) int {
	if d < 0 {
		return -1
	}
	return 1
}

func seedOr1(s uint64) uint64 {
	if s == 0 {
		return 1
	}
	return s
}

// quantileBoot draws the num/den nearest-rank quantile of bootstrap
// resamples of sorted (n values with replacement) without drawing the n
// values: the k-th smallest of a resample is at most x(j) exactly when at
// least k of the n draws fall at or below x(j), so F(j) = P(X*(k) ≤ x(j)) =
// P(Bin(n, j/n) ≥ k), and inverting F with one uniform gives the resampled
// quantile with the distribution of resampling the calls. F rises from 0 to
// 1 within a few standard deviations √(k(1−k/n)) of k; it is tabulated on
// k ± 8 of them (outside, F is within 1e-15 of 0 or 1), so a draw costs a
// binary search whatever n.
type quantileBoot struct {
	sorted []float64
	from   int       // 0-based index of the first tabulated x
	cdf    []float64 // F at sorted[from+i]
}

func newQuantileBoot(sorted []float64, num, den int) *quantileBoot {
	n := len(sorted)
	k := max(1, (num*n+den-1)/den)
	p := float64(k) / float64(n)
	w := int(math.Ceil(8*math.Sqrt(float64(n)*p*(1-p)))) + 2
	lo, hi := max(1, k-w), min(n, k+w)
	q := &quantileBoot{sorted: sorted, from: lo - 1, cdf: make([]float64, 0, hi-lo+1)}
	for j := lo; j <= hi; j++ {
		b := distuv.Binomial{N: float64(n), P: float64(j) / float64(n)}
		q.cdf = append(q.cdf, 1-b.CDF(float64(k-1)))
	}
	return q
}

func (q *quantileBoot) draw(rng *rand.Rand) float64 {
	i := sort.SearchFloat64s(q.cdf, rng.Float64())
	return q.sorted[q.from+min(i, len(q.cdf)-1)]
}

// latencyBootstrap is the bootstrap interval of the difference of the
// num/den quantiles (candidate − baseline), resampling the calls of each
// judge independently, and its p-value from the same draws (bootInterval).
func latencyBootstrap(base, cand []float64, num, den int, seed uint64, conf float64) (lo, hi, p float64) {
	rng := rand.New(rand.NewPCG(seedOr1(seed), uint64(num)))
	qb, qc := newQuantileBoot(base, num, den), newQuantileBoot(cand, num, den)
	draws := make([]float64, BootstrapResamples)
	for i := range draws {
		draws[i] = qc.draw(rng) - qb.draw(rng)
	}
	slices.Sort(draws)
	return bootInterval(draws, conf)
}

// subsetT is one sign pattern of a session sign-flip test of a paired
// difference, inverted: the sessions it flips (F) have the difference
// t = Σ_F d / Σ_F n (their units' first-side-only minus second-side-only
// over their units), and the pattern has probability w.
type subsetT struct{ t, w float64 }

// flipBounds inverts a one-sided session sign-flip test of a paired
// difference δ (docs/statistics.md, "The recall gain"). Under "the two
// sides are exchangeable within a session" at difference δ, each
// session's u_i = d_i − δ·n_i is as likely to be −u_i; flipping the
// sessions F moves T(δ) = Σu_i to T(δ) − 2·Σ_F u_i, which reaches T(δ)
// from above exactly when Σ_F d ≤ δ·Σ_F n, i.e. t_F ≤ δ. So the one-sided
// p of "greater" at δ is pG(δ) = w0 + Σ_{t_F ≤ δ} w_F (w0: the patterns
// that flip nothing, as extreme as the data at every δ), non-decreasing in
// δ, and the lower bound at level alpha is the smallest t_F with
// pG(t_F) ≥ alpha (−1 when w0 ≥ alpha: no pattern set can reject); the
// upper bound likewise from pL(δ) = w0 + Σ_{t_F ≥ δ} w_F. pG and pL are
// the p's at δ = 0 (the sign-flip test's own), read off the same running
// sums, so lo > 0 exactly when pG < alpha and hi < 0 exactly when
// pL < alpha. ts is sorted in place.
func flipBounds(ts []subsetT, w0, alpha float64) (lo, hi, pG, pL float64) {
	slices.SortFunc(ts, func(x, y subsetT) int { return cmp.Compare(x.t, y.t) })
	lo, hi, pG, pL = -1, 1, w0, w0
	loSet := w0 >= alpha
	run := w0
	for i := 0; i < len(ts); {
		j, t := i, ts[i].t
		for ; j < len(ts) && ts[j].t == t; j++ {
			run += ts[j].w
		}
		i = j
		if t <= 0 {
			pG = run
		}
		if !loSet && run >= alpha {
			lo, loSet = t, true
		}
	}
	hiSet := w0 >= alpha
	run = w0
	for i := len(ts) - 1; i >= 0; {
		j, t := i, ts[i].t
		for ; j >= 0 && ts[j].t == t; j-- {
			run += ts[j].w
		}
		i = j
		if t >= 0 {
			pL = run
		}
		if !hiSet && run >= alpha {
			hi, hiSet = t, true
		}
	}
	return lo, hi, min(pG, 1), min(pL, 1)
}

// gainSess is k sessions holding n ≥ 1 paired units each, d of them
// first-side-only minus second-side-only.
type gainSess struct{ d, n, k int64 }

// sessionFlipGain is the one-sided session sign-flip test of a paired
// difference over the sessions ss and its inversion at level alpha
// (flipBounds): the distribution of (Σ_F d, Σ_F n) over the 2^K flip
// patterns exactly (dynamic programming over the sums, the flips of a
// group of like sessions binomial) when that costs at most 2·10⁷ steps,
// else SignFlipDraws seeded Monte Carlo patterns, the data's own pattern
// counted once more (p = (1 + hits)/(1 + draws), as SignFlip). At δ = 0
// its pG is SignFlip's one-sided p (the sessions with d = 0 flip nothing
// there); mc says it was drawn.
func sessionFlipGain(ss []gainSess, alpha float64, seed uint64) (lo, hi, pG, pL float64, mc bool) {
	var span, N, groups int64
	for _, s := range ss {
		span += max(s.d, -s.d) * s.k
		N += s.n * s.k
		groups += s.k + 1
	}
	if N == 0 {
		return -1, 1, 1, 1, false
	}
	width := 2*span + 1
	states := width * (N + 1)
	if states > 0 && states <= signFlipExactCost && groups*states <= signFlipExactCost {
		// dist[(sd+span)·(N+1) + sn] = P(Σ_F d = sd, Σ_F n = sn).
		// Only the states reached so far are visited (on, sorted).
		dist := make([]float64, states)
		next := make([]float64, states)
		on := []int64{span * (N + 1)}
		dist[on[0]] = 1
		var nextOn []int64
		for _, s := range ss {
			nextOn = nextOn[:0]
			bin := distuv.Binomial{N: float64(s.k), P: 0.5}
			for x := int64(0); x <= s.k; x++ {
				w := bin.Prob(float64(x))
				shift := x*s.d*(N+1) + x*s.n
				for _, i := range on {
					j := i + shift
					if next[j] == 0 {
						nextOn = append(nextOn, j)
					}
					next[j] += w * dist[i]
				}
			}
			for _, i := range on {
				dist[i] = 0
			}
			slices.Sort(nextOn)
			dist, next = next, dist
			on, nextOn = nextOn, on
		}
		var acc subsets
		for _, i := range on {
			acc.add(i/(N+1)-span, i%(N+1), dist[i])
		}
		lo, hi, pG, pL = flipBounds(acc.ts, acc.w0, alpha)
		return lo, hi, pG, pL, false
	}
	rng := rand.New(rand.NewPCG(seedOr1(seed), 0x5f11))
	w := 1 / float64(1+SignFlipDraws)
	acc := subsets{w0: w, ts: make([]subsetT, 0, SignFlipDraws)}
	for range SignFlipDraws {
		var sd, sn int64
		for _, s := range ss {
			// Binomial(k, ½): the set bits of k fair random bits.
			var x int64
			for left := s.k; left > 0; left -= 64 {
				b := rng.Uint64()
				if left < 64 {
					b &= 1<<uint(left) - 1
				}
				x += int64(bits.OnesCount64(b))
			}
			sd += x * s.d
			sn += x * s.n
		}
		acc.add(sd, sn, w)
	}
	lo, hi, pG, pL = flipBounds(acc.ts, acc.w0, alpha)
	return lo, hi, pG, pL, true
}

// subsets collects flip patterns for flipBounds: a pattern flipping
// sessions of Σ_F d = sd over Σ_F n = sn units, with probability w; one
// that flips no unit (sn = 0) is as extreme as the data at every δ (w0).
type subsets struct {
	ts []subsetT
	w0 float64
}

func (a *subsets) add(sd, sn int64, w float64) {
	if sn == 0 {
		a.w0 += w
		return
	}
	a.ts = append(a.ts, subsetT{float64(sd) / float64(sn), w})
}

package metrics

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// Test names of comparison figures (Figure.Test).
const (
	TestMcNemarExact     = "mcnemar_exact"
	TestMcNemarClustered = "mcnemar_clustered"
	TestBootstrap        = "bootstrap_sessions"
	TestMannWhitney      = "mann_whitney"
)

// BootstrapResamples is the number of resamples of every bootstrap.
const BootstrapResamples = 2000

// mcnemar is the discordance of one paired binary figure: b units where
// only the first (baseline) side had the event, c where only the second
// had it, and the per-session sums behind Durkalski's statistic.
type mcnemar struct {
	b, c      int64
	clustered bool    // some session holds more than one discordant unit
	sum       float64 // Σ_i (b_i − c_i)
	sumSq     float64 // Σ_i (b_i − c_i)²
}

// addDisc records one unit of a session: bOnly / cOnly say which side alone
// had the event (neither for a concordant unit, which is ignored).
func (s *sessScratch) addDisc(sess uint32, bOnly, cOnly bool) {
	if bOnly == cOnly {
		return
	}
	if s.m[sess] == 0 {
		s.touched = append(s.touched, sess)
	}
	s.m[sess]++
	if bOnly {
		s.y[sess]++
	} else {
		s.y[sess]--
	}
}

// mcnemar returns the discordance added by addDisc and resets the scratch.
func (s *sessScratch) mcnemar() mcnemar {
	var m mcnemar
	for _, i := range s.touched {
		m.addSession(int64(s.y[i]), int64(s.m[i]))
		s.y[i], s.m[i] = 0, 0
	}
	s.touched = s.touched[:0]
	return m
}

// addSession adds a session's n discordant units, d = b-type − c-type.
func (m *mcnemar) addSession(d, n int64) {
	m.b += (n + d) / 2
	m.c += (n - d) / 2
	m.clustered = m.clustered || n > 1
	m.sum += float64(d)
	m.sumSq += float64(d * d)
}

// twoSided is the p-value of "b and c differ": exact McNemar when no
// session holds more than one discordant unit, Durkalski's otherwise.
func (m mcnemar) twoSided() float64 {
	if !m.clustered {
		return McNemarTwoSided(m.b, m.c)
	}
	return durkalski(m.sum, m.sumSq)
}

// greater is the one-sided p-value of "b-type discordance is more likely".
func (m mcnemar) greater() float64 {
	if !m.clustered {
		return McNemarGreater(m.b, m.c)
	}
	return durkalskiGreater(m.sum, m.sumSq)
}

func (m mcnemar) test() string {
	if m.clustered {
		return TestMcNemarClustered
	}
	return TestMcNemarExact
}

// DurkalskiTwoSided is the clustered McNemar test of Durkalski et al.
// (2003) for per-session differences d_i = b_i − c_i:
// X² = (Σd_i)² / Σd_i², χ² with 1 df; p = 1 when both sums are 0.
func DurkalskiTwoSided(d []int64) float64 {
	var s, ss float64
	for _, v := range d {
		s += float64(v)
		ss += float64(v * v)
	}
	return durkalski(s, ss)
}

func durkalski(sum, sumSq float64) float64 {
	if sumSq == 0 {
		return 1
	}
	x2 := sum * sum / sumSq
	return distuv.ChiSquared{K: 1}.Survival(x2)
}

// durkalskiGreater is the one-sided form: Z = Σd_i / √Σd_i², p = 1 − Φ(Z).
func durkalskiGreater(sum, sumSq float64) float64 {
	if sumSq == 0 {
		return 1
	}
	return distuv.UnitNormal.Survival(sum / math.Sqrt(sumSq))
}

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
	return u, min(1, 2*distuv.UnitNormal.Survival(z))
}

// percentile returns the percentile interval of sorted draws at conf.
func percentile(sorted []float64, conf float64) (lo, hi float64) {
	n := len(sorted)
	a := (1 - conf) / 2
	l := int(math.Floor(a * float64(n)))
	h := int(math.Ceil((1-a)*float64(n))) - 1
	return sorted[min(max(l, 0), n-1)], sorted[min(max(h, 0), n-1)]
}

// bootP is the two-sided bootstrap p-value: twice the share of draws on the
// far side of 0 from the observed difference (1 when it is 0).
func bootP(obs float64, draws []float64) float64 {
	if obs == 0 || len(draws) == 0 {
		return 1
	}
	far := 0
	for _, d := range draws {
		if (obs > 0 && d <= 0) || (obs < 0 && d >= 0) {
			far++
		}
	}
	return min(1, 2*float64(far)/float64(len(draws)))
}

// precisionSession is one session's paired precision counts: true
// positives and labeled predicted matches of baseline and candidate.
type precisionSession struct{ tpB, ppB, tpC, ppC int64 }

// precisionBootstrap resamples sessions with replacement. Sessions with the
// same counts are interchangeable, so a resample is drawn as multinomial
// counts over the distinct count tuples (exactly the same distribution as
// drawing sessions one by one, at a cost that grows with the distinct
// tuples, not the sessions), with the tuples in sorted order: the draws
// depend on the data and the seed only, never on the order results arrived
// in, the concurrency of the run or how shards were merged.
func precisionBootstrap(sess []precisionSession, seed uint64, conf float64) (delta, lo, hi, p *float64) {
	var t precisionSession
	for _, s := range sess {
		t.tpB += s.tpB
		t.ppB += s.ppB
		t.tpC += s.tpC
		t.ppC += s.ppC
	}
	if t.ppB == 0 || t.ppC == 0 {
		return nil, nil, nil, nil
	}
	obs := float64(t.tpC)/float64(t.ppC) - float64(t.tpB)/float64(t.ppB)
	slices.SortFunc(sess, func(a, b precisionSession) int {
		for _, d := range [4]int64{a.tpB - b.tpB, a.ppB - b.ppB, a.tpC - b.tpC, a.ppC - b.ppC} {
			if d != 0 {
				return cmpInt(d)
			}
		}
		return 0
	})
	type group struct {
		s precisionSession
		n float64
	}
	var groups []group
	for _, s := range sess {
		if len(groups) > 0 && groups[len(groups)-1].s == s {
			groups[len(groups)-1].n++
			continue
		}
		groups = append(groups, group{s: s, n: 1})
	}
	src := rand.NewPCG(seedOr1(seed), 0x6170657661_6c)
	draws := make([]float64, 0, BootstrapResamples)
	k := float64(len(sess))
	for range BootstrapResamples {
		var r [4]float64
		left, mass := k, k
		for gi, g := range groups {
			var c float64
			switch {
			case left == 0:
			case gi == len(groups)-1:
				c = left
			default:
				c = distuv.Binomial{N: left, P: min(1, g.n/mass), Src: src}.Rand()
			}
			left -= c
			mass -= g.n
			r[0] += c * float64(g.s.tpB)
			r[1] += c * float64(g.s.ppB)
			r[2] += c * float64(g.s.tpC)
			r[3] += c * float64(g.s.ppC)
		}
		if r[1] == 0 || r[3] == 0 {
			continue
		}
		draws = append(draws, r[2]/r[3]-r[0]/r[1])
	}
	if len(draws) == 0 {
		return ptr(obs), nil, nil, nil
	}
	slices.Sort(draws)
	l, h := percentile(draws, conf)
	return ptr(obs), ptr(l), ptr(h), ptr(bootP(obs, draws))
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

// latencyBootstrap is the percentile interval of the difference of the
// num/den quantiles (candidate − baseline), resampling the calls of each
// judge independently.
func latencyBootstrap(base, cand []float64, num, den int, seed uint64, conf float64) (lo, hi float64) {
	rng := rand.New(rand.NewPCG(seedOr1(seed), uint64(num)))
	qb, qc := newQuantileBoot(base, num, den), newQuantileBoot(cand, num, den)
	draws := make([]float64, BootstrapResamples)
	for i := range draws {
		draws[i] = qc.draw(rng) - qb.draw(rng)
	}
	slices.Sort(draws)
	return percentile(draws, conf)
}

package metrics

import (
	"math"
	"slices"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// callLats are live-call latencies in milliseconds, ascending, with the
// dense session of each call: the latency intervals and the paired
// quantile tests treat the session as the unit of replication, as the
// proportions do (docs/statistics.md, "Latency over sessions").
type callLats struct {
	ms   []float64
	sess []uint32
}

func (c callLats) Len() int           { return len(c.ms) }
func (c callLats) Less(i, j int) bool { return c.ms[i] < c.ms[j] }
func (c callLats) Swap(i, j int) {
	c.ms[i], c.ms[j] = c.ms[j], c.ms[i]
	c.sess[i], c.sess[j] = c.sess[j], c.sess[i]
}

// sortCalls sorts the calls by latency, keeping each call's session.
func sortCalls(c callLats) { sort.Sort(c) }

// singletons reports whether no session holds more than one call: the
// calls are then independent and the plain order-statistic interval and
// the bootstrap of calls are exact.
func (c callLats) singletons(sc *latScratch) bool {
	sc.grow(c.sess)
	defer sc.reset()
	for _, s := range c.sess {
		if sc.m[s] > 0 {
			return false
		}
		sc.touch(s)
		sc.m[s]++
	}
	return true
}

// latScratch holds per-session counts for one or two judges' calls,
// indexed by dense session, reused across rows: only the touched sessions
// are reset.
type latScratch struct {
	m, c, m2, c2 []int64
	touched      []uint32
	sq           []float64
}

// leverage is the factor a session's squared residual is divided by,
// given its share h of the calls: 1 − h, the leverage correction that
// keeps a dominant session's small residual from understating the
// variance (CR2 of Bell and McCaffrey, for a mean).
func leverage(h float64) float64 { return max(1-h, 1e-9) }

// dfOf is the degrees of freedom of a t on k sessions whose sizes give
// Kish's effective number of sessions ke = (Σm)²/Σm²: ke − 1 (at least
// 1), so one dominant session counts as few, not as many.
func dfOf(k, ke float64) float64 {
	return max(1, min(k, ke)-1)
}

// sortedSum sums v in ascending order (sorting v), so that a sum over
// sessions does not depend on the order the calls arrived in.
func sortedSum(v []float64) float64 {
	slices.Sort(v)
	var s float64
	for _, x := range v {
		s += x
	}
	return s
}

func (sc *latScratch) grow(sess []uint32) {
	for _, s := range sess {
		if int(s) >= len(sc.m) {
			n := int(s) + 1
			sc.m = append(sc.m, make([]int64, n-len(sc.m))...)
			sc.c = append(sc.c, make([]int64, n-len(sc.c))...)
			sc.m2 = append(sc.m2, make([]int64, n-len(sc.m2))...)
			sc.c2 = append(sc.c2, make([]int64, n-len(sc.c2))...)
		}
	}
}

func (sc *latScratch) touch(s uint32) {
	if sc.m[s] == 0 && sc.m2[s] == 0 {
		sc.touched = append(sc.touched, s)
	}
}

func (sc *latScratch) reset() {
	for _, s := range sc.touched {
		sc.m[s], sc.c[s], sc.m2[s], sc.c2[s] = 0, 0, 0, 0
	}
	sc.touched = sc.touched[:0]
}

// quantileAt is one judge's nearest-rank quantile with what its
// session-clustered interval and the paired test need.
type quantileAt struct {
	n     int
	est   float64
	below int     // calls at or below est
	f     float64 // below/n: the empirical CDF at est
	// lo, hi: the interval's ranks (1-based), 0 / n+1 where the data do
	// not bound it.
	lo, hi int
	// wlo, whi: the ranks without skewShift (the slope's, so that the
	// paired test does not move with the one-judge interval's shift).
	wlo, whi int
	deff     float64
	k        int // sessions with a call
	df       float64
}

// slope is the quantile function's slope at est, from the interval's
// ranks (a bound the data lack is replaced by the extreme call): the
// inverse density the linearization of the quantile needs.
func (q *quantileAt) slope(ms []float64) float64 {
	lo, hi := max(q.wlo, 1), min(q.whi, q.n)
	if hi <= lo {
		return 0
	}
	return (ms[hi-1] - ms[lo-1]) / (float64(hi-lo) / float64(q.n))
}

// sessionQuantile is the num/den nearest-rank quantile of c (sorted) and
// its interval at conf with sessions as clusters: Woodruff's method —
// the interval of the CDF at the estimate, F̂ ± t·se, mapped back through
// the empirical quantile function — with se from the sessions' residuals
// c_s − F̂·m_s (calls at or below the estimate, calls; session s's
// squared residual divided by 1 − m_s/n, and the sum by (k−1)/k) and t on
// Kish's effective number of sessions less one (dfOf), widened to the distribution-free order-statistic
// interval of independent calls where that is wider. With one call per
// session it is that order-statistic interval (QuantileInterval).
func sessionQuantile(c callLats, num, den int, conf float64, sc *latScratch) quantileAt {
	n := len(c.ms)
	q := quantileAt{n: n, deff: 1}
	if n == 0 {
		return q
	}
	rank := max(1, (num*n+den-1)/den)
	q.est = c.ms[rank-1]
	q.below = sort.Search(n, func(i int) bool { return c.ms[i] > q.est })
	q.f = float64(q.below) / float64(n)
	sc.grow(c.sess)
	for i, s := range c.sess {
		sc.touch(s)
		sc.m[s]++
		if i < q.below {
			sc.c[s]++
		}
	}
	sq := sc.sq[:0]
	q.sessionRanks(num, den, conf, func(yield func(m, c int64)) {
		for _, s := range sc.touched {
			yield(sc.m[s], sc.c[s])
		}
	}, &sq)
	sc.sq = sq
	sc.reset()
	return q
}

// sessionRanks fills q's interval ranks, design effect, sessions and
// degrees of freedom from n, below and f (set) and each session's calls m
// and calls at or below the estimate c, as sessionQuantile describes; sq
// is scratch.
func (q *quantileAt) sessionRanks(num, den int, conf float64, sessions func(yield func(m, c int64)), sq *[]float64) {
	n := q.n
	q.lo, q.hi = orderStatRanks(n, num, den, conf)
	defer func() {
		if q.wlo == 0 && q.whi == 0 {
			q.wlo, q.whi = q.lo, q.hi
		}
	}()
	single := true
	*sq = (*sq)[:0]
	var m2 float64
	var rs []float64
	sessions(func(m, c int64) {
		q.k++
		m2 += float64(m) * float64(m)
		r := float64(c) - q.f*float64(m)
		rs = append(rs, r)
		*sq = append(*sq, r*r/leverage(float64(m)/float64(n)))
		if m > 1 {
			single = false
		}
	})
	ss := sortedSum(*sq)
	if single {
		return
	}
	p := float64(num) / float64(den)
	if q.k < 2 {
		// One session: nothing measures how sessions differ.
		q.lo, q.hi, q.deff = 0, n+1, math.Inf(1)
		return
	}
	k := float64(q.k)
	v := k / (k - 1) * ss / (float64(n) * float64(n))
	if iid := p * (1 - p) / float64(n); iid > 0 {
		q.deff = max(1, v/iid)
	}
	q.df = dfOf(k, float64(n)*float64(n)/m2)
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: q.df}.Quantile(1 - (1-conf)/2)
	se := math.Sqrt(v)
	lo := int(math.Floor(float64(n) * (p - t*se)))
	hi := int(math.Ceil(float64(n)*(p+t*se))) + 1
	q.lo = max(0, min(q.lo, lo))
	q.wlo, q.whi = q.lo, min(n+1, max(q.hi, hi))
	// The shift is for the skew sessions add: independent calls' own skew
	// is the order-statistic interval's (exact) in the hull, so it is
	// scaled by the clustered share of the variance, 1 − 1/deff.
	w := 1 - 1/q.deff
	gamma, carry := residualSkew(rs)
	hi = int(math.Ceil(float64(n)*(p+se*(t+w*skewShift(gamma, carry, t))))) + 1
	q.hi = min(n+1, max(q.hi, hi))
	lo = int(math.Floor(float64(n) * (p - se*(t+w*lowShift(gamma, carry, t)))))
	q.lo = max(0, min(q.lo, lo))
}

// residualSkew is the skew γ = Σr³/(Σr²)^1.5 of the sessions' residuals r
// (sorting them) and how many sessions effectively carry their sum of
// squares, (Σr²)²/Σr⁴; both 0 when every residual is 0.
func residualSkew(rs []float64) (gamma, carry float64) {
	slices.Sort(rs)
	var s2, s3, s4 float64
	for _, r := range rs {
		s2 += r * r
		s3 += r * r * r
		s4 += r * r * r * r
	}
	if s2 == 0 {
		return 0, 0
	}
	return s3 / math.Pow(s2, 1.5), s2 * s2 / s4
}

// skewShift is how far (in standard errors) the upper rank moves for the
// skew of the CDF estimate's sum over sessions (residualSkew's γ and
// carry): the Cornish–Fisher shift of a studentized sum's upper quantile,
// −γ·(2t²+1)/6 with γ clipped to ±0.5, kept only when it widens (γ < 0) —
// 0 when fewer than 3 sessions effectively carry the sum (carry < 3).
// Calls above a high quantile come in bursts from a few slow sessions: the
// residuals are left-skewed, and a sample that drew no very slow session
// has both too few calls above the quantile and a small variance, so the
// symmetric upper bound fell below the true P95 up to 0.092 of the time
// with heavy-tailed sessions (goal ≤ 0.075; docs/statistics.md, "The upper
// bound's skew shift"). The caller scales it by 1 − 1/deff.
func skewShift(gamma, carry, t float64) float64 {
	if carry < 3 {
		return 0
	}
	return -max(-0.5, min(0, gamma)) * (2*t*t + 1) / 6
}

// lowShift is how far (in standard errors) the lower rank moves down:
// |γ|·(2t²+1)/6, γ clipped to ±0.5, where fewer than 3 sessions
// effectively carry the residuals' sum of squares (carry < 3, where
// skewShift is 0), else 0. There one very slow session holds the tail:
// the variance rests on one or two sessions while t counts them all, and
// the lower bound lay above the true P95 (judge_p95_max FAILs a judge at
// its limit) up to 0.073 of the time with heavy-tailed sessions (nominal
// 0.025; docs/statistics.md, "The lower bound when one session carries the
// tail"). The expansion itself would raise the lower rank for left-skewed
// residuals, and raised FAIL at the limit; this is the same size of shift
// the other way, measured. The caller scales it by 1 − 1/deff.
func lowShift(gamma, carry, t float64) float64 {
	if carry == 0 || carry >= 3 {
		return 0
	}
	return math.Abs(max(-0.5, min(0.5, gamma))) * (2*t*t + 1) / 6
}

// SessionQuantileRanks is sessionQuantile's interval — the num/den
// nearest-rank quantile's session-clustered interval at conf, the one
// report's P50 and P95 have (Woodruff, CR2 session variance, t on Kish's
// effective sessions, never narrower than the order-statistic interval of
// independent calls) — for callers that stream the calls rather than hold
// them: n calls, below of them at or below the estimate (the value at
// rank max(1, ⌈num·n/den⌉) of the ascending calls), and sessions yielding
// each session's calls m and calls at or below the estimate c, in any
// order. It returns the interval's ranks (1-based, into the ascending
// calls; 0 and n+1 where the data do not bound it).
func SessionQuantileRanks(n, below int, num, den int, conf float64, sessions func(yield func(m, c int64))) (lo, hi int) {
	if n == 0 {
		return 0, 1
	}
	q := quantileAt{n: n, deff: 1, below: below, f: float64(below) / float64(n)}
	var sq []float64
	q.sessionRanks(num, den, conf, sessions, &sq)
	return q.lo, q.hi
}

// bounds is the interval as values, nil where the data do not bound it.
func (q *quantileAt) bounds(ms []float64) (lo, hi *float64) {
	if q.lo >= 1 && q.lo <= q.n {
		lo = ptr(ms[q.lo-1])
	}
	if q.hi >= 1 && q.hi <= q.n {
		hi = ptr(ms[q.hi-1])
	}
	return lo, hi
}

// orderStatRanks are QuantileInterval's ranks (1-based; 0 and n+1 where
// the rank does not exist).
func orderStatRanks(n, num, den int, conf float64) (lo, hi int) {
	alpha := 1 - conf
	b := distuv.Binomial{N: float64(n), P: float64(num) / float64(den)}
	lo = sort.Search(n, func(i int) bool { return b.CDF(float64(i)) > alpha/2 })
	hi = sort.Search(n, func(i int) bool { return b.CDF(float64(i)) >= 1-alpha/2 }) + 1
	return lo, hi
}

// pairedQuantile compares the num/den quantile of two judges' calls
// (candidate − baseline) over the sessions both saw. With one call per
// session for both, it is the bootstrap of calls (latencyBootstrap).
// Otherwise each quantile is linearized — q̂ − q ≈ −(F̂(q) − p)·Q′(p), the
// slope Q′ read off the session-clustered interval (Woodruff) — and the
// sessions' residuals of the difference give its variance: V = k/(k−1)·Σ_s
// r_s²/(1 − h_s), r_s = Q′_C·(c_Cs − F̂_C·m_Cs)/n_C − Q′_B·(c_Bs −
// F̂_B·m_Bs)/n_B, h_s the session's mean share of the two judges' calls;
// the interval Δ ± t·√V and the p-value with dfOf's degrees of freedom. A
// session slow for both judges moves both quantiles, and the paired
// residual cancels it. ok is false when the data give no test (under two
// sessions).
func pairedQuantile(base, cand callLats, num, den int, seed uint64, conf float64, sc *latScratch) (lo, hi, p float64, test string, ok bool) {
	if base.singletons(sc) && cand.singletons(sc) {
		lo, hi, p = latencyBootstrap(base.ms, cand.ms, num, den, seed, conf)
		return lo, hi, p, TestBootstrapCalls, true
	}
	if k := sessionsOf(base, cand, sc); k < flipMaxSessions {
		lo, hi, p, ok = quantileFlip(base, cand, num, den, conf)
		return lo, hi, p, TestQuantileFlip, ok
	}
	qb := sessionQuantile(base, num, den, conf, sc)
	qc := sessionQuantile(cand, num, den, conf, sc)
	if qb.below == qb.n || qc.below == qc.n {
		// The quantile is a judge's slowest call (nearest rank n: fewer
		// than 20 calls for a P95, or ties at the top): every call is at
		// or below it, each session's residual c_s − F̂·m_s is 0 and the
		// linearization would call the quantile exact — a zero-width
		// interval and p ≈ 0 for any difference. Nothing in the data
		// bounds a maximum from above: no test.
		return 0, 0, 0, TestQuantileSessions, false
	}
	sb, scd := qb.slope(base.ms), qc.slope(cand.ms)
	sc.grow(base.sess)
	sc.grow(cand.sess)
	for i, s := range base.sess {
		sc.touch(s)
		sc.m[s]++
		if i < qb.below {
			sc.c[s]++
		}
	}
	for i, s := range cand.sess {
		sc.touch(s)
		sc.m2[s]++
		if i < qc.below {
			sc.c2[s]++
		}
	}
	k := len(sc.touched)
	nb, nc := float64(qb.n), float64(qc.n)
	sq := sc.sq[:0]
	var h2 float64
	for _, s := range sc.touched {
		hs := (float64(sc.m[s])/nb + float64(sc.m2[s])/nc) / 2
		h2 += hs * hs
		rb := sb * (float64(sc.c[s]) - qb.f*float64(sc.m[s])) / nb
		rc := scd * (float64(sc.c2[s]) - qc.f*float64(sc.m2[s])) / nc
		h := (float64(sc.m[s])/nb + float64(sc.m2[s])/nc) / 2
		sq = append(sq, (rc-rb)*(rc-rb)/leverage(h))
	}
	ss := sortedSum(sq)
	sc.sq = sq
	sc.reset()
	if k < 2 {
		return 0, 0, 0, TestQuantileSessions, false
	}
	d := qc.est - qb.est
	kf := float64(k)
	se := math.Sqrt(kf / (kf - 1) * ss)
	st := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: dfOf(kf, 1/h2)}
	if se == 0 {
		// Every session moves both quantiles' CDFs alike (a candidate
		// exactly so much faster on every call): the difference is the
		// data's, with no spread.
		p = 1
		if d != 0 {
			p = 0
		}
		return d, d, p, TestQuantileSessions, true
	}
	t := st.Quantile(1 - (1-conf)/2)
	p = 2 * st.Survival(math.Abs(d)/se)
	return d - t*se, d + t*se, p, TestQuantileSessions, true
}

// NoLatencyReason is why a judge whose calls carry no recorded latency
// has no latency figures and judge_p95_max is N/A.
const NoLatencyReason = "no recorded latency: every call of the judge is at exactly 0 ms, which no measured call is (a vendor's recorded decisions, or recordings without latency_ms), so its P50/P95/P99 are not known and its latency is not compared"

// sessionsOf counts the sessions either judge's calls fall in.
func sessionsOf(base, cand callLats, sc *latScratch) int {
	sc.grow(base.sess)
	sc.grow(cand.sess)
	defer sc.reset()
	for _, c := range [2]callLats{base, cand} {
		for _, s := range c.sess {
			sc.touch(s)
			sc.m[s]++
		}
	}
	return len(sc.touched)
}

// unrecordedLatency reports whether calls carry no recorded latency: there
// are some and every one is exactly 0 ms. A measured call always takes
// some time (a cached answer keeps the latency measured when it was made);
// a recording without latency_ms, such as a vendor's own decisions
// imported from its logs, reads as 0.
func unrecordedLatency(ms []float64) bool {
	if len(ms) == 0 {
		return false
	}
	for _, v := range ms {
		if v != 0 {
			return false
		}
	}
	return true
}

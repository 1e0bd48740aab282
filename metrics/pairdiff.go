package metrics

import (
	"math"
	"slices"
)

// pairSess is one session's paired binary units: m units, y1 with the
// event on the first side, y2 on the second (y12 on both).
type pairSess struct{ y1, y2, y12, m int64 }

// pairDiff is a difference of two paired proportions p1 − p2 over
// sessions, with its clustered Newcombe interval (docs/statistics.md).
type pairDiff struct {
	a, b   int64 // cells: both, first only
	c, d   int64 // second only, neither
	p1, p2 *bbPosterior
	// phi is the correlation of the two rates' estimates, from the
	// sessions' residuals. Where either rate's interval rests on few
	// sessions (the beta-binomial's branch: under 10 degrees of freedom)
	// the square-and-add takes min(phi, 0): a correlation estimated from
	// 3–10 sessions is noise (about ±0.5 at 4 sessions), and a positive
	// draw narrows the interval through −2φ; with it, 0.3 against 0.21 of
	// discordant units at ICC 0.5 over 3–10 sessions covered 0.900–0.924
	// (2,000 replicates, docs/statistics.md "Fire-rate drift with few
	// sessions"), with min(phi, 0) 0.934–0.975, where the true φ itself gave
	// 0.925–0.99.
	phi float64
	one bool // every session holds one unit: Newcombe's own method
	// sess are the sessions' units (a plan from a pilot run resamples them).
	sess []pairCount
}

func newPairDiff(sess []pairSess) *pairDiff {
	counts := make([]pairCount, len(sess))
	for i, s := range sess {
		counts[i] = pairCount{s, 1}
	}
	return newPairDiffCounts(counts)
}

func cmpPairSess(x, y pairSess) int {
	for _, d := range [4]int64{x.y1 - y.y1, x.y2 - y.y2, x.y12 - y.y12, x.m - y.m} {
		if d != 0 {
			return cmpInt(d)
		}
	}
	return 0
}

// newPairDiffCounts is newPairDiff of the sessions counts describe (c.n
// sessions with the units c.s): the same sums in the same order.
func newPairDiffCounts(counts []pairCount) *pairDiff {
	// Sorted, so that the sums below do not depend on the order the
	// sessions came in.
	slices.SortFunc(counts, func(x, y pairCount) int { return cmpPairSess(x.s, y.s) })
	pd := &pairDiff{one: true}
	var kept []pairCount
	var M int64
	for _, c := range counts {
		s := c.s
		if s.m == 0 || c.n == 0 {
			continue
		}
		pd.a += s.y12 * c.n
		pd.b += (s.y1 - s.y12) * c.n
		pd.c += (s.y2 - s.y12) * c.n
		pd.d += (s.m - s.y1 - s.y2 + s.y12) * c.n
		pd.one = pd.one && s.m == 1
		kept = append(kept, c)
		M += s.m * c.n
	}
	if M == 0 {
		return nil
	}
	pd.sess = kept
	// The difference is that of the two discordance rates, first side
	// only minus second side only: both are proportions of the same
	// units, each gets its clustered interval, and their correlation is
	// that of the sessions' residuals (near 0 or negative, so the
	// square-and-add below does not lean on a correlation near 1).
	bs, cs := make([]ymCount, len(kept)), make([]ymCount, len(kept))
	var B, C int64
	for i, c := range kept {
		s := c.s
		bs[i], cs[i] = ymCount{s.y1 - s.y12, s.m, c.n}, ymCount{s.y2 - s.y12, s.m, c.n}
		B, C = B+bs[i].y*c.n, C+cs[i].y*c.n
	}
	pd.p1, pd.p2 = newBBPosteriorCounts(bs), newBBPosteriorCounts(cs)
	for _, p := range []*bbPosterior{pd.p1, pd.p2} {
		if p != nil {
			p.paired = true // bbLevel: no rare-outcome level
		}
	}
	q1, q2 := float64(B)/float64(M), float64(C)/float64(M)
	var s12, s11, s22 float64
	for i, c := range kept {
		m := float64(c.s.m)
		r1, r2 := float64(bs[i].y)-q1*m, float64(cs[i].y)-q2*m
		// One addition per session, in the sessions' sorted order.
		for range c.n {
			s12 += r1 * r2
			s11 += r1 * r1
			s22 += r2 * r2
		}
	}
	if s11 > 0 && s22 > 0 {
		pd.phi = s12 / math.Sqrt(s11*s22)
	}
	return pd
}

// clusteredSessions is the number of sessions the paired difference's
// interval rests on where its units are clustered, 0 where every session
// holds one unit (Newcombe's own method: independent units).
func (pd *pairDiff) clusteredSessions() float64 {
	if pd == nil || pd.one || pd.p1 == nil {
		return 0
	}
	return pd.p1.sessions()
}

// interval is the difference and its interval at conf, the data scaled by
// f (every session repeated f times; 1 for the data themselves).
func (pd *pairDiff) interval(f, conf float64) (est, lo, hi float64) {
	n := float64(pd.a + pd.b + pd.c + pd.d)
	est = float64(pd.b-pd.c) / n
	if pd.one {
		z := zScore(conf)
		return NewcombePaired(float64(pd.a)*f, float64(pd.b)*f, float64(pd.c)*f, float64(pd.d)*f, z)
	}
	l1, u1 := pd.p1.scaledInterval(f, conf)
	l2, u2 := pd.p2.scaledInterval(f, conf)
	phi := pd.phi
	if pd.p1.fewAt(f) || pd.p2.fewAt(f) {
		phi = min(phi, 0)
	}
	// The scaled data have the same rates.
	return mover(est, pd.p1.Y/pd.p1.M, pd.p2.Y/pd.p2.M, l1, u1, l2, u2, phi)
}

// mover is Newcombe's square-and-add (MOVER) for p1 − p2 from the two
// proportions' own intervals and the correlation φ of their estimates.
func mover(est, p1, p2, l1, u1, l2, u2, phi float64) (float64, float64, float64) {
	dl1, du2 := p1-l1, u2-p2
	dl2, du1 := p2-l2, u1-p1
	lo := est - math.Sqrt(max(0, dl1*dl1-2*phi*dl1*du2+du2*du2))
	hi := est + math.Sqrt(max(0, dl2*dl2-2*phi*dl2*du1+du1*du1))
	return est, max(lo, -1), min(hi, 1)
}

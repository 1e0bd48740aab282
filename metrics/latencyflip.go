package metrics

import (
	"math"
	"slices"
)

// flipMaxSessions is where the session-flip test of a latency quantile's
// difference gives way to the linearized one (pairedQuantile): below it the
// linearization marks equal judges different far more often than α (with
// latency clustered by session, 400 replicates: 0.38 at 3 sessions of 10
// calls, 0.14 at 6, 0.095 at 8, 0.070 at 10, 0.055 at 12;
// docs/statistics.md, "Latency over sessions"); from it on it holds α, and
// the exact flip distribution (2^K patterns) would grow too costly.
const flipMaxSessions = 12

// flipCall is one call in quantileFlip's walk: its latency, its session
// (dense, 0..K−1) and whether it is the candidate's.
type flipCall struct {
	ms   float64
	sess int
}

// quantileFlip compares the num/den nearest-rank quantile of two judges'
// calls (candidate − baseline) by the sessions' sign-flip randomization
// test, for few sessions (fewer than flipMaxSessions). Under "the two
// judges are alike within each session" swapping which judge made a whole
// session's calls leaves the data's distribution unchanged, so the 2^K
// swaps give the exact null distribution of the difference whatever the
// sessions share (a slow host, a long context, a judge slower on one
// session). p is the share of swaps whose |difference| is at least the
// observed one; the interval is the shifts δ of the candidate's calls
// (c − δ) that the same test does not reject at 1 − conf, found by
// bisection: 0 lies outside it exactly when p < 1 − conf. ok is false when
// no swap can reach the level (2/2^K ≥ 1 − conf: 5 sessions or fewer at
// 95 %): then the data cannot show a difference, whatever it is.
func quantileFlip(base, cand callLats, num, den int, conf float64) (lo, hi, p float64, ok bool) {
	idx := map[uint32]int{}
	dense := func(s uint32) int {
		i, seen := idx[s]
		if !seen {
			i = len(idx)
			idx[s] = i
		}
		return i
	}
	bs := make([]flipCall, len(base.ms))
	for i, v := range base.ms {
		bs[i] = flipCall{v, dense(base.sess[i])}
	}
	cs := make([]flipCall, len(cand.ms))
	for i, v := range cand.ms {
		cs[i] = flipCall{v, dense(cand.sess[i])}
	}
	k := len(idx)
	alpha := 1 - conf
	if k >= 31 || 2/math.Ldexp(1, k) >= alpha || len(bs) == 0 || len(cs) == 0 {
		return 0, 0, 0, false
	}
	// Descending, for the walk from the top.
	desc := func(a, b flipCall) int { return cmpFloat(b.ms, a.ms) }
	slices.SortFunc(bs, desc)
	slices.SortFunc(cs, desc)
	nb := make([]int, k)
	nc := make([]int, k)
	for _, c := range bs {
		nb[c.sess]++
	}
	for _, c := range cs {
		nc[c.sess]++
	}
	w := flipWalk{bs: bs, cs: cs, nb: nb, nc: nc, num: num, den: den}
	d := w.diff(0, 0)
	all := 1 << k
	// hitsAt counts the swaps whose |difference| reaches the observed one
	// at shift delta, stopping once the count reaches enough (the
	// bisection only asks whether p ≥ α).
	hitsAt := func(delta float64, enough int) int {
		obs := math.Abs(d - delta)
		tol := 1e-9 * max(1, math.Abs(d), math.Abs(delta))
		var hits int
		for mask := range all {
			if math.Abs(w.diff(uint32(mask), delta)) >= obs-tol {
				if hits++; hits >= enough {
					break
				}
			}
		}
		return hits
	}
	p = float64(hitsAt(0, all)) / float64(all)
	// p ≥ α exactly when the hits reach need.
	need := int(math.Ceil(alpha*float64(all) - 1e-9))
	// A shift far enough that only the unswapped and the fully swapped
	// patterns reach the observed difference: beyond every call's range.
	span := max(bs[0].ms, cs[0].ms) - min(bs[len(bs)-1].ms, cs[len(cs)-1].ms)
	reach := 2*span + 1
	bound := func(dir float64) float64 {
		in, out := d, d+dir*reach // p(in) = 1 ≥ α > p(out)
		for range 24 {
			mid := (in + out) / 2
			if hitsAt(mid, need) >= need {
				in = mid
			} else {
				out = mid
			}
		}
		return in
	}
	lo, hi = bound(-1), bound(1)
	// The bisection's last step is within span·2⁻²³ of the boundary; keep
	// the mark and the interval saying the same thing about 0.
	if p < alpha {
		if lo <= 0 && 0 <= hi {
			if d > 0 {
				lo = math.Nextafter(0, 1)
			} else {
				hi = math.Nextafter(0, -1)
			}
		}
	} else {
		lo, hi = min(lo, 0), max(hi, 0)
	}
	return lo, hi, p, true
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// flipWalk holds both judges' calls, descending, for quantileFlip, and
// their merge at the shift last asked for.
type flipWalk struct {
	bs, cs   []flipCall
	nb, nc   []int
	num, den int
	merged   []flipMerged
	at       float64
	ready    bool
}

// flipMerged is one call of the merge: its (shifted) latency, its session
// and 1 for a candidate's call.
type flipMerged struct {
	v    float64
	sess uint32
	cand uint32
}

// mergeAt merges both judges' calls, descending, with the candidate's
// shifted by −delta: the order every swap pattern walks.
func (w *flipWalk) mergeAt(delta float64) {
	if w.ready && w.at == delta {
		return
	}
	w.merged = w.merged[:0]
	i, j := 0, 0
	for i < len(w.bs) || j < len(w.cs) {
		if j >= len(w.cs) || (i < len(w.bs) && w.bs[i].ms >= w.cs[j].ms-delta) {
			w.merged = append(w.merged, flipMerged{w.bs[i].ms, uint32(w.bs[i].sess), 0})
			i++
		} else {
			w.merged = append(w.merged, flipMerged{w.cs[j].ms - delta, uint32(w.cs[j].sess), 1})
			j++
		}
	}
	w.at, w.ready = delta, true
}

// diff is the quantile's difference (group C − group B) when the sessions
// in mask are swapped and the candidate's calls are shifted by −delta:
// group C holds the candidate's calls of unswapped sessions and the
// baseline's of swapped ones. It walks the merge from the top until each
// group's nearest-rank quantile is passed.
func (w *flipWalk) diff(mask uint32, delta float64) float64 {
	w.mergeAt(delta)
	var sizeC, sizeB int
	for s := range w.nb {
		if mask&(1<<s) != 0 {
			sizeC += w.nb[s]
			sizeB += w.nc[s]
		} else {
			sizeC += w.nc[s]
			sizeB += w.nb[s]
		}
	}
	if sizeC == 0 || sizeB == 0 {
		return 0
	}
	// Nearest rank r from the bottom is the (size − r + 1)-th from the top.
	topC := sizeC - max(1, (w.num*sizeC+w.den-1)/w.den) + 1
	topB := sizeB - max(1, (w.num*sizeB+w.den-1)/w.den) + 1
	var qC, qB float64
	var gotC, gotB int
	for _, c := range w.merged {
		// In group C: a candidate's call of an unswapped session, or a
		// baseline's call of a swapped one.
		if (mask>>c.sess)&1 != c.cand {
			gotC++
			if gotC == topC {
				qC = c.v
				if gotB >= topB {
					break
				}
			}
		} else {
			gotB++
			if gotB == topB {
				qB = c.v
				if gotC >= topC {
					break
				}
			}
		}
	}
	return qC - qB
}

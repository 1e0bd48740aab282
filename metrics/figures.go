package metrics

import "github.com/apeval/apeval/internal/spill"

// Figure names (Figure.Figure), in report order.
const (
	FigureRecall            = "recall"
	FigureFalsePositiveRate = "false_positive_rate"
	FigureUnknownRate       = "unknown_rate"
	FigureFireRate          = "fire_rate"
	FigurePrecision         = "precision"
	FigureLatencyP50        = "latency_p50_ms"
	FigureLatencyP95        = "latency_p95_ms"
	// FigureLatencyShift is Mann–Whitney's test of the whole latency
	// distribution: Delta is P(a candidate call is slower than a baseline
	// call) + ½P(equal) − ½, from −½ to +½.
	FigureLatencyShift = "latency_shift"
)

// FigureNames lists the comparison figures in report order.
var FigureNames = []string{FigureRecall, FigureFalsePositiveRate, FigureUnknownRate, FigureFireRate,
	FigurePrecision, FigureLatencyP50, FigureLatencyP95, FigureLatencyShift}

// binFigure is a paired binary figure (see docs/statistics.md): the units both judges
// count for it and the event whose rate it is.
type binFigure struct {
	name  string
	unit  func(fb, fc uint64) bool
	event uint64
}

var binFigures = []binFigure{
	{FigureRecall, func(fb, fc uint64) bool { return fb&fc&bitPos != 0 }, bitMatch},
	// FP/(FP+TN): labeled negatives both judges decided (a failure or an
	// unknown on a negative is neither FP nor TN).
	{FigureFalsePositiveRate, func(fb, fc uint64) bool {
		return fb&fc&bitNeg != 0 && fb&(bitMatch|bitNoMatch) != 0 && fc&(bitMatch|bitNoMatch) != 0
	}, bitMatch},
	{FigureUnknownRate, func(fb, fc uint64) bool { return fb&fc&bitJudged != 0 }, bitUndecided},
	{FigureFireRate, func(fb, fc uint64) bool { return true }, bitFired},
}

// eachPaired calls fn for every case both judges have a result for (in
// scope, not missing), once per case (repeats are skipped), in case order,
// with the case's session.
func eachPaired(sm sessMap, base, cand *spill.List, fn func(sess uint32, fb, fc uint64)) {
	bi, ci := newCursor(base), newCursor(cand)
	for bi.ok && ci.ok {
		ob, oc := bi.ord(), ci.ord()
		if ob == oc {
			if b, c := bi.r.K, ci.r.K; (b|c)&bitMissing == 0 {
				fn(sm.at(bi.r.V), b, c)
			}
		}
		if ob <= oc {
			bi.skip()
		}
		if oc <= ob {
			ci.skip()
		}
	}
}

// figures computes every comparison figure over the given rules' pairs
// (baseline, candidate) and latencies, in one pass over the pairs.
func (s *Summary) figures(lists [][2]*spill.List, latB, latC callLats) []Figure {
	// One list pair is one pass in case order; several are not.
	fa := s.newFigureAcc(s.contig && len(lists) <= 1, s.nSess)
	for _, l := range lists {
		eachPaired(s.sm, l[0], l[1], fa.add)
	}
	out := fa.finish()
	var sc latScratch
	out = append(out, latencyFigure(FigureLatencyP50, latB, latC, 50, s.seed, s.conf, &sc))
	out = append(out, latencyFigure(FigureLatencyP95, latB, latC, 95, s.seed, s.conf, &sc))
	out = append(out, latencyShift(latB.ms, latC.ms))
	return out
}

// figureAcc accumulates the paired binary figures (binFigures) and
// precision over pairs given as their bits (baseline, candidate) with
// their session: lane i of ls holds binFigures[i]'s discordance. The
// labeled path feeds it the same bits where every label weighs 1
// (censusFigures), so both paths compute one figure one way.
type figureAcc struct {
	s        *Summary
	cnt      [4][4]int64 // per binFigure: both, baseline only, candidate only, neither
	ls       *laneSums
	prec     *sessSums
	precHist map[precisionSession]int64
}

func (s *Summary) newFigureAcc(contig bool, nSess int) *figureAcc {
	fa := &figureAcc{s: s, precHist: map[precisionSession]int64{}}
	fa.ls = newLaneSums(len(binFigures), contig, nSess, s.pool)
	fa.prec = newSessSums(4, contig, nSess, s.pool, func(v []int64) {
		fa.precHist[precisionSession{v[0], v[1], v[2], v[3]}]++
	})
	return fa
}

// add counts one paired case of session sess.
func (fa *figureAcc) add(sess uint32, fb, fc uint64) {
	for fi := range binFigures {
		bf := &binFigures[fi]
		if !bf.unit(fb, fc) {
			continue
		}
		eb, ec := fb&bf.event != 0, fc&bf.event != 0
		switch {
		case eb && ec:
			fa.cnt[fi][0]++
		case eb:
			fa.cnt[fi][1]++
		case ec:
			fa.cnt[fi][2]++
		default:
			fa.cnt[fi][3]++
		}
		fa.ls.addDisc(sess, fi, eb && !ec, ec && !eb)
	}
	// Precision on the paired labeled units either judge matched.
	if fb&fc&(bitPos|bitNeg) == 0 || (fb|fc)&bitMatch == 0 {
		return
	}
	p := fa.prec.at(sess)
	pos := fb&bitPos != 0
	if fb&bitMatch != 0 {
		p[1]++
		if pos {
			p[0]++
		}
	}
	if fc&bitMatch != 0 {
		p[3]++
		if pos {
			p[2]++
		}
	}
}

// finish returns the binary figures, then precision, in FigureNames'
// order.
func (fa *figureAcc) finish() []Figure {
	s := fa.s
	z := zScore(s.conf)
	out := make([]Figure, 0, len(FigureNames))
	fa.ls.done()
	fa.prec.finish()
	for fi, bf := range binFigures {
		a, b, c, d := fa.cnt[fi][0], fa.cnt[fi][1], fa.cnt[fi][2], fa.cnt[fi][3]
		m := fa.ls.mcnemar(fi)
		f := Figure{Figure: bf.name, N: a + b + c + d, Test: m.test()}
		if f.N > 0 {
			n := float64(f.N)
			f.Baseline, f.Candidate = ptr(float64(a+b)/n), ptr(float64(a+c)/n)
			est, lo, hi := NewcombePaired(float64(a), float64(c), float64(b), float64(d), z)
			f.Delta, f.DeltaLo, f.DeltaHi = ptr(est), ptr(lo), ptr(hi)
			fr := m.flip(s.seed)
			f.PValue, f.PValueMCError = ptr(fr.two), fr.mcErr
			f.DiscordantBaseline, f.DiscordantCandidate = &b, &c
		}
		out = append(out, f)
	}
	fa.ls.reset()
	return append(out, precisionFigure(fa.precHist, s.conf))
}

// precisionFigure: precision on the paired labeled units, its difference
// by the delta method with t on the sessions, from the sessions' counts
// (how many sessions have each).
func precisionFigure(hist map[precisionSession]int64, conf float64) Figure {
	f := Figure{Figure: FigurePrecision, Test: TestDeltaT}
	counts := make([]precisionCount, 0, len(hist))
	var t precisionSession
	for p, n := range hist {
		counts = append(counts, precisionCount{p, n})
		t.tpB += p.tpB * n
		t.ppB += p.ppB * n
		t.tpC += p.tpC * n
		t.ppC += p.ppC * n
		f.N += n
	}
	f.Baseline, f.Candidate = ratio(t.tpB, t.ppB), ratio(t.tpC, t.ppC)
	f.Delta, f.DeltaLo, f.DeltaHi, f.PValue = precisionDeltaTCounts(counts, conf)
	return f
}

// latencyFigure compares a nearest-rank quantile of live-call latencies
// (pairedQuantile): with one call per session the bootstrap of the calls,
// otherwise the session-clustered linearized test; either way the interval
// and the p-value come from one computation, so the mark and the interval
// agree.
func latencyFigure(name string, base, cand callLats, q int, seed uint64, conf float64, sc *latScratch) Figure {
	nb, nc := len(base.ms), len(cand.ms)
	f := Figure{Figure: name, Test: TestBootstrapCalls, N: int64(nb + nc),
		NBaseline: new(int64(nb)), NCandidate: new(int64(nc))}
	if unrecordedLatency(base.ms) || unrecordedLatency(cand.ms) {
		return f // a side without recorded latency: nothing to compare (N/A)
	}
	if nb > 0 {
		f.Baseline = ptr(NearestRank(base.ms, q, 100))
	}
	if nc > 0 {
		f.Candidate = ptr(NearestRank(cand.ms, q, 100))
	}
	if nb == 0 || nc == 0 {
		return f
	}
	f.Delta = ptr(*f.Candidate - *f.Baseline)
	lo, hi, p, test, ok := pairedQuantile(base, cand, q, 100, seed, conf, sc)
	f.Test = test
	if ok {
		f.DeltaLo, f.DeltaHi, f.PValue = ptr(lo), ptr(hi), ptr(p)
	}
	return f
}

// latencyShift is Mann–Whitney's test of the whole latency distribution.
func latencyShift(base, cand []float64) Figure {
	f := Figure{Figure: FigureLatencyShift, Test: TestMannWhitney, N: int64(len(base) + len(cand)),
		NBaseline: new(int64(len(base))), NCandidate: new(int64(len(cand)))}
	if len(base) == 0 || len(cand) == 0 || unrecordedLatency(base) || unrecordedLatency(cand) {
		return f
	}
	u, p := MannWhitney(base, cand)
	f.Delta = ptr(u/(float64(len(base))*float64(len(cand))) - 0.5)
	f.PValue = ptr(p)
	return f
}

package metrics

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// ppiRatio is stratified prediction-powered inference (β = 1): a queue
// drawn on the candidate's answers alone, the reference judge's answers
// on every recorded pair as a control variate within its strata. The
// figure is Σ over all pairs with the reference's answer as the label,
// corrected by each stratum's weighted mean of (label − reference) on the
// labels; its variance the textbook one (units independent) of the
// linearized differences. refOf maps a pair index to the reference's
// answer, idOf a unit to its pair.
func ppiRatio(ps []simPair, units []SampleUnit, refOf map[int]bool, idOf []int, f func(match, label bool) (float64, float64)) (R, V float64) {
	strata := strataOf(units)
	// totals over all pairs with the reference as the label
	var Yr, Xr float64
	for _, p := range ps {
		y, x := f(p.c, p.r)
		Yr, Xr = Yr+y, Xr+x
	}
	var Yd, Xd float64
	for _, s := range strata {
		w := s.size / float64(s.labeled)
		for _, i := range s.idx {
			u := &units[i]
			y, x := f(u.Match, u.Label)
			yr, xr := f(u.Match, refOf[idOf[i]])
			Yd, Xd = Yd+w*(y-yr), Xd+w*(x-xr)
		}
	}
	Y, X := Yr+Yd, Xr+Xd
	R = Y / X
	for _, s := range strata {
		n := float64(s.labeled)
		if n < 2 {
			continue
		}
		var m, ss float64
		d := make([]float64, 0, len(s.idx))
		for _, i := range s.idx {
			u := &units[i]
			y, x := f(u.Match, u.Label)
			yr, xr := f(u.Match, refOf[idOf[i]])
			v := ((y - yr) - R*(x-xr)) / X
			d = append(d, v)
			m += v
		}
		m /= n
		for _, v := range d {
			ss += (v - m) * (v - m)
		}
		V += s.size * s.size * (1 - n/s.size) * ss / (n - 1) / n
	}
	return R, V
}

// TestLabeledPPIWidth: where stratified PPI (a reference judge's answers
// on all pairs as a control variate within strata) could narrow a labeled
// interval. It narrows a queue drawn on the candidate alone, but a queue
// whose strata already include the reference (label queue's default: all
// the run's judges) is narrower still on every model: within its strata
// the reference's answer is constant and has nothing left to remove. Both
// with textbook (independent units) variances, against the recorded
// pairs' own figures. The smoke runs 20 populations of the first model;
// APEVAL_CALIBRATE every model at that many.
func TestLabeledPPIWidth(t *testing.T) {
	t.Parallel()
	reps, full := calibrationN()
	models := labelModels
	if !full {
		reps, models = 20, labelModels[:1]
	}
	fs := [2]func(m, l bool) (float64, float64){
		func(m, l bool) (float64, float64) { return b2f(m && l), b2f(m) },
		func(m, l bool) (float64, float64) { return b2f(m && l), b2f(l) },
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n| model (%d populations, 300 labels) | figure | queue on both judges: width | coverage of the recorded pairs | queue on the candidate alone: width | + PPI with the reference: width | coverage | PPI ÷ both judges |\n|---|---|---|---|---|---|---|---|\n", reps)
	for _, m := range models {
		var wS, wP, wC [2]float64
		var covS, covP [2]float64
		for rep := range uint64(reps) {
			ps := m.draw(1000 + rep)
			pp, pr := truth(ps)
			own := [2]float64{pp, pr}
			qs := queueUnits(t, ps, 300, 300, rep+1)
			by := map[string]int{}
			pairs := make([]QueuePair, len(ps))
			for i := range ps {
				by[ps[i].id] = i
				pairs[i] = QueuePair{CaseID: ps[i].id, RuleID: "r", Results: []string{res(ps[i].c)}}
			}
			q, err := BuildQueue(pairs, QueueConfig{Budget: 300, Seed: rep + 1, Letters: []string{"C"}})
			if err != nil {
				t.Fatal(err)
			}
			var us []SampleUnit
			var idOf []int
			ref := map[int]bool{}
			for _, it := range q.Items {
				i := by[it.CaseID]
				p := ps[i]
				us = append(us, SampleUnit{Stratum: it.Stratum, StratumSize: it.StratumSize, Session: p.session, Label: p.pos, Match: p.c})
				idOf = append(idOf, i)
				ref[i] = p.r
			}
			for k := range 2 {
				if l, h, ok := textbookStratified(qs, ratioFns[k]); ok {
					wS[k] += h - l
					if l <= own[k] && own[k] <= h {
						covS[k]++
					}
				}
				if l, h, ok := textbookStratified(us, ratioFns[k]); ok {
					wC[k] += h - l
				}
				R, V := ppiRatio(ps, us, ref, idOf, fs[k])
				h := 1.959964 * math.Sqrt(V)
				wP[k] += 2 * h
				if R-h <= own[k] && own[k] <= R+h {
					covP[k]++
				}
			}
		}
		r := float64(reps)
		for k, nm := range []string{"precision", "recall"} {
			fmt.Fprintf(&b, "| %s | %s | %.3f | %.3f | %.3f | %.3f | %.3f | %.2f |\n", m.name, nm, wS[k]/r, covS[k]/r, wC[k]/r, wP[k]/r, covP[k]/r, wP[k]/wS[k])
			if wP[k] < wS[k] {
				t.Errorf("%s, %s: PPI on a candidate-only queue %.3f narrower than the queue on both judges %.3f", m.name, nm, wP[k]/r, wS[k]/r)
			}
		}
	}
	t.Log(b.String())
}

package metrics

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/replay"
)

// TestCalibrationPlanLabelsSessionEffect: does a label plan need a
// session effect? A plan draws a pilot's unlabeled pairs at their queue
// stratum's share, independently of their sessions. Here every pair of
// a population is drawn so, at its stratum's true share, and queues of
// 120 labels on that table are decided by `report --labels`'s code
// against queues on the population itself (where positives cluster by
// session: a tenth of the sessions 40 % positive). Measured (full mode:
// 10 populations a model, 200 queues each; precision_min against the
// population's precision less 0.09, the recall gain over R):
//
//	model       decided: precision  recall gain   precision width   its sessions' sd (√v₁)
//	clustered   +0.025              -0.006        0.205 vs 0.209    0.034 vs 0.036
//	ICC 0       +0.015              -0.018        0.199 vs 0.200    0.032 vs 0.032
//
// The clustering left out moves nothing the verdict sees: a label
// plan's errors from a 300-label pilot (docs/planning.md) come from its
// few labels where the judges disagree, not from sessions.
func TestCalibrationPlanLabelsSessionEffect(t *testing.T) {
	t.Parallel()
	pops, reps := 1, 40
	models := []int{0}
	if n, full := calibrationN(); full {
		pops, reps, models = 10, min(n, 200), []int{0, 5}
	}
	for _, model := range models {
		var dp, dg, wq, wi, sq, si float64
		for pop := range uint64(pops) {
			ps := labelModels[model].draw(100 + pop)
			prec, _ := truth(ps)
			crit := replay.DefaultKillCriteria()
			crit.PrecisionMin = math.Round(100*(prec-0.09)) / 100
			full := simTable(ps)
			blank := blankTable(full)
			pairs, _ := blank.QueuePairs()
			tr, key := map[string]bool{}, map[string]string{}
			share := map[string][2]float64{}
			for _, p := range full.order {
				k := p.Results[0] + "|" + p.Results[1]
				tr[p.CaseID], key[p.CaseID] = p.Label == datasets.LabelMatch, k
				s := share[k]
				s[0] += b2f(tr[p.CaseID])
				s[1]++
				share[k] = s
			}
			rng := rand.New(rand.NewPCG(5, pop))
			for r := range uint64(reps) {
				q, err := BuildQueue(pairs, QueueConfig{Budget: 120, Seed: 8000 + r, Letters: []string{"C", "R"}})
				if err != nil {
					t.Fatal(err)
				}
				drawn := map[string]bool{}
				for _, p := range full.order {
					s := share[key[p.CaseID]]
					drawn[p.CaseID] = rng.Float64() < s[0]/s[1]
				}
				for v, lab := range []map[string]bool{tr, drawn} {
					var ls []SampleLabel
					for _, it := range q.Items {
						ls = append(ls, SampleLabel{CaseID: it.CaseID, RuleID: it.RuleID, Stratum: it.Stratum, StratumSize: it.StratumSize, Match: lab[it.CaseID]})
					}
					f := SampleFiguresOf(blank, "r", 0, ls, crit)
					sign := float64(2*v - 1) // drawn less queues
					dp += sign * b2f(f.PrecisionMin.Status != StatusInconclusive)
					dg += sign * b2f(f.DangerousRecall.Status != StatusInconclusive)
					w := *f.PrecisionMin.Hi - *f.PrecisionMin.Lo
					sd := math.Sqrt(f.Precision.Var - f.Precision.SampledVar)
					if v == 0 {
						wq, sq = wq+w, sq+sd
					} else {
						wi, si = wi+w, si+sd
					}
				}
			}
		}
		n := float64(pops * reps)
		t.Logf("| %s | %+.3f | %+.3f | %.3f vs %.3f | %.3f vs %.3f |", labelModels[model].name, dp/n, dg/n, wi/n, wq/n, si/n, sq/n)
		// Each rate difference carries the Monte Carlo error of n queues
		// a side (paired on the queue, not on the draw).
		if slack := 0.1 + smokeSlack(0.5, int(n)); math.Abs(dp/n) > slack || math.Abs(dg/n) > slack {
			t.Errorf("%s: drawn without sessions, decided %+.3f (precision) and %+.3f (recall gain) against the population's own", labelModels[model].name, dp/n, dg/n)
		}
	}
}

// blankTable is t's pairs without their labels: the table a team labels
// from (a labeled pair of the table would be a census unit, and a queue's
// label of it not read).
func blankTable(t *PairTable) *PairTable {
	b := simTable(nil)
	b.Judges, b.jidx, b.by = t.Judges, t.jidx, map[[2]string]*PairRow{}
	for _, p := range t.order {
		c := *p
		c.Label = ""
		b.by[[2]string{c.CaseID, c.RuleID}] = &c
		b.order = append(b.order, &c)
	}
	return b
}

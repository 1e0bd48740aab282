package metrics

import (
	"fmt"
	"math"
	"testing"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/replay"
)

// pilotCheck is one population's pilot planned and checked: the plan's
// decided share at the budget and at the size it plans, against queues
// on the population labeled from its truth.
type pilotCheck struct {
	crit              string
	plan120, sim120   float64
	size              int64
	planSize, simSize float64
	hasSize           bool
	pilotLabels       int
}

// pilotOf is simPopulationSeed(pop)'s table with only the first n items
// of a queue (seed qs) labeled, and the population's table with every
// pair labeled (the truth the independent queues read).
func pilotOf(ps []simPair, qs uint64, n int) (pilot, full *PairTable) {
	full = simTable(ps)
	pilot = simTable(ps)
	pairs := make([]QueuePair, len(ps))
	for i := range ps {
		pairs[i] = QueuePair{CaseID: ps[i].id, RuleID: "r", Results: []string{res(ps[i].c), res(ps[i].r)}}
	}
	q, err := BuildQueue(pairs, QueueConfig{Budget: 3000, Seed: qs, Letters: []string{"C", "R"}})
	if err != nil {
		panic(err)
	}
	labeled := map[string]bool{}
	for _, it := range q.Items[:n] {
		labeled[it.CaseID] = true
	}
	for _, p := range pilot.Rows() {
		if !labeled[p.CaseID] {
			p.Label = ""
		}
	}
	return pilot, full
}

// independentRate is the share of indep queues of n labels over full's
// pairs (seeds from seed) that decide the candidate's criterion.
func independentRate(full *PairTable, crit replay.KillCriteria, criterion string, n, indep int, seed uint64) float64 {
	// The table a team labels from has no label of its own: a labeled
	// pair of the table is a census unit, and the queue's labels of it
	// are not read (SampleUnits).
	blank := simTable(nil)
	blank.Judges, blank.jidx, blank.by = full.Judges, full.jidx, map[[2]string]*PairRow{}
	for _, p := range full.order {
		c := *p
		c.Label = ""
		blank.by[[2]string{c.CaseID, c.RuleID}] = &c
		blank.order = append(blank.order, &c)
	}
	pairs, _ := blank.QueuePairs()
	var d int
	for r := range uint64(indep) {
		q, err := BuildQueue(pairs, QueueConfig{Budget: n, Seed: seed + r, Letters: []string{"C", "R"}})
		if err != nil {
			panic(err)
		}
		var ls []SampleLabel
		for _, it := range q.Items[:min(n, len(q.Items))] {
			p := full.by[[2]string{it.CaseID, it.RuleID}]
			ls = append(ls, SampleLabel{CaseID: it.CaseID, RuleID: it.RuleID, Stratum: it.Stratum, StratumSize: it.StratumSize, Match: p.Label == datasets.LabelMatch})
		}
		f := SampleFiguresOf(blank, "r", 0, ls, crit)
		c := f.PrecisionMin
		if criterion == CriterionDangerousRecall {
			c = f.DangerousRecall
		}
		if c.Status != StatusInconclusive {
			d++
		}
	}
	return float64(d) / float64(indep)
}

func checkPilot(ps []simPair, qs uint64, n int, crit replay.KillCriteria, reps, indep int) []pilotCheck {
	pilot, full := pilotOf(ps, qs, n)
	plans, err := PlanLabels(pilot, crit, LabelPlanOptions{Budget: 120, Baseline: "R", Reps: reps, Seed: 3})
	if err != nil {
		panic(err)
	}
	var out []pilotCheck
	for _, p := range plans {
		if p.BudgetPass == nil {
			continue
		}
		c := pilotCheck{crit: p.Criterion, plan120: *p.BudgetPass + *p.BudgetFail, pilotLabels: n}
		c.sim120 = independentRate(full, crit, p.Criterion, 120, indep, 8000)
		if p.Labels != nil {
			c.hasSize, c.size, c.planSize = true, *p.Labels, *p.DecideRate
			c.simSize = independentRate(full, crit, p.Criterion, int(*p.Labels), indep, 9000)
		}
		out = append(out, c)
	}
	return out
}

// TestCalibrationPlanLabelsOverPopulations: `plan --labels` from a
// partly labeled pilot (the first 300 labels of a queue), planned at a
// budget of 120 labels against precision_min (the population's own
// precision less 0.09) and the dangerous recall gain over the baseline R,
// against queues on the population decided by `report --labels`'s code
// (SampleFiguresOf on the table without labels). Measured (full mode: 10
// populations x 2 pilots a model, 40 plan queues a size, 80 independent;
// mean error = plan less queues):
//
//	model        criterion    at 120 labels        at the planned size
//	clustered    precision    +0.171 (10/20 ±0.1)  +0.321 (0/12 ±0.1)
//	clustered    recall gain  -0.209 (3/20)        +0.037 (6/18)
//	ICC 0        precision    +0.144 (8/20)        +0.093 (7/17)
//	ICC 0        recall gain  -0.263 (5/20)        -0.055 (5/19)
//
// Precision is planned too high, most where sessions cluster (the plan
// draws a pilot's unlabeled pairs independently of their sessions). The
// recall gain is planned too low where labels decide late, and far too
// high where the plan decides at a few dozen labels (27-52 labels:
// +0.41 to +0.62): a disagreement stratum's few pilot labels all agree
// and the plan draws it nearly unanimous. Asserted, as far as it holds:
// without clustering, precision's mean error at the planned size within
// ±0.1; in both models, the recall gain's plan at the planned size not
// above the queues' rate by more than 0.1 on average. Clustered
// precision is logged, not asserted (open). The smoke runs one population
// and pilot without clustering.
func TestCalibrationPlanLabelsOverPopulations(t *testing.T) {
	t.Parallel()
	pops, pilots, reps := 1, 1, 20
	models := []int{5}
	if _, full := calibrationN(); full {
		pops, pilots, reps, models = 10, 2, 40, []int{5, 0}
	}
	for _, model := range models {
		sum := map[string]*planErr{}
		for pop := range uint64(pops) {
			ps := labelModels[model].draw(100 + pop)
			prec, _ := truth(ps)
			crit := replay.DefaultKillCriteria()
			crit.PrecisionMin = math.Round(100*(prec-0.09)) / 100
			for qs := range uint64(pilots) {
				for _, c := range checkPilot(ps, 11+qs, 300, crit, reps, 2*reps) {
					t.Logf("%s, population %d (against %.2f), pilot %d, %s: plan %.2f at 120 labels, queues %.2f; plan %.2f at %d, queues %.2f",
						labelModels[model].name, pop, crit.PrecisionMin, qs, c.crit, c.plan120, c.sim120, c.planSize, c.size, c.simSize)
					if sum[c.crit] == nil {
						sum[c.crit] = &planErr{}
					}
					sum[c.crit].add(c)
				}
			}
		}
		for _, k := range []string{CriterionPrecisionMin, CriterionDangerousRecall} {
			e := sum[k]
			if e == nil || e.nSize == 0 {
				t.Errorf("%s: %s has no plan with a size", labelModels[model].name, k)
				continue
			}
			t.Logf("%s, %s: %s", labelModels[model].name, k, e)
			mean := e.sSize / float64(e.nSize)
			// The mean over nSize plans of reps queues each (and as many
			// independent ones) carries Monte Carlo error.
			slack := smokeSlack(0.8, reps*e.nSize)
			switch {
			case k == CriterionDangerousRecall && mean > 0.1+slack:
				t.Errorf("%s: the recall gain's plan promises %+.2f more than queues decide at the planned sizes", labelModels[model].name, mean)
			case k == CriterionPrecisionMin && model == 5 && math.Abs(mean) > 0.1+slack:
				t.Errorf("%s: precision's plan is off by %+.2f at the planned sizes", labelModels[model].name, mean)
			}
		}
	}
}

// planErr sums a plan's errors (plan less queues) over pilots.
type planErr struct {
	n, in120, nSize, inSize  int
	a120, s120, aSize, sSize float64
}

func (e *planErr) add(c pilotCheck) {
	d := c.plan120 - c.sim120
	e.n++
	e.a120 += math.Abs(d)
	e.s120 += d
	if math.Abs(d) <= 0.1 {
		e.in120++
	}
	if c.hasSize {
		d := c.planSize - c.simSize
		e.nSize++
		e.aSize += math.Abs(d)
		e.sSize += d
		if math.Abs(d) <= 0.1 {
			e.inSize++
		}
	}
}

func (e *planErr) String() string {
	return fmt.Sprintf("%d pilots; at 120 labels mean error %+.3f (|error| %.3f), %d within ±0.1; at the planned size (%d) %+.3f (|error| %.3f), %d within ±0.1",
		e.n, e.s120/float64(e.n), e.a120/float64(e.n), e.in120, e.nSize, e.sSize/float64(max(e.nSize, 1)), e.aSize/float64(max(e.nSize, 1)), e.inSize)
}

package metrics

import (
	"fmt"
	"math"
	"runtime"
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
	// thin: the plan says it rests on fewer than ThinLabels pilot labels
	// of a stratum where the judges disagree
	thin bool
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
	// The table a team labels from has no label of its own (blankTable).
	blank := blankTable(full)
	pairs, _ := blank.QueuePairs()
	// The queues are independent: decided on every core.
	d, _ := countStatuses(indep, runtime.GOMAXPROCS(0), func(r int) Status {
		q, err := BuildQueue(pairs, QueueConfig{Budget: n, Seed: seed + uint64(r), Letters: []string{"C", "R"}})
		if err != nil {
			panic(err)
		}
		var ls []SampleLabel
		for _, it := range q.Items[:min(n, len(q.Items))] {
			p := full.by[[2]string{it.CaseID, it.RuleID}]
			// Naming the queue's judges, as label queue writes them: the
			// printed precision interval is the stratified draws'.
			ls = append(ls, SampleLabel{CaseID: it.CaseID, RuleID: it.RuleID, Stratum: it.Stratum, StratumSize: it.StratumSize, Match: p.Label == datasets.LabelMatch, Judges: []string{"C=C", "R=R"}})
		}
		f := SampleFiguresOf(blank, "r", 0, ls, crit)
		c := f.PrecisionMin
		if criterion == CriterionDangerousRecall {
			c = f.DangerousRecall
		}
		if c.Status != StatusInconclusive {
			return StatusPass
		}
		return StatusInconclusive
	})
	return float64(d) / float64(indep)
}

// checkPlans plans pilot (n labels) and checks each plan against queues
// on full; it returns the checks and the plans.
func checkPlans(pilot, full *PairTable, n int, crit replay.KillCriteria, reps, indep, thinAt int) ([]pilotCheck, []PlanResult) {
	plans, err := PlanLabels(pilot, crit, LabelPlanOptions{Budget: 120, Baseline: "R", Reps: reps, Seed: 3, thinAt: thinAt})
	if err != nil {
		panic(err)
	}
	var out []pilotCheck
	for _, p := range plans {
		if p.BudgetPass == nil {
			continue
		}
		c := pilotCheck{crit: p.Criterion, plan120: *p.BudgetPass + *p.BudgetFail, pilotLabels: n, thin: p.Thin != nil}
		c.sim120 = independentRate(full, crit, p.Criterion, 120, indep, 8000)
		if p.Labels != nil {
			c.hasSize, c.size, c.planSize = true, *p.Labels, *p.DecideRate
			c.simSize = independentRate(full, crit, p.Criterion, int(*p.Labels), indep, 9000)
		}
		out = append(out, c)
	}
	return out, plans
}

// checkTwoStage plans a pilot holding the first n labels of a queue
// (seed qs) and checks its plans; then the two-stage plan's first stage
// (its LabelFirst: `label queue --rule r --reach 40`, one queue a team
// labels; reachStage) is drawn over the pilot's unlabeled pairs (seed
// 31 + qs) and labeled from the truth, and the extended pilot is planned
// again and checked. It returns both checks and the labels added (0 and
// no second checks when no plan asked for a first stage).
func checkTwoStage(ps []simPair, qs uint64, n int, crit replay.KillCriteria, reps, indep int) (first, second []pilotCheck, added int) {
	pilot, full := pilotOf(ps, qs, n)
	first, plans := checkPlans(pilot, full, n, crit, reps, indep, 0)
	items := reachStage(pilot, plans, 31+qs)
	if len(items) == 0 {
		return first, nil, 0
	}
	for _, it := range items {
		pilot.by[[2]string{it.CaseID, it.RuleID}].Label = full.by[[2]string{it.CaseID, it.RuleID}].Label
	}
	second, _ = checkPlans(pilot, full, n+len(items), crit, reps, indep, 0)
	return first, second, len(items)
}

// reachStage is the first stage plans ask for on pilot, drawn as `label
// queue --rule R --reach N` draws it (seed), or nil when none asks; it
// panics when plans of one rule name different stages or a stage's
// length is not the queue's.
func reachStage(pilot *PairTable, plans []PlanResult, seed uint64) []QueueItem {
	var f *LabelFirst
	for _, p := range plans {
		if p.First != nil {
			if f != nil && *f != *p.First {
				panic(fmt.Sprintf("first stages %+v and %+v", *f, *p.First))
			}
			f = p.First
		}
	}
	if f == nil {
		return nil
	}
	pairs, _ := pilot.QueuePairs()
	q, err := BuildQueue(pairs, QueueConfig{Reach: int(f.Reach), Labeled: pilot.LabeledStrata([]string{"C", "R"}), Seed: seed, Letters: []string{"C", "R"}})
	if err != nil {
		panic(err)
	}
	if int64(len(q.Items)) != f.Labels {
		panic(fmt.Sprintf("the plan names %d labels, the queue holds %d", f.Labels, len(q.Items)))
	}
	return q.Items
}

// TestCalibrationPlanLabelsOverPopulations: `plan --labels` from a
// partly labeled pilot (the first 300 or 1,000 labels of a queue),
// planned at a budget of 120 labels against precision_min (the model's
// precision less 0.09: 0.62) and the dangerous recall gain over the
// baseline R, against queues on the population decided by `report
// --labels`'s code (SampleFiguresOf on the table without labels).
// Measured (full mode: 30 populations a model with 2 pilots of 300
// labels each, 10 with 1 of 1,000; 40 plan queues a size, 80
// independent; mean error = plan less queues ± its standard error over
// the pilots, within ±0.1 in brackets; docs/planning.md):
//
//	model      pilot  criterion    at 120 labels          at the planned size    plans < 100 labels
//	ICC 0      300    precision    +0.060±0.018 (32/60)   +0.094±0.033 (17/28)   19: +0.053
//	ICC 0      300    recall gain  -0.200±0.028 (22/60)   -0.047±0.026 (15/50)   13: +0.190
//	clustered  300    precision    +0.083±0.023 (33/60)   +0.210±0.060 (11/22)   11: +0.059
//	clustered  300    recall gain  -0.165±0.034 (18/60)   +0.025±0.035 (17/45)   12: +0.270
//	ICC 0      1000   precision    +0.016±0.012 (10/10)   -0.012±0.036 (3/3)     1: +0.050
//	ICC 0      1000   recall gain  -0.140±0.046 (5/10)    -0.066±0.022 (7/10)    0
//	clustered  1000   precision    +0.041±0.023 (8/10)    +0.019±0.006 (2/2)     2: +0.019
//	clustered  1000   recall gain  -0.050±0.058 (4/10)    +0.009±0.059 (2/10)    4: +0.106
//
// (With 10 populations for the 300-label pilots, the rows read +0.082,
// -0.231, +0.120, -0.216 at 120 labels. 404 s at load 8–11; 33 minutes
// before the label plan's search bisected the grid on shared random
// numbers.)
//
// A 300-label pilot holds 5–9 labels of each stratum where the judges
// disagree, a 1,000-label one 15–29, and their plans are off by what
// those few labels leave open (not by the sessions:
// TestCalibrationPlanLabelsSessionEffect). Every such plan says it is a
// guess (PlanResult.Thin) and is a two-stage plan (PlanResult.First):
// the first stage (`label queue --rule r --reach 40`) is labeled here
// (checkTwoStage) and the pilot planned again. The second plan (labels
// added on average; same columns):
//
//	model      pilot      criterion    at 120 labels          at the planned size    plans < 100 labels
//	ICC 0      300 + 66   precision    +0.016±0.015 (46/60)   +0.068±0.018 (17/27)   18: +0.020
//	ICC 0      300 + 66   recall gain  -0.041±0.017 (41/60)   +0.000±0.012 (45/60)   19: +0.042
//	clustered  300 + 66   precision    +0.015±0.010 (51/60)   +0.053±0.020 (16/23)   10: +0.025
//	clustered  300 + 66   recall gain  -0.028±0.015 (41/60)   -0.016±0.014 (38/58)   8: +0.058
//	ICC 0      1000 + 34  precision    -0.006±0.019 (9/10)    +0.046±0.004 (3/3)     1: +0.050
//	ICC 0      1000 + 34  recall gain  -0.095±0.049 (6/10)    -0.051±0.029 (6/10)    1: +0.075
//	clustered  1000 + 33  precision    +0.016±0.018 (9/10)    +0.008±0.037 (3/3)     1: +0.025
//	clustered  1000 + 33  recall gain  -0.040±0.035 (6/10)    -0.035±0.027 (6/10)    2: +0.006
//
// (541 s for both stages of all four settings at load 6–9; since a rule
// whose every label weighs 1 is decided as without labels, a plan sized
// at every pair labeled has none.) With 10
// populations (303 s and 160 s at load ~13) two 300-label rows rested
// on few plans: ICC 0 precision at the planned size +0.071 (6 plans),
// clustered small recall-gain plans +0.106 (2). On 60 populations a
// model (120 pilots) they read +0.05±0.02 (64 plans) and +0.06±0.03
// (14): the second was noise; the first, as clustered precision at the
// planned size (+0.07±0.02, 60), is a real overstatement by plans near
// the threshold, traced to the errors the pilot leaves unseen where both
// judges match (docs/planning.md, "The rows of few plans"). With a
// budget first stage (635–637 and 324–325 labels added, most where the
// judges agree; the first 10 populations) the rows were
// +0.001/-0.013, -0.055/+0.004, +0.026/+0.071, -0.062/-0.035 and
// -0.004/+0.012, -0.120/-0.048, +0.024/+0.046, -0.040/-0.051.
//
// Since session 18 the queues' labels name their judges, as label queue
// writes them, so the queues decide precision on the stratified draws
// report --labels prints (the plan still simulates the two-phase
// interval): the precision rows above moved down by up to 0.10 (first
// plans at 120 labels -0.00 and +0.00 from 300-label pilots; second plans
// -0.07 to -0.01 at 120 labels, -0.05 to +0.05 at the planned size),
// every second plan within ±0.1 (docs/planning.md, "Against the printed
// draws"); the recall-gain rows did not move.
//
// Asserted: every plan from these pilots says it is
// a guess; no second plan does, and its mean error is within ±0.1 plus
// the Monte Carlo error at 120 labels, at the planned size and under 100
// labels. The smoke runs one population and a 300-label pilot without
// clustering, both stages.
func TestCalibrationPlanLabelsOverPopulations(t *testing.T) {
	t.Parallel()
	type setting struct {
		model, pilots, pilotLabels, pops int
	}
	reps := 20
	settings := []setting{{5, 1, 300, 1}}
	if _, full := calibrationN(); full {
		// 30 populations for the 300-label pilots: their two-stage rows
		// of few plans (plans under 100 labels, the planned sizes) read
		// +0.106 on 2 plans and +0.071 on 6 with 10.
		reps = 40
		settings = []setting{{5, 2, 300, 30}, {0, 2, 300, 30}, {5, 1, 1000, 10}, {0, 1, 1000, 10}}
	}
	for _, st := range settings {
		pops := st.pops
		m := labelModels[st.model]
		name := fmt.Sprintf("%s, %d-label pilot", m.name, st.pilotLabels)
		// The threshold is the model's: each population's own precision
		// varies around it as real traffic does. A threshold at each
		// population's own precision less 0.09 told the check the truth
		// the plan cannot see, and an honest plan averages its decision
		// rate over what its pilot leaves open: at 120 labels, where the
		// rate rises steeply, that read +0.19 against +0.12 here.
		crit := replay.DefaultKillCriteria()
		crit.PrecisionMin = math.Round(100*(m.truth()[0]-0.09)) / 100
		sum, sum2 := map[string]*planErr{}, map[string]*planErr{}
		added, extended := 0, 0
		for pop := range uint64(pops) {
			ps := m.draw(100 + pop)
			for qs := range uint64(st.pilots) {
				first, second, a := checkTwoStage(ps, 11+qs, st.pilotLabels, crit, reps, 2*reps)
				if a > 0 {
					added += a
					extended++
				}
				for stage, cs := range [][]pilotCheck{first, second} {
					for _, c := range cs {
						t.Logf("%s, population %d (against %.2f), pilot %d, stage %d (%d labels), %s: plan %.2f at 120 labels, queues %.2f; plan %.2f at %d, queues %.2f; thin %v",
							name, pop, crit.PrecisionMin, qs, stage+1, c.pilotLabels, c.crit, c.plan120, c.sim120, c.planSize, c.size, c.simSize, c.thin)
						to := []map[string]*planErr{sum, sum2}[stage]
						if to[c.crit] == nil {
							to[c.crit] = &planErr{}
						}
						to[c.crit].add(c)
					}
				}
			}
		}
		for _, k := range []string{CriterionPrecisionMin, CriterionDangerousRecall} {
			e, e2 := sum[k], sum2[k]
			if e == nil || e.nSize == 0 {
				t.Errorf("%s: %s has no plan with a size", name, k)
				continue
			}
			t.Logf("%s, %s: %s", name, k, e)
			t.Logf("| %s | %d | %s | %s |", m.name, st.pilotLabels, k, e.row())
			// Every plan from these pilots rests on fewer than ThinLabels
			// labels of a stratum where the judges disagree, says so, and
			// asks for a first stage.
			if e.thin != e.n {
				t.Errorf("%s, %s: %d of %d plans from a thin pilot say so", name, k, e.thin, e.n)
			}
			if e2 == nil || e2.nSize == 0 || extended == 0 {
				t.Errorf("%s: %s has no two-stage plan with a size", name, k)
				continue
			}
			t.Logf("%s, %s, two-stage (%d labels added on average): %s", name, k, added/extended, e2)
			t.Logf("| %s | %d + %d | %s | %s |", m.name, st.pilotLabels, added/extended, k, e2.row())
			// The second plan rests on at least ThinLabels labels a
			// stratum and is within ±0.1 on average (less the Monte Carlo
			// error of its plans of reps queues and 2·reps independent
			// ones) at 120 labels, at the planned size and under 100 labels.
			slack := func(n int) float64 { return 0.1 + smokeSlack(0.8, reps*max(n, 1)) }
			m120, mSize := e2.s120/float64(e2.n), e2.sSize/float64(e2.nSize)
			switch {
			case e2.thin > 0:
				t.Errorf("%s, %s: %d plans after the first stage called thin", name, k, e2.thin)
			case math.Abs(m120) > slack(e2.n):
				t.Errorf("%s, %s: after the first stage, at 120 labels the plan is off by %+.3f on average", name, k, m120)
			case math.Abs(mSize) > slack(e2.nSize):
				t.Errorf("%s, %s: after the first stage, at the planned sizes the plan is off by %+.3f on average", name, k, mSize)
			case e2.nSmall > 0 && e2.sSmall/float64(e2.nSmall) > slack(e2.nSmall):
				t.Errorf("%s, %s: after the first stage, plans under 100 labels promise %+.3f more than queues decide", name, k, e2.sSmall/float64(e2.nSmall))
			}
		}
	}
}

// planErr sums a plan's errors (plan less queues) over pilots.
type planErr struct {
	n, in120, nSize, inSize  int
	a120, s120, aSize, sSize float64
	// summed squared errors, for the Monte Carlo error of the means
	q120, qSize, qSmall float64
	// plans of under 100 labels: how many, their summed error and how
	// many promised 0.2 or more above the queues
	nSmall, overSmall int
	sSmall            float64
	thin              int // plans that say they rest on a thin pilot
}

func (e *planErr) add(c pilotCheck) {
	d := c.plan120 - c.sim120
	e.n++
	if c.thin {
		e.thin++
	}
	e.a120 += math.Abs(d)
	e.s120 += d
	e.q120 += d * d
	if math.Abs(d) <= 0.1 {
		e.in120++
	}
	if c.hasSize {
		d := c.planSize - c.simSize
		e.nSize++
		e.aSize += math.Abs(d)
		e.sSize += d
		e.qSize += d * d
		if math.Abs(d) <= 0.1 {
			e.inSize++
		}
		if c.size < 100 {
			e.nSmall++
			e.sSmall += d
			e.qSmall += d * d
			if d >= 0.2 {
				e.overSmall++
			}
		}
	}
}

// meanSE is the standard error of a mean error over n plans from its
// sum s and sum of squares q: the spread between pilots and the Monte
// Carlo error of each plan and its queues alike (0 for fewer than 2).
func meanSE(n int, s, q float64) float64 {
	if n < 2 {
		return 0
	}
	m := s / float64(n)
	return math.Sqrt(max(0, q/float64(n)-m*m) / float64(n-1))
}

// row is e's cells of the calibration table: the mean errors with their
// standard errors, the pilots within ±0.1 and the plans under 100 labels.
func (e *planErr) row() string {
	return fmt.Sprintf("%+.3f ± %.3f (%d of %d) | %+.3f ± %.3f (%d of %d) | %d: %+.3f ± %.3f, %d ≥ 0.2 high",
		e.s120/float64(e.n), meanSE(e.n, e.s120, e.q120), e.in120, e.n,
		e.sSize/float64(max(e.nSize, 1)), meanSE(e.nSize, e.sSize, e.qSize), e.inSize, e.nSize,
		e.nSmall, e.sSmall/float64(max(e.nSmall, 1)), meanSE(e.nSmall, e.sSmall, e.qSmall), e.overSmall)
}

func (e *planErr) String() string {
	return fmt.Sprintf("%d pilots; at 120 labels mean error %+.3f (|error| %.3f), %d within ±0.1; at the planned size (%d) %+.3f (|error| %.3f), %d within ±0.1; %d plans under 100 labels, mean error %+.3f, %d of them 0.2 or more too high",
		e.n, e.s120/float64(e.n), e.a120/float64(e.n), e.in120, e.nSize, e.sSize/float64(max(e.nSize, 1)), e.aSize/float64(max(e.nSize, 1)), e.inSize, e.nSmall, e.sSmall/float64(max(e.nSmall, 1)), e.overSmall)
}

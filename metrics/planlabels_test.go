package metrics

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/apeval/apeval/replay"
)

// simTable is a pilot of simPopulationSeed's pairs: judges C (candidate)
// and R (reference) on one dangerous rule whose deterministic baseline
// answers as R does, every pair labeled with its truth.
func simTable(ps []simPair) *PairTable {
	t := NewPairTable(nil, nil)
	for _, judge := range []string{"C", "R"} {
		for _, p := range ps {
			got := p.c
			if judge == "R" {
				got = p.r
			}
			label := "no_match"
			if p.pos {
				label = "match"
			}
			t.Add(&replay.Result{CaseID: p.id, SessionID: p.session, Judge: judge,
				Rules: []replay.RuleResult{withBaseline(rr("r", "dangerous", "judge", res(got), label, "ok", got, 0), res(p.r))}})
		}
	}
	return t
}

// TestPlanLabelsPredictsTheDecisionRate: the label plan's count for
// precision (0.672 on this population, against 0.55) and its shares at a
// budget of 120 labels agree within ±0.1 with an independent simulation:
// queues drawn with other seeds (queueUnitsOther), labeled from the
// truth, decided by SamplePrecision. Against 0.60 no number of labels
// decides (the recorded sessions' own spread stays: 177 matches in 600
// sessions give [0.593, 0.743] with every pair labeled), and the plan
// says how many more sessions would.
func TestPlanLabelsPredictsTheDecisionRate(t *testing.T) {
	t.Parallel()
	ps := simPopulationSeed(5)
	crit := replay.DefaultKillCriteria()
	crit.PrecisionMin = 0.55
	// The precision plan is checked against independent data sets here;
	// the dangerous-recall plan, whose search runs the 60 queues of every
	// size up to about 500 labels (most of this test's time, with no
	// check against independent data), is planned in the check against
	// 0.60 below.
	crit.DangerousRecallMustBeatBaseline = false
	plans, err := PlanLabels(simTable(ps), crit, LabelPlanOptions{Budget: 120, Baseline: "R", Reps: 60, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	var prec *PlanResult
	for i, p := range plans {
		if p.Judge == "R" {
			t.Errorf("the baseline judge is planned: %+v", p)
		}
		if p.Criterion == CriterionPrecisionMin {
			prec = &plans[i]
		}
	}
	if prec == nil || prec.Labels == nil || prec.BudgetPass == nil || prec.Path != "labels" || len(plans) != 1 {
		t.Fatalf("plans %+v", plans)
	}
	crit.DangerousRecallMustBeatBaseline = true
	decided := func(n int, seed uint64) float64 {
		var d int
		const reps = 100
		for r := range uint64(reps) {
			us := queueUnitsOther(ps, n, n, seed*1000+r)
			if SamplePrecision(WeightedPrecision(us, crit.Confidence), crit).Status != StatusInconclusive {
				d++
			}
		}
		return float64(d) / reps
	}
	atPlan, atBudget := decided(int(*prec.Labels), 7), decided(120, 8)
	t.Logf("%s; independent: %.2f at %d labels, %.2f at 120", prec.Reason, atPlan, *prec.Labels, atBudget)
	if math.Abs(atPlan-*prec.DecideRate) > 0.1 || math.Abs(atBudget-(*prec.BudgetPass+*prec.BudgetFail)) > 0.1 {
		t.Errorf("plan %.2f at %d and %.2f at 120; independent %.2f and %.2f", *prec.DecideRate, *prec.Labels, *prec.BudgetPass+*prec.BudgetFail, atPlan, atBudget)
	}
	crit.PrecisionMin = 0.6
	plans, err = PlanLabels(simTable(ps), crit, LabelPlanOptions{Baseline: "R", Reps: 8, Seed: 3})
	if err != nil || plans[0].Criterion != CriterionPrecisionMin || plans[0].Labels != nil || plans[0].MoreSessions == nil || !strings.Contains(plans[0].Reason, "more sessions of traffic") {
		t.Errorf("against 0.60, want no label count and more sessions: %+v %v", plans[0], err)
	} else {
		t.Logf("against 0.60: %s", plans[0].Reason)
	}
	// The dangerous rule's recall gain over the baseline R is planned in
	// labels too, for the candidate only.
	if len(plans) != 2 || plans[1].Criterion != CriterionDangerousRecall || plans[1].Labels == nil || plans[1].Path != "labels" || plans[0].Judge == "R" || plans[1].Judge == "R" {
		t.Errorf("want a label plan of precision and of the recall gain, for the candidate only: %+v", plans)
	} else {
		t.Logf("recall gain: %s", plans[1].Reason)
	}
	crit.PrecisionMin = 0.55
	// Without labels in the pilot, guesses draw them; without guesses
	// the plan says what is missing.
	bare := NewPairTable(nil, nil)
	for _, p := range ps[:600] {
		bare.Add(&replay.Result{CaseID: p.id, SessionID: p.session, Judge: "C",
			Rules: []replay.RuleResult{rr("r", "style", "judge", res(p.c), "", "ok", p.c, 0)}})
	}
	plans, err = PlanLabels(bare, crit, LabelPlanOptions{Budget: 40, Reps: 20, Seed: 4})
	if err != nil || len(plans) != 1 || plans[0].Labels != nil || !strings.Contains(plans[0].Reason, "no --rate precision=P --rate recall=R") {
		t.Errorf("no labels, no guesses: %+v %v", plans, err)
	}
	plans, err = PlanLabels(bare, crit, LabelPlanOptions{Budget: 40, Reps: 20, Seed: 1, Guess: &LabelGuess{Precision: 0.9, Recall: 0.8}})
	if err != nil || len(plans) != 1 || plans[0].BudgetPass == nil {
		t.Errorf("guesses: %+v %v", plans, err)
	}
	if _, err := PlanLabels(bare, crit, LabelPlanOptions{Guess: &LabelGuess{Precision: 1.5, Recall: 0.8}}); err == nil || !strings.Contains(err.Error(), "precision 1.5") {
		t.Errorf("bad guess: %v", err)
	}
}

// TestPlanLabelsGuessEachJudge: with guesses and no labels in a two-judge
// pilot, each judge's labels are drawn from its own guess. Both judges
// are guessed at precision 0.9 = the threshold; the second judge's
// matches that the first did not make (about 70 of its 199) used to take
// the first judge's rate for the rest (≈ 0.015), so the second judge's
// precision was planned near 0.6 and FAILed at every budget.
func TestPlanLabelsGuessEachJudge(t *testing.T) {
	t.Parallel()
	// The first 200 of the population's 600 sessions: the plan searches
	// every queue size up to all pairs (neither judge decides at its
	// guess), which is this test's time; the assertion is at the budget,
	// and on these 1,000 pairs the old shared draw still FAILs judge B at
	// 150 labels 10 times in 10.
	ps := simPopulationSeed(5)[:1000]
	tab := NewPairTable(nil, nil)
	for _, judge := range []string{"A", "B"} {
		for _, p := range ps {
			got := p.c
			if judge == "B" {
				got = p.r
			}
			tab.Add(&replay.Result{CaseID: p.id, SessionID: p.session, Judge: judge,
				Rules: []replay.RuleResult{rr("r", "style", "judge", res(got), "", "ok", got, 0)}})
		}
	}
	crit := replay.DefaultKillCriteria()
	crit.PrecisionMin = 0.9
	plans, err := PlanLabels(tab, crit, LabelPlanOptions{Budget: 150, Reps: 10, Seed: 1, Guess: &LabelGuess{Precision: 0.9, Recall: 0.8}})
	if err != nil || len(plans) != 2 {
		t.Fatalf("plans %+v, %v", plans, err)
	}
	for _, p := range plans {
		if p.BudgetFail == nil || *p.BudgetFail > 0.5 {
			t.Errorf("judge %s at its guessed precision 0.9 = the threshold: FAIL %v at 150 labels, want at most 0.5 (%s)", p.Judge, p.BudgetFail, p.Reason)
		}
		t.Logf("judge %s: PASS %.2f FAIL %.2f at 150 labels", p.Judge, *p.BudgetPass, *p.BudgetFail)
	}
}

// TestCalibrationPlanLabelsFromAQueue: a pilot whose labels are the
// first 300 of a `label queue` (as a team has them), planned against 0.58
// (near: precision 0.672, and labeling every pair reaches about 0.60) and
// 0.55; the plan's rates at 120 labels and at the size it plans agree
// within ±0.1 with queues on the population. The queue labels its strata
// at different rates (275 of the 300 in the 2,749 pairs both judges call
// no_match, 6 of the 60 only the candidate matches), so the share of
// match among the candidate's labeled matches is not that of its
// unlabeled ones: drawn at the judge's pooled rates, the plan gave 0.08
// at 120 labels against 0.58 where queues decide 0.30; drawn by stratum
// at a Jeffreys posterior, 0.71 against 0.55 where they decide 0.93 (the
// 12 labels of the 117 pairs both judges match all say match, and ½ a
// label of no_match put about 5 errors among them). `go test` runs 60
// simulated queues a size, `make calibrate` 200.
func TestCalibrationPlanLabelsFromAQueue(t *testing.T) {
	t.Parallel()
	reps := 60
	if _, full := calibrationN(); full {
		reps = 200
	}
	ps := simPopulationSeed(5)
	tab := simTable(ps)
	pairs := make([]QueuePair, len(ps))
	for i := range ps {
		pairs[i] = QueuePair{CaseID: ps[i].id, RuleID: "r", Results: []string{res(ps[i].c), res(ps[i].r)}}
	}
	q, err := BuildQueue(pairs, QueueConfig{Budget: 3000, Seed: 11, Letters: []string{"C", "R"}})
	if err != nil {
		t.Fatal(err)
	}
	labeled := map[string]bool{}
	for _, it := range q.Items[:300] {
		labeled[it.CaseID] = true
	}
	for _, p := range tab.Rows() {
		if !labeled[p.CaseID] {
			p.Label = ""
		}
	}
	for _, thr := range []float64{0.58, 0.55} {
		crit := replay.DefaultKillCriteria()
		crit.PrecisionMin = thr
		crit.DangerousRecallMustBeatBaseline = false
		plans, err := PlanLabels(tab, crit, LabelPlanOptions{Budget: 120, Baseline: "R", Reps: reps, Seed: 3})
		if err != nil || len(plans) != 1 || plans[0].BudgetPass == nil {
			t.Fatalf("plans %+v, %v", plans, err)
		}
		decided := func(n int, seed uint64) float64 {
			var d int
			const indep = 200
			for r := range uint64(indep) {
				us := queueUnitsOther(ps, n, n, seed+r)
				if SamplePrecision(WeightedPrecision(us, crit.Confidence), crit).Status != StatusInconclusive {
					d++
				}
			}
			return float64(d) / indep
		}
		plan, got := *plans[0].BudgetPass+*plans[0].BudgetFail, decided(120, 8000)
		t.Logf("against %.2f: %s; independent: %.2f at 120", thr, plans[0].Reason, got)
		if math.Abs(plan-got) > 0.1 {
			t.Errorf("against %.2f: plan %.2f at 120 labels, independent %.2f", thr, plan, got)
		}
		if l := plans[0].Labels; l != nil {
			got := decided(int(*l), 9000)
			t.Logf("independent: %.2f at the planned %d labels", got, *l)
			if math.Abs(*plans[0].DecideRate-got) > 0.1 {
				t.Errorf("against %.2f: plan %.2f at %d labels, independent %.2f", thr, *plans[0].DecideRate, *l, got)
			}
		}
	}
}

// TestPlanLabelsChecksItsSizeOnFreshQueues: the rate printed at the
// planned size is measured on fresh queues, not on the queues whose
// rate first reached 0.80 (those overstate it), so a budget at exactly
// that size, simulated on the same fresh queues, gives the same rate.
// The search's own rate differed from it (0.85 against 0.75 at 135 labels here).
func TestPlanLabelsChecksItsSizeOnFreshQueues(t *testing.T) {
	t.Parallel()
	ps := simPopulationSeed(5)
	crit := replay.DefaultKillCriteria()
	crit.PrecisionMin = 0.58
	crit.DangerousRecallMustBeatBaseline = false
	o := LabelPlanOptions{Baseline: "R", Reps: 20, Seed: 4}
	plans, err := PlanLabels(simTable(ps), crit, o)
	if err != nil || len(plans) != 1 || plans[0].Labels == nil {
		t.Fatalf("plans %+v %v", plans, err)
	}
	o.Budget = int(*plans[0].Labels)
	again, err := PlanLabels(simTable(ps), crit, o)
	if err != nil || again[0].BudgetPass == nil {
		t.Fatalf("plans %+v %v", again, err)
	}
	fresh := *again[0].BudgetPass + *again[0].BudgetFail
	t.Logf("plan %.2f at %d, fresh %.2f", *plans[0].DecideRate, *plans[0].Labels, fresh)
	if *plans[0].DecideRate != fresh || fresh < assurance {
		t.Errorf("at the planned %d labels the plan says %.2f, fresh queues decide %.2f", *plans[0].Labels, *plans[0].DecideRate, fresh)
	}
}

// TestPlanLabelsSaysWhatAThinPilotRestsOn: a pilot holding only the first
// 300 labels of a queue labels 5 of the 48 pairs only the candidate
// matches; its plans say so (thin_stratum and the reason). Fully labeled
// pilots and plans from guesses alone do not.
func TestPlanLabelsSaysWhatAThinPilotRestsOn(t *testing.T) {
	t.Parallel()
	ps := labelModels[0].draw(100)
	crit := replay.DefaultKillCriteria()
	crit.PrecisionMin = 0.62
	pilot, full := pilotOf(ps, 11, 300)
	plans, err := PlanLabels(pilot, crit, LabelPlanOptions{Baseline: "R", Reps: 10, Seed: 3})
	if err != nil || len(plans) != 2 {
		t.Fatalf("plans %+v %v", plans, err)
	}
	want := map[string]string{CriterionPrecisionMin: "C match, R no_match", CriterionDangerousRecall: "C no_match, R match"}
	for _, p := range plans {
		if p.Thin == nil || p.Thin.Results != want[p.Criterion] || p.Thin.Labels >= ThinLabels || !strings.Contains(p.Reason, "a guess: the pilot labels ") {
			t.Errorf("%s: thin %+v, reason %q", p.Criterion, p.Thin, p.Reason)
		} else {
			t.Logf("%s: %s", p.Criterion, p.Reason)
		}
	}
	plans, err = PlanLabels(full, crit, LabelPlanOptions{Baseline: "R", Reps: 10, Seed: 3})
	for _, p := range plans {
		if err != nil || p.Thin != nil || strings.Contains(p.Reason, "a guess") {
			t.Errorf("fully labeled: %+v %v", p, err)
		}
	}
}

// TestPlanLabelsTwoStage: a plan from a pilot with few labels where the
// judges disagree asks for a first stage — `apeval label queue RUN --rule
// r --reach 40`, which queues the pilot's unlabeled pairs of each stratum
// of the rule where the judges disagree up to ThinLabels labels with the
// pilot's — in its reason and in --json (label_first), the same for both
// criteria of the rule. Its number is the count by hand (40 less the
// pilot's labels, or every unlabeled pair, per such stratum; 68 here,
// where a budget queue reaching those strata took 833); labeled, it
// leaves no stratum where the judges disagree under 40 labels and adds
// none where they agree, and the plan from the extended pilot is no
// longer a guess. A fully labeled pilot asks for none.
func TestPlanLabelsTwoStage(t *testing.T) {
	t.Parallel()
	ps := labelModels[0].draw(100)
	crit := replay.DefaultKillCriteria()
	crit.PrecisionMin = 0.62
	pilot, full := pilotOf(ps, 11, 300)
	o := LabelPlanOptions{Baseline: "R", Reps: 10, Seed: 3, Pilot: "runs/pilot one"}
	plans, err := PlanLabels(pilot, crit, o)
	if err != nil || len(plans) != 2 {
		t.Fatalf("plans %+v %v", plans, err)
	}
	type count struct{ pairs, labeled int64 }
	by := map[string]*count{}
	for _, p := range pilot.Rows() {
		k := StratumName([]string{"C", "R"}, queueResults(p.Results))
		if by[k] == nil {
			by[k] = &count{}
		}
		by[k].pairs++
		if p.Label != "" {
			by[k].labeled++
		}
	}
	var want int64
	for k, c := range by {
		if k == "C:match R:no_match" || k == "C:no_match R:match" {
			want += max(0, min(ThinLabels-c.labeled, c.pairs-c.labeled))
		}
	}
	command := "apeval label queue 'runs/pilot one' --rule r --reach 40"
	for _, p := range plans {
		f := p.First
		if f == nil || *f != (LabelFirst{Rule: "r", Labels: want, Reach: ThinLabels, Command: command}) ||
			!strings.Contains(p.Reason, fmt.Sprintf("label %d more first — `%s` queues them", want, command)) {
			t.Errorf("%s: first stage %+v (want %d labels), reason %q", p.Criterion, f, want, p.Reason)
			continue
		}
		t.Logf("%s: %s", p.Criterion, p.Reason)
		js, _ := json.Marshal(p)
		if !strings.Contains(string(js), fmt.Sprintf(`"label_first":{"rule":"r","labels":%d,"reach":%d,"command":"apeval label queue 'runs/pilot one' --rule r --reach 40"}`, want, ThinLabels)) {
			t.Errorf("json %s", js)
		}
	}
	// The first stage labeled (reachStage checks its length against
	// the plan's): the strata where the judges disagree at 40 labels or
	// every pair, the others as the pilot left them.
	items := reachStage(pilot, plans, 31)
	for _, it := range items {
		pilot.by[[2]string{it.CaseID, it.RuleID}].Label = full.by[[2]string{it.CaseID, it.RuleID}].Label
	}
	after := map[string]int64{}
	for _, p := range pilot.Rows() {
		if p.Label != "" {
			after[StratumName([]string{"C", "R"}, queueResults(p.Results))]++
		}
	}
	for k, c := range by {
		switch disagree := k == "C:match R:no_match" || k == "C:no_match R:match"; {
		case disagree && after[k] != min(max(ThinLabels, c.labeled), c.pairs):
			t.Errorf("%s: %d labels after the first stage (%d before, %d pairs)", k, after[k], c.labeled, c.pairs)
		case !disagree && after[k] != c.labeled:
			t.Errorf("%s: the first stage labeled %d where the judges agree", k, after[k]-c.labeled)
		}
	}
	again, err := PlanLabels(pilot, crit, o)
	for _, p := range again {
		if err != nil || p.First != nil || p.Thin != nil {
			t.Errorf("after the first stage: %+v %v", p, err)
		}
	}
	plans, err = PlanLabels(full, crit, LabelPlanOptions{Baseline: "R", Reps: 10, Seed: 3})
	for _, p := range plans {
		if err != nil || p.First != nil {
			t.Errorf("fully labeled: %+v %v", p, err)
		}
	}
}

// TestPlanLabelsSaysWhenNoMatchIsLabeled: a pilot that labels pairs of a
// rule but none of the judge's match predictions plans its precision on
// a share of match of ½ for them (the rule's rate from half a label of
// each kind): the reason says it is a guess and how many match
// predictions it rests on (on the sample, malformed-call's 6 were
// planned to FAIL 18% so, with no note). One labeled match prediction
// and the note is gone.
func TestPlanLabelsSaysWhenNoMatchIsLabeled(t *testing.T) {
	t.Parallel()
	tab := simTable(simPopulationSeed(5)[:600])
	matches := 0
	var one *PairRow
	for _, p := range tab.Rows() {
		if p.Results[0] == QueueMatch {
			matches++
			if one == nil {
				one = p
			}
			p.Label = ""
		}
	}
	crit := replay.DefaultKillCriteria()
	crit.DangerousRecallMustBeatBaseline = false
	o := LabelPlanOptions{Baseline: "R", Reps: 10, Seed: 3}
	plans, err := PlanLabels(tab, crit, o)
	want := fmt.Sprintf("a guess: the pilot labels none of the judge's %d match predictions of the rule, so the plan takes their share of match as ½", matches)
	if err != nil || len(plans) != 1 || !strings.Contains(plans[0].Reason, want) {
		t.Fatalf("%d match predictions, none labeled: %+v %v", matches, plans, err)
	}
	t.Log(plans[0].Reason)
	one.Label = "match"
	plans, err = PlanLabels(tab, crit, o)
	if err != nil || len(plans) != 1 || strings.Contains(plans[0].Reason, "labels none of the judge's") {
		t.Errorf("one labeled match prediction: %+v %v", plans, err)
	}
}

package metrics

import (
	"encoding/json"
	"runtime"
	"testing"

	"github.com/apeval/apeval/replay"
)

// TestPlanLabelsSameOnAnyCores: a label plan's simulated data sets are
// seeded by the plan's seed and their own index alone and run on every
// core, so the plan (sizes, rates, hints, reasons) is the same on one
// core as on two or three. Not parallel: it sets GOMAXPROCS.
func TestPlanLabelsSameOnAnyCores(t *testing.T) {
	pilot, _ := pilotOf(simPopulationSeed(5), 11, 300)
	crit := replay.DefaultKillCriteria()
	crit.PrecisionMin = 0.62
	prev := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(prev)
	var first []byte
	for _, procs := range []int{1, 2, 3} {
		runtime.GOMAXPROCS(procs)
		plans, err := PlanLabels(pilot, crit, LabelPlanOptions{Budget: 120, Baseline: "R", Reps: 30, Seed: 2})
		if err != nil {
			t.Fatal(err)
		}
		got, err := json.Marshal(plans)
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = got
			t.Logf("%s", got)
			continue
		}
		if string(got) != string(first) {
			t.Errorf("GOMAXPROCS %d:\n%s\nGOMAXPROCS 1:\n%s", procs, got, first)
		}
	}
}

// TestPlanLabelsBisectsTheGrid: the search bisects the grid of sizes
// (every pair labeled first, then halving) instead of simulating every
// size from the smallest up; with the same random numbers at every size
// it finds the size a scan from the smallest finds (before the check on
// fresh queues). Over 24 plans of 12 pilots (the two models, 300- and
// 1,000-label pilots, 40 queues a size) the two agreed on 22 after the
// check; in the other two the rate rose and fell around 0.80 on the way
// (the scan took 384 labels, the bisection 465; the scan 996, the
// bisection none, every pair labeled falling short).
func TestPlanLabelsBisectsTheGrid(t *testing.T) {
	t.Parallel()
	pilot, _ := pilotOf(labelModels[5].draw(101), 12, 300)
	crit := replay.DefaultKillCriteria()
	crit.PrecisionMin = 0.5 // decided within a few sizes: the scan stays short
	o := LabelPlanOptions{Baseline: "R", Reps: 20, Seed: 3, noFresh: true}
	bis, err := PlanLabels(pilot, crit, o)
	if err != nil {
		t.Fatal(err)
	}
	o.linear = true
	lin, err := PlanLabels(pilot, crit, o)
	if err != nil {
		t.Fatal(err)
	}
	sized := 0
	for i := range bis {
		b, l := bis[i].Labels, lin[i].Labels
		t.Logf("%s: bisection %v, scan %v", bis[i].Criterion, show(b), show(l))
		if (b == nil) != (l == nil) || (b != nil && *b != *l) {
			t.Errorf("%s: bisection %v labels, scan from the smallest size %v", bis[i].Criterion, show(b), show(l))
		}
		if b != nil {
			sized++
		}
	}
	if sized == 0 {
		t.Errorf("no plan has a size: %+v", bis)
	}
}

func show(p *int64) any {
	if p == nil {
		return "none"
	}
	return *p
}

package metrics

import (
	"fmt"
	"testing"

	"github.com/apeval/apeval/replay"
)

// BenchmarkPlanProportion times one proportion's plan (the search and the
// check on fresh draws, 200 data sets per size) as a session's units
// grow, and for a pilot's rule whose units sit in few of the sessions of
// traffic (most sessions empty): the simulation's cost should follow the
// sessions that hold units, not the units nor the empty sessions.
// make bench runs it; docs/planning.md has the figures.
func BenchmarkPlanProportion(b *testing.B) {
	type setting struct {
		name string
		g    PlanGuess
		thr  float64
	}
	var settings []setting
	for _, size := range []float64{1, 10, 50} {
		settings = append(settings, setting{fmt.Sprintf("guess/size=%g", size), PlanGuess{Rate: 0.93, ICC: 0.2, SessionSize: size}, 0.9})
	}
	// A pilot's rule: units in 12 of 154 sessions (sizes 1-3), the rest
	// sessions of traffic without a unit, its rate near the threshold.
	pilot := PlanGuess{Rate: 0.94, ICC: 0, SessionSize: 2,
		sizes: []wv{{0, 142}, {1, 6}, {2, 4}, {3, 2}}, nSess: 154, perSession: 20.0 / 154}
	settings = append(settings, setting{"pilot/sparse", pilot, 0.9})
	for _, s := range settings {
		b.Run(s.name, func(b *testing.B) {
			var sessions int64
			for b.Loop() {
				r, err := PlanProportion(CriterionPrecisionMin, s.thr, s.g, PlanOptions{}, nil)
				if err != nil {
					b.Fatal(err)
				}
				if r.Sessions != nil {
					sessions = *r.Sessions
				}
			}
			b.ReportMetric(float64(sessions), "sessions")
		})
	}
}

// BenchmarkPlanDriftGuess times a drift plan from guesses, sessions of
// 5 and 50 paired cases: each simulated session's cells are drawn per
// session, not per case.
func BenchmarkPlanDriftGuess(b *testing.B) {
	for _, size := range []float64{5, 50} {
		b.Run(fmt.Sprintf("size=%g", size), func(b *testing.B) {
			var g PlanGuesses
			for _, kv := range [][2]any{{GuessDrift, 0.04}, {GuessDisagree, 0.1}} {
				if err := g.Set(kv[0].(string), kv[1].(float64)); err != nil {
					b.Fatal(err)
				}
			}
			g.ICC, g.SessionSize = 0.2, size
			crit := replay.DefaultKillCriteria()
			for b.Loop() {
				if _, err := Plan(crit, g, PlanOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPlanLabels times a label plan (plan --labels 120) from a pilot
// holding the first 300 labels of a queue over 3,000 pairs (judges C and
// R as strata, one dangerous rule: precision and the recall gain), 200
// simulated queues a size. docs/planning.md ("How long a plan takes")
// has the figures; `go test -bench PlanLabels -cpuprofile` shows where
// the time goes (SampleFiguresOf, the figures `report --labels` prints).
func BenchmarkPlanLabels(b *testing.B) {
	pilot, _ := pilotOf(simPopulationSeed(5), 11, 300)
	crit := replay.DefaultKillCriteria()
	crit.PrecisionMin = 0.62
	var labels int64
	for b.Loop() {
		plans, err := PlanLabels(pilot, crit, LabelPlanOptions{Budget: 120, Baseline: "R", Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		for _, p := range plans {
			if p.Labels != nil {
				labels = max(labels, *p.Labels)
			}
		}
	}
	b.ReportMetric(float64(labels), "labels")
}

package evaluation

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apeval/apeval/metrics"
)

// TestPilotPlans: a pilot run is planned per judge, rule and criterion
// under its recorded criteria or --criteria's (said on errOut); the label
// path plans labels of the run's judges; an unknown --baseline is an
// error naming it.
func TestPilotPlans(t *testing.T) {
	t.Parallel()
	dir := writeRun(t, results("J", 40), nil)
	rs, err := Open([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	crit := filepath.Join(t.TempDir(), "crit.toml")
	if err := os.WriteFile(crit, []byte("[kill_criteria]\nprecision_min = 0.7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var errOut bytes.Buffer
	p, err := rs.Pilot(PilotOptions{CriteriaFile: crit, Plan: metrics.PlanOptions{Reps: 10, Seed: 1, MaxSessions: 2000}}, &errOut)
	if err != nil {
		t.Fatal(err)
	}
	if p.Criteria.PrecisionMin != 0.7 || !strings.Contains(errOut.String(), "crit.toml") {
		t.Errorf("criteria %g, stderr %q", p.Criteria.PrecisionMin, errOut.String())
	}
	var prec *metrics.PlanResult
	for i, r := range p.Plans {
		if r.Judge == "J" && r.Rule == "R1" && r.Criterion == metrics.CriterionPrecisionMin {
			prec = &p.Plans[i]
		}
	}
	// Precision 20/20 over 20 sessions of the pilot.
	if prec == nil || prec.Threshold != 0.7 || prec.Pilot == nil || prec.Pilot.Estimate == nil || *prec.Pilot.Estimate != 1 || prec.Pilot.Sessions != 20 {
		t.Fatalf("precision plan %+v of %d plans", prec, len(p.Plans))
	}
	p, err = rs.Pilot(PilotOptions{Labels: &metrics.LabelPlanOptions{Budget: 30, Reps: 10, Seed: 1}}, &errOut)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range p.Plans {
		if r.Judge != "J" || r.Rule != "R1" || (r.Criterion != metrics.CriterionPrecisionMin && r.Criterion != metrics.CriterionDangerousRecall) {
			t.Errorf("label plan %s %s %s", r.Judge, r.Rule, r.Criterion)
		}
	}
	if len(p.Plans) == 0 {
		t.Error("no label plan")
	}
	if _, err := rs.Pilot(PilotOptions{Baseline: "nosuch"}, &errOut); err == nil || !strings.Contains(err.Error(), "nosuch") {
		t.Errorf("unknown baseline: %v", err)
	}
}

package metrics

import (
	"fmt"
	"strings"
	"testing"

	"github.com/apeval/apeval/replay"
)

// TestSampleHintCensusNoEmptyLabels: a run labeled in full in the dataset
// (census units only, no queue label) whose precision labels cannot
// decide asks for more sessions, as without --labels (every label weighs
// 1: the unweighted path's hint, in units of new sessions); it never
// promises "about 0 more labels" nor counts labels.
func TestSampleHintCensusNoEmptyLabels(t *testing.T) {
	t.Parallel()
	crit := replay.DefaultKillCriteria()
	crit.PrecisionMin = 0.9
	var us []SampleUnit
	for s := range 40 {
		for i := range 3 {
			us = append(us, SampleUnit{Stratum: CensusStratum, Session: fmt.Sprint("s", s), Match: true, Label: (s*3+i)%7 != 0})
		}
	}
	c := SamplePrecision(WeightedPrecision(us, crit.Confidence), crit)
	if c.Status != StatusInconclusive || c.MoreSessions == nil || *c.MoreSessions == 0 {
		t.Fatalf("the case needs an INCONCLUSIVE census run that asks for sessions: %s, %s", c.Status, c.Reason)
	}
	// No queue label to count: more_unit is not "labels" (the table
	// printed "+0" labels); the units are those of the sessions.
	if c.MoreUnit != "" || c.MoreSamples == nil || *c.MoreSamples <= *c.MoreSessions {
		t.Errorf("a census run's hint: more_samples %v, more_sessions %v, more_unit %q", c.MoreSamples, c.MoreSessions, c.MoreUnit)
	}
	if strings.Contains(c.Reason, "labels from") || strings.Contains(c.Reason, "labeled at the same rate") {
		t.Errorf("the reason promises labels: %s", c.Reason)
	}
	want := fmt.Sprintf("about %d more sessions like these, ≈ %d units, would confirm the failure", *c.MoreSessions, *c.MoreSamples)
	if !strings.Contains(c.Reason, want) || !strings.HasSuffix(c.Reason, censusNote) {
		t.Errorf("the reason does not say what would settle it (%q): %s", want, c.Reason)
	}
	t.Log(c.Reason)
}

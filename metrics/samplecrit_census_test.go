package metrics

import (
	"fmt"
	"strings"
	"testing"

	"github.com/apeval/apeval/replay"
)

// TestSampleHintCensusNoEmptyLabels: a run labeled in full in the dataset
// (census units only, no queue label) whose precision labels cannot
// decide asks for more sessions labeled the same way; it never promises
// "about 0 more labels".
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
	// No queue label to count: summary.json has more_sessions alone, not
	// more_samples 0 with more_unit "labels" (the table printed "+0").
	if c.MoreSamples != nil || c.SamplesNeeded != nil || c.MoreUnit != "" {
		t.Errorf("a census run's hint counts labels: more_samples set %t, samples_needed set %t, more_unit %q", c.MoreSamples != nil, c.SamplesNeeded != nil, c.MoreUnit)
	}
	if strings.Contains(c.Reason, "0 more labels") || strings.Contains(c.Reason, "labeled at the same rate") {
		t.Errorf("the reason promises no label: %s", c.Reason)
	}
	if !strings.Contains(c.Reason, "no pair is left in the queue to label: about ") || !strings.Contains(c.Reason, "labeled the same way, would confirm the failure") {
		t.Errorf("the reason does not say what would settle it: %s", c.Reason)
	}
	t.Log(c.Reason)
}

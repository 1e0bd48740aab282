package reports

import (
	"strings"
	"testing"

	"github.com/apeval/apeval/metrics"
)

// TestOpenColumnCensusHintCountsSessions: on a census-labeled run
// (labels in the dataset, no queue label) a labeled figure that only new
// sessions can decide has no count of labels; the open column says how
// many sessions, where it printed "precision +0" (0 labels would decide
// it), and the legend says what "+N sessions" means.
func TestOpenColumnCensusHintCountsSessions(t *testing.T) {
	t.Parallel()
	sessions := int64(258)
	r := &metrics.Row{RuleID: "secret-exfiltration", Criteria: []metrics.Criterion{
		{Name: metrics.CriterionPrecisionMin, Status: metrics.StatusInconclusive, MoreSessions: &sessions},
	}}
	got := statusNames(r, metrics.StatusInconclusive)
	if want := criterionLabel[metrics.CriterionPrecisionMin] + " +258 sessions"; got != want {
		t.Errorf("open column %q, want %q", got, want)
	}
	rep := &Report{Summary: &metrics.Summary{Sample: &metrics.SampleInfo{},
		Judges: []*metrics.JudgeSummary{{Rules: []*metrics.Row{r}}}}}
	if l := rep.openLegend(); !strings.Contains(l, "+N sessions: ") {
		t.Errorf("the legend does not explain +N sessions: %s", l)
	}
}

// TestOpenColumnLabeledHintThatNeedsSessions: on a queue-labeled run, a
// labeled figure whose hint says "labels alone are not shown to decide
// it: about 1828 more sessions of traffic (a new run), labeled at the same
// rate (about 492 more labels)" printed "precision +492" under a legend
// that read "+N: about N more labels from the queue … would decide it".
// It now reads "+1828 sessions"; a hint in labels alone and the unweighted
// path's units are unchanged.
func TestOpenColumnLabeledHintThatNeedsSessions(t *testing.T) {
	t.Parallel()
	i := func(v int64) *int64 { return &v }
	for _, c := range []struct {
		crit metrics.Criterion
		want string
	}{
		{metrics.Criterion{MoreSamples: i(492), MoreUnit: "labels", MoreSessions: i(1828)}, " +1828 sessions"},
		{metrics.Criterion{MoreSamples: i(14), MoreUnit: "labels"}, " +14"},
		{metrics.Criterion{MoreSamples: i(1070), MoreSessions: i(511)}, " +1070"},
	} {
		c.crit.Name, c.crit.Status = metrics.CriterionPrecisionMin, metrics.StatusInconclusive
		r := &metrics.Row{Criteria: []metrics.Criterion{c.crit}}
		if got, want := statusNames(r, metrics.StatusInconclusive), criterionLabel[metrics.CriterionPrecisionMin]+c.want; got != want {
			t.Errorf("%+v: %q, want %q", c.crit, got, want)
		}
	}
}

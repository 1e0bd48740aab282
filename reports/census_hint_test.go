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

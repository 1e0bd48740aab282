package reports

import (
	"testing"

	"github.com/apeval/apeval/metrics"
)

// TestIntervalMethodNote: the labeled-sample table's note says which
// interval the rules' queue-labeled precision and recall print — the
// stratified draws', the two-phase design's with each distinct reason
// once, or how many of each — and nothing without a queue-labeled figure.
func TestIntervalMethodNote(t *testing.T) {
	row := func(p, r, why string) *metrics.Row {
		return &metrics.Row{Sample: &metrics.RowSample{PrecisionInterval: p, RecallInterval: r, IntervalNote: why}}
	}
	sum := func(rows ...*metrics.Row) *metrics.Summary {
		return &metrics.Summary{Judges: []*metrics.JudgeSummary{{Judge: "j", Rules: rows}}}
	}
	const d, two = metrics.IntervalDraws, metrics.IntervalTwoPhase
	why := "the queue's judge B=x is not in this run"
	for _, c := range []struct {
		name string
		s    *metrics.Summary
		want string
	}{
		{"census only", sum(row("", "", ""), &metrics.Row{}), ""},
		{"all draws", sum(row(d, d, ""), row(d, d, "")),
			"Intervals of precision and recall on queue labels: " + metrics.IntervalDrawsText + "; a judge's total over every rule keeps the two-phase design's."},
		{"all two-phase", sum(row(two, two, why), row(two, two, why)),
			"Intervals of precision and recall on queue labels: the two-phase design's, not the stratified draws: " + why + "."},
		{"mixed", sum(row(d, d, ""), row(two, two, why), row(two, "", "its labels come from one session")),
			"Intervals of precision and recall on queue labels: " + metrics.IntervalDrawsText + " on 2 figures; the two-phase design's on 3 (" + why + "; its labels come from one session) and on a judge's total over every rule."},
	} {
		if got := intervalMethodNote(c.s); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

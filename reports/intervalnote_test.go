package reports

import (
	"slices"
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

// TestSampleIntervalCells: report.html's interval column, one cell per
// labeled-sample row — the method once where precision and recall share
// it, each named where they differ, the two-phase design's with why, "—"
// for a census row; no column where no row has a queue-labeled figure.
func TestSampleIntervalCells(t *testing.T) {
	row := func(p, r, why string) *metrics.Row {
		return &metrics.Row{Sample: &metrics.RowSample{PrecisionInterval: p, RecallInterval: r, IntervalNote: why}}
	}
	const d, two = metrics.IntervalDraws, metrics.IntervalTwoPhase
	one := "its labels come from one session"
	s := &metrics.Summary{Judges: []*metrics.JudgeSummary{{Judge: "j", Rules: []*metrics.Row{
		row(d, d, ""), row("", "", ""), &metrics.Row{}, row(d, two, "the draws had no denominator"), row(two, "", one)}}}}
	want := []string{"stratified draws", "—", "precision: stratified draws; recall: two-phase design, not the stratified draws: the draws had no denominator",
		"precision: two-phase design, not the stratified draws: " + one}
	if got := sampleIntervalCells(s); !slices.Equal(got, want) {
		t.Errorf("cells\n %q\nwant\n %q", got, want)
	}
	census := &metrics.Summary{Judges: []*metrics.JudgeSummary{{Judge: "j", Rules: []*metrics.Row{row("", "", "")}}}}
	if got := sampleIntervalCells(census); got != nil {
		t.Errorf("census only: %q, want no column", got)
	}
}

package reports

import (
	"fmt"
	"slices"
	"strings"

	"github.com/apeval/apeval/metrics"
)

// sampleGrid is the "Labeled sample" table of a summary whose figures come
// from labels (--labels): per judge and rule, how many labels are sampled
// (weighted by their strata) and how many are census (the dataset's own,
// weight 1), the weighted confusion counts and the weighted figures. nil
// without --labels.
func (rep *Report) sampleGrid() *grid {
	s := rep.Summary
	if s.Sample == nil {
		return nil
	}
	g := &grid{
		header: []string{"judge", "rule", "sampled", "census", "TP/FP/FN/TN (weighted)", "precision", "recall"},
		right:  []bool{false, false, true, true, true, false, false},
		notes: []string{fmt.Sprintf("Figures from a labeled sample (%d queue labels): each queue label weighs N_h/n_h of its stratum, each dataset label 1; "+
			"intervals are the design's (docs/statistics.md, Figures from a labeled sample). In the rules' open column, +N on precision and recall vs baseline "+
			"counts labels to add from the queue, +N sessions new sessions of traffic where more labels would not decide it.", s.Sample.Labels)},
		width: rep.Width,
	}
	if censusOpen(s) {
		g.notes[0] = g.notes[0][:len(g.notes[0])-1] + "; " + censusLegend
	}
	if n := intervalMethodNote(s); n != "" {
		g.notes = append(g.notes, n)
	}
	for _, j := range s.Judges {
		for _, r := range j.Rules {
			if r.Sample == nil {
				continue
			}
			x := r.Sample
			g.add(j.Judge, r.RuleID, itoa(x.Sampled), itoa(x.Census),
				fmt.Sprintf("%.1f/%.1f/%.1f/%.1f", x.TP, x.FP, x.FN, x.TN),
				ciText(r.Precision, r.PrecisionLo, r.PrecisionHi), ciText(r.Recall, r.RecallLo, r.RecallHi))
		}
	}
	return g
}

// intervalMethodNote says which interval the queue-labeled precision and
// recall figures print: the stratified draws' where the run holds the
// queue's traffic, the two-phase design's elsewhere, with why.
func intervalMethodNote(s *metrics.Summary) string {
	var draws, two int
	var whys []string
	for _, j := range s.Judges {
		for _, r := range j.Rules {
			x := r.Sample
			if x == nil {
				continue
			}
			for _, m := range []string{x.PrecisionInterval, x.RecallInterval} {
				switch m {
				case metrics.IntervalDraws:
					draws++
				case metrics.IntervalTwoPhase:
					two++
				}
			}
			if x.IntervalNote != "" && !slices.Contains(whys, x.IntervalNote) {
				whys = append(whys, x.IntervalNote)
			}
		}
	}
	switch {
	case draws+two == 0:
		return ""
	case two == 0:
		return fmt.Sprintf("Intervals of precision and recall on queue labels: %s; a judge's total over every rule keeps the two-phase design's.", metrics.IntervalDrawsText)
	case draws == 0:
		return fmt.Sprintf("Intervals of precision and recall on queue labels: the two-phase design's, not the stratified draws: %s.", strings.Join(whys, "; "))
	}
	return fmt.Sprintf("Intervals of precision and recall on queue labels: %s on %d figures; the two-phase design's on %d (%s) and on a judge's total over every rule.", metrics.IntervalDrawsText, draws, two, strings.Join(whys, "; "))
}

// sampleIntervalCells is, for each row of sampleGrid in its order, which
// interval the row's queue-labeled precision and recall print, as
// summary.json's precision_interval, recall_interval and interval_note
// say it: "stratified draws", "two-phase design, not the stratified
// draws: WHY", each figure named when they differ; "—" where every label
// weighs 1. nil when no row has a queue-labeled figure (the census alone).
func sampleIntervalCells(s *metrics.Summary) []string {
	var cells []string
	shown := false
	for _, j := range s.Judges {
		for _, r := range j.Rules {
			x := r.Sample
			if x == nil {
				continue
			}
			one := func(m string) string {
				if m == metrics.IntervalTwoPhase && x.IntervalNote != "" {
					return m + ", not the stratified draws: " + x.IntervalNote
				}
				return m
			}
			p, rc := one(x.PrecisionInterval), one(x.RecallInterval)
			var c string
			switch {
			case p == "" && rc == "":
				c = "—"
			case p == rc:
				c = p
			case rc == "":
				c = "precision: " + p
			case p == "":
				c = "recall: " + rc
			default:
				c = "precision: " + p + "; recall: " + rc
			}
			shown = shown || c != "—"
			cells = append(cells, c)
		}
	}
	if !shown {
		return nil
	}
	return cells
}

func ciText(v, lo, hi *float64) string {
	if v == nil {
		return "—"
	}
	if lo == nil || hi == nil {
		return fmt.Sprintf("%.3f", *v)
	}
	return fmt.Sprintf("%.3f [%.3f, %.3f]", *v, *lo, *hi)
}

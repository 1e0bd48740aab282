package metrics

import (
	"fmt"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/replay"
)

// LabeledSample applies a labeled sample (the --labels files of apeval
// label serve) to a summary: it collects the run's (case, rule) pairs as
// results arrive, then recomputes precision, recall and their criteria
// weighted by the queue's design (Summary.ApplySample).
type LabeledSample struct {
	table  *PairTable
	labels []SampleLabel
	// shared counts the pairs more than one person labeled (their final
	// non-skip labels), disagree those whose people differ, people the
	// labelers: the figures count the first label by time of each pair,
	// and Apply says so when another person's label was set aside.
	shared, disagree, people int
}

// NewLabeledSample resolves the labels files' lines. Weak labels are
// refused: they are a signal, never mixed with people's labels.
func NewLabeledSample(lines []datasets.SampleLabel) (*LabeledSample, error) {
	for _, l := range lines {
		if l.LabelSource == datasets.LabelSourceWeak {
			return nil, fmt.Errorf("%s: label_source: weak labels are a signal, not ground truth, and are never mixed with people's labels; compare them with people's (apeval label agreement), or label a slice (apeval label queue --weak-labels) and correct the weak figures with it (apeval label correct)", l.Source)
		}
	}
	labels, err := ResolveSampleLabels(lines)
	if err != nil {
		return nil, err
	}
	l := &LabeledSample{table: NewPairTable(nil, nil), labels: labels}
	l.shared, l.disagree, l.people = sharedLabels(lines)
	return l, nil
}

// sharedLabels counts the pairs two or more people labeled (each
// person's last line for a pair, skips left out, as ResolveSampleLabels
// reads them), those whose people disagree, and the people.
func sharedLabels(lines []datasets.SampleLabel) (shared, disagree, people int) {
	type key struct{ c, r, who string }
	last := map[key]datasets.Label{}
	who := map[string]bool{}
	for _, l := range lines {
		last[key{l.CaseID, l.RuleID, l.Labeler}] = l.Label
		who[l.Labeler] = true
	}
	type tally struct{ n, match int }
	pairs := map[[2]string]*tally{}
	for k, lab := range last {
		if lab == datasets.SampleSkip {
			continue
		}
		pk := [2]string{k.c, k.r}
		if pairs[pk] == nil {
			pairs[pk] = &tally{}
		}
		pairs[pk].n++
		if lab == datasets.LabelMatch {
			pairs[pk].match++
		}
	}
	for _, t := range pairs {
		if t.n > 1 {
			shared++
			if t.match > 0 && t.match < t.n {
				disagree++
			}
		}
	}
	return shared, disagree, len(who)
}

// Add records a result's pairs.
func (l *LabeledSample) Add(r *replay.Result) { l.table.Add(r) }

// Weights gives each decision its sample label and design weight
// (SampleWeights), for decisions.parquet.
func (l *LabeledSample) Weights() func(caseID, ruleID, label string) (string, float64) {
	return SampleWeights(l.labels)
}

// Apply recomputes the summary's figures from the labels and adds a
// warning saying how many labels match a (case, rule) pair of the results.
// Labels none of which match are another run's: an error, and s is left
// as it was.
func (l *LabeledSample) Apply(s *Summary) error {
	missing := 0
	for _, lb := range l.labels {
		if l.table.Row(lb.CaseID, lb.RuleID) == nil {
			missing++
		}
	}
	if n := len(l.labels); n > 0 && missing == n {
		return fmt.Errorf("--labels: none of the %d labels names a (case, rule) pair of these results: they are another run's (label the queue of this run: apeval label queue)", n)
	}
	s.ApplySample(l.table, l.labels)
	if missing > 0 {
		s.LabelNotes = append(s.LabelNotes, fmt.Sprintf("--labels: %d of %d labels match a (case, rule) pair of these results; the other %d name pairs these results do not have in scope (labels from another run's queue?) and are left out", len(l.labels)-missing, len(l.labels), missing))
	} else {
		s.LabelNotes = append(s.LabelNotes, fmt.Sprintf("--labels: all %d labels match a (case, rule) pair of these results", len(l.labels)))
	}
	if l.shared > 0 {
		s.LabelNotes = append(s.LabelNotes, fmt.Sprintf("--labels: %d of the %d labeled pairs were labeled by more than one of %d people; the figures count each pair's first label by time, and the people disagree on %d of them (apeval label agreement compares them)", l.shared, len(l.labels), l.people, l.disagree))
	}
	s.Warnings = append(s.Warnings, s.LabelNotes...)
	return nil
}

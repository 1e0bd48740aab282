package main

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports"
)

// labelsHelp is the help of --labels on run, report, gate and compare.
const labelsHelp = "labels file from apeval label serve (apeval.labels/v1; repeatable): precision, recall and their criteria weighted by the queue's design"

// registerLabels adds --labels to a flag set.
func registerLabels(f *pflag.FlagSet, files *[]string) {
	f.StringArrayVar(files, "labels", nil, labelsHelp)
}

// checkLabels refuses --labels with --by: the slices would not be
// weighted.
func checkLabels(files, by []string) error {
	if len(files) > 0 && len(by) > 0 {
		return usagef("--labels and --by exclude each other (per-slice figures are not weighted by the labeling design)")
	}
	return nil
}

// labelSink collects the run's pairs for figures from a labeled sample
// (--labels); nil without --labels, so nothing changes then.
type labelSink struct {
	table  *metrics.PairTable
	labels []metrics.SampleLabel
}

// newLabelSink reads and resolves the labels files; nil when there are
// none.
func newLabelSink(files []string) (*labelSink, error) {
	if len(files) == 0 {
		return nil, nil
	}
	lines, err := datasets.ReadSampleLabels(files, false)
	if err != nil {
		return nil, usageError{err}
	}
	for _, l := range lines {
		if l.LabelSource == datasets.LabelSourceWeak {
			return nil, usagef("%s: label_source: weak labels are a signal, not ground truth, and are never mixed with people's labels; compare them with people's (apeval label agreement) or label a slice (apeval label queue --weak-labels)", l.Source)
		}
	}
	labels, err := metrics.ResolveSampleLabels(lines)
	if err != nil {
		return nil, usageError{err}
	}
	return &labelSink{table: metrics.NewPairTable(nil, nil), labels: labels}, nil
}

// weigh gives decisions.parquet its label weights; nil without --labels
// (the files stay as they were).
func (l *labelSink) weigh() func(caseID, ruleID, label string) reports.LabelWeight {
	if l == nil {
		return nil
	}
	w := metrics.SampleWeights(l.labels)
	return func(caseID, ruleID, label string) reports.LabelWeight {
		v, x := w(caseID, ruleID, label)
		return reports.LabelWeight{SampleLabel: v, Weight: x}
	}
}

// Add records a result's pairs.
func (l *labelSink) Add(r *replay.Result) { l.table.Add(r) }

// apply recomputes the summary's figures from the labels; a no-op on nil.
// It says how many labels match a (case, rule) pair of these results, and
// refuses labels none of which do (another run's labels: exit 2).
func (l *labelSink) apply(s *metrics.Summary) error {
	if l == nil {
		return nil
	}
	missing := 0
	for _, lb := range l.labels {
		if l.table.Row(lb.CaseID, lb.RuleID) == nil {
			missing++
		}
	}
	if n := len(l.labels); n > 0 && missing == n {
		return usagef("--labels: none of the %d labels names a (case, rule) pair of these results: they are another run's (label the queue of this run: apeval label queue)", n)
	}
	s.ApplySample(l.table, l.labels)
	if missing > 0 {
		s.Warnings = append(s.Warnings, fmt.Sprintf("--labels: %d of %d labels match a (case, rule) pair of these results; the other %d name pairs these results do not have in scope (labels from another run's queue?) and are left out", len(l.labels)-missing, len(l.labels), missing))
	} else {
		s.Warnings = append(s.Warnings, fmt.Sprintf("--labels: all %d labels match a (case, rule) pair of these results", len(l.labels)))
	}
	return nil
}

// weakLabelsHelp is the help of run --weak-labels.
const weakLabelsHelp = "take each case's weak labels (weak_labels: a user's override, not a review) as its labels; the dataset's own labels are set aside, never mixed in; run.json, decisions.parquet (label_source) and every report name the figures weak"

// weakSwap makes each case's weak labels its labels (run --weak-labels)
// and counts what it set aside.
type weakSwap struct {
	cases, weak, human int64
}

func (w *weakSwap) swap(c *datasets.Case) {
	w.cases++
	if len(c.WeakLabels) > 0 {
		w.weak++
	}
	if len(c.Labels) > 0 {
		w.human++
	}
	c.Labels, c.WeakLabels = c.WeakLabels, nil
}

// message says what the figures rest on.
func (w *weakSwap) message() string {
	m := fmt.Sprintf("--weak-labels: precision and recall are computed on weak labels (%d of %d cases carry one); they are a signal, not ground truth", w.weak, w.cases)
	if w.human > 0 {
		m += fmt.Sprintf("; the dataset's own labels of %d cases are set aside, not mixed in", w.human)
	}
	return m
}

// checkLabelSources refuses run directories whose labels come from
// different sources (weak and not): their figures would mix weak labels
// with people's. It returns the common source.
func checkLabelSources(dirs []string, infos []reports.RunInfo) (string, error) {
	for i := 1; i < len(infos); i++ {
		if infos[i].LabelSource != infos[0].LabelSource {
			return "", usagef("%s and %s were made on different labels (%s and %s): weak labels are never mixed with people's; read them apart",
				dirs[0], dirs[i], labelSourceName(infos[0].LabelSource), labelSourceName(infos[i].LabelSource))
		}
	}
	return infos[0].LabelSource, nil
}

func labelSourceName(s string) string {
	if s == datasets.LabelSourceWeak {
		return "weak labels (run --weak-labels)"
	}
	return "the datasets' labels"
}

// refuseWeakWithLabels refuses --labels on runs made on weak labels: the
// queue's design weights would combine people's labels with weak ones.
func refuseWeakWithLabels(files []string, source string) error {
	if len(files) > 0 && source == datasets.LabelSourceWeak {
		return usagef("--labels on a run made with --weak-labels: weak labels are never mixed with people's; rerun without --weak-labels to weigh people's labels")
	}
	return nil
}

package main

import (
	"github.com/spf13/pflag"

	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/reports/evaluation"
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

// newLabelSink reads the labels files for figures from a labeled sample
// (evaluation.LabeledSample); nil without --labels. source is the run's
// label source: a sample on weak labels is refused.
func newLabelSink(files []string, source string) (*metrics.LabeledSample, error) {
	l, err := evaluation.LabeledSample(files, source)
	if err != nil {
		return nil, usageError{err}
	}
	return l, nil
}

// weakLabelsHelp is the help of run --weak-labels.
const weakLabelsHelp = "take each case's weak labels (weak_labels: a user's override, not a review) as its labels; the dataset's own labels are set aside, never mixed in; run.json, decisions.parquet (label_source) and every report name the figures weak"

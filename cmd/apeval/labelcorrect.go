package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/reports"
	"github.com/apeval/apeval/reports/evaluation"
)

type labelCorrectOptions struct {
	Dir        string
	Labels     []string
	Weak       []string
	Judges     []string
	Rules      []string
	Confidence float64
	JSON       bool
}

// newLabelCorrectCmd is `apeval label correct`; runF is runLabelCorrect
// unless a test passes its own.
func newLabelCorrectCmd(io IO, runF func(context.Context, *labelCorrectOptions, IO) error) *cobra.Command {
	if runF == nil {
		runF = runLabelCorrect
	}
	o := &labelCorrectOptions{}
	cmd := &cobra.Command{
		Use:   "correct RUNDIR --labels FILE... [--weak-labels DATASET...]",
		Short: "Correct figures on weak labels from a human-labeled slice: the weak labels' error rate per stratum, corrected precision and recall",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Dir = args[0]
			if len(o.Labels) == 0 {
				return usagef("label correct needs the people's labels: --labels FILE (from apeval label serve on a queue drawn with --weak-labels)")
			}
			if o.Confidence <= 0 || o.Confidence >= 1 {
				return usagef("--confidence %v: want a level between 0 and 1, e.g. 0.95", o.Confidence)
			}
			return runF(cmd.Context(), o, io)
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&o.Labels, "labels", nil, "people's labels file (apeval.labels/v1 from apeval label serve; repeatable)")
	f.StringArrayVar(&o.Weak, "weak-labels", nil, "dataset whose weak labels the slice was drawn on (repeatable; not needed for a run made with run --weak-labels)")
	f.StringArrayVar(&o.Judges, "judge", nil, "judge to report (repeatable; default every judge of the run)")
	f.StringArrayVar(&o.Rules, "rule", nil, "rule to report (repeatable; default every rule)")
	f.Float64Var(&o.Confidence, "confidence", 0.95, "confidence level of the intervals")
	f.BoolVar(&o.JSON, "json", false, "JSON instead of the tables")
	return cmd
}

// runLabelCorrect is `apeval label correct` with checked options.
func runLabelCorrect(_ context.Context, o *labelCorrectOptions, io IO) error {
	t, info, err := evaluation.ReadPairs(o.Dir, o.Judges, o.Rules)
	if err != nil {
		return err
	}
	var weak map[[2]string]datasets.Label
	switch {
	case info.LabelSource == datasets.LabelSourceWeak && len(o.Weak) > 0:
		return usagef("%s: the run is on weak labels (run --weak-labels): they are its weak labels; drop --weak-labels", o.Dir)
	case info.LabelSource == datasets.LabelSourceWeak:
		weak = t.TakeWeakLabels()
	case len(o.Weak) == 0:
		return usagef("label correct needs the weak labels the slice was drawn on: --weak-labels DATASET (or a run made with run --weak-labels)")
	default:
		ws, err := readWeakLabels(o.Weak, io)
		if err != nil {
			return err
		}
		weak = datasets.WeakLabelMap(ws)
	}
	lines, err := datasets.ReadSampleLabels(o.Labels, false)
	if err != nil {
		return usageError{err}
	}
	labels, missing, err := t.SliceLabels(lines)
	if err != nil {
		return usageError{err}
	}
	if len(labels) > 0 && missing == len(labels) {
		return usagef("--labels: none of the %d labels names a (case, rule) pair of %s: they are another run's (draw the slice from this run: apeval label queue %s --weak-labels DATASET)", len(labels), o.Dir, o.Dir)
	}
	// A slice without the weak label in its strata (ErrNoWeakStrata) or
	// drawn on other weak labels is bad input: exit 2.
	rep, err := t.CorrectWeak(weak, labels, o.Confidence)
	if err != nil {
		return usageError{err}
	}
	if o.JSON {
		return reports.WriteCorrectionJSON(io.Out, rep, len(labels), missing)
	}
	return reports.WriteCorrectionTables(io.Out, rep, len(labels), missing)
}

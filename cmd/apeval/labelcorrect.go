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
	spec := evaluation.CorrectSpec{Dir: o.Dir, Judges: o.Judges, Rules: o.Rules, Labels: o.Labels, Confidence: o.Confidence}
	if len(o.Weak) > 0 {
		spec.Weak = func() ([]datasets.WeakLabel, error) { return readWeakLabels(o.Weak, io) }
	}
	c, err := evaluation.CorrectWeak(spec)
	if err != nil {
		return usageError{err}
	}
	if o.JSON {
		return reports.WriteCorrectionJSON(io.Out, c.Report, c.Labels, c.Missing)
	}
	return reports.WriteCorrectionTables(io.Out, c.Report, c.Labels, c.Missing)
}

package main

import (
	"context"
	"fmt"
	goio "io"

	"github.com/spf13/cobra"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/datasets/source"
	"github.com/apeval/apeval/internal/outfile"
	"github.com/apeval/apeval/reports"
	"github.com/apeval/apeval/reports/evaluation"
)

type disagreementsOptions struct {
	Datasets  []string
	Baseline  string
	Candidate string
	Limit     int
	Out       string
	Dirs      []string // the run directories (arguments)
}

// newDisagreementsCmd is `apeval datasets disagreements`; runF is
// runDisagreements unless a test passes its own.
func newDisagreementsCmd(io IO, runF func(context.Context, *disagreementsOptions, IO) error) *cobra.Command {
	if runF == nil {
		runF = runDisagreements
	}
	o := &disagreementsOptions{}
	cmd := &cobra.Command{
		Use:   "disagreements A [B]",
		Short: "List the cases two judges decided differently, as JSONL ready to label",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) < 1 || len(args) > 2 {
				return usagef("disagreements takes two run directories, or one")
			}
			if o.Limit < 0 {
				return usagef("--limit must be 0 (all) or more, got %d", o.Limit)
			}
			o.Dirs = args
			return runF(cmd.Context(), o, io)
		},
	}
	f := cmd.Flags()
	f.StringArrayVarP(&o.Datasets, "dataset", "d", nil, "dataset file the run replayed (JSONL); repeatable; - reads stdin; required unless the run replayed the embedded sample")
	f.StringVar(&o.Baseline, "baseline", "", "baseline judge (identity, spec or unique prefix); with one run directory, default: the run's --baseline")
	f.StringVar(&o.Candidate, "candidate", "", "candidate judge (identity or unique prefix) when a run holds several")
	f.IntVarP(&o.Limit, "limit", "n", 0, "write at most N cases, the most informative (0 = all)")
	f.StringVarP(&o.Out, "out", "o", "", "output file, written atomically (default: stdout)")
	return cmd
}

// runDisagreements is `apeval datasets disagreements` with checked options.
func runDisagreements(_ context.Context, o *disagreementsOptions, io IO) error {
	dirs := o.Dirs
	infos, err := evaluation.ReadInfos(dirs)
	if err != nil {
		return err
	}
	if len(dirs) == 1 {
		if err := runBaseline("disagreements", dirs[0], infos[0], &o.Baseline, io.Err); err != nil {
			return err
		}
	}
	paths, stdin, ok := evaluation.ReplayedInput(o.Datasets, io.In, infos)
	if !ok {
		return usagef("--dataset is required: give the dataset file(s) the run replayed (decision files hold no raw cases)")
	}
	pair, err := reports.PairJudges(dirs, infos, o.Baseline, o.Candidate)
	if err != nil {
		return usageError{err}
	}

	found, err := evaluation.FindDisagreements(dirs, pair, o.Limit)
	if err != nil {
		return err
	}
	// Only the selected cases' lines are kept in memory.
	lines, where, err := found.Lines(paths, stdin, source.URLs)
	if err != nil {
		return usageError{err}
	}
	if err := outfile.Write(o.Out, io.Out, func(w goio.Writer) error { return found.Write(w, lines, where) }); err != nil {
		return usageError{err}
	}
	fmt.Fprintln(io.Err, found.Summary(pair, outfile.Dest(o.Out)))
	return nil
}

// labelImportOptions are the options of `apeval datasets label-import`.
type labelImportOptions struct {
	Datasets      []string
	Labels        []string
	Out           string
	Overwrite     bool
	IgnoreUnknown bool
}

// newLabelImportCmd is `apeval datasets label-import`; runF is
// runLabelImport unless a test passes its own.
func newLabelImportCmd(io IO, runF func(context.Context, *labelImportOptions, IO) error) *cobra.Command {
	if runF == nil {
		runF = runLabelImport
	}
	o := &labelImportOptions{}
	cmd := &cobra.Command{
		Use:   "label-import",
		Short: "Merge labels (e.g. a labeled disagreements file) back into a dataset",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(o.Datasets) == 0 || len(o.Labels) == 0 {
				return usagef("label-import needs --dataset FILE and --labels FILE")
			}
			if outfile.StdinCount(o.Datasets, o.Labels) > 1 {
				return usagef("only one of --dataset and --labels can read stdin (-)")
			}
			return runF(cmd.Context(), o, io)
		},
	}
	f := cmd.Flags()
	f.StringArrayVarP(&o.Datasets, "dataset", "d", nil, "dataset file to merge into (JSONL); repeatable, the output concatenates them; - reads stdin")
	f.StringArrayVarP(&o.Labels, "labels", "l", nil, "labels file (JSONL of {id, labels}); repeatable; - reads stdin")
	f.StringVarP(&o.Out, "out", "o", "", "output file, written atomically; may be the dataset itself (default: stdout)")
	f.BoolVar(&o.Overwrite, "overwrite", false, "replace dataset labels that differ from the labels file instead of failing")
	f.BoolVar(&o.IgnoreUnknown, "ignore-unknown", false, "skip labels for ids not in the dataset instead of failing")
	return cmd
}

// runLabelImport is `apeval datasets label-import` with checked options.
func runLabelImport(_ context.Context, o *labelImportOptions, io IO) error {
	labels, err := datasets.ReadLabels(o.Labels, io.In)
	if err != nil {
		return usageError{err}
	}
	var st datasets.MergeStats
	opt := datasets.MergeOptions{Overwrite: o.Overwrite, IgnoreUnknown: o.IgnoreUnknown}
	err = outfile.Write(o.Out, io.Out, func(w goio.Writer) error {
		var err error
		st, err = datasets.MergeLabels(w, o.Datasets, io.In, labels, opt)
		return err
	})
	if err != nil {
		return usageError{st.Refused(err, opt)}
	}
	reports.WriteLabelMerge(io.Err, labels, st, outfile.Dest(o.Out))
	return nil
}

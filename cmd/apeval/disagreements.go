package main

import (
	"context"
	"fmt"
	goio "io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/datasets/source"
	"github.com/apeval/apeval/internal/outfile"
	"github.com/apeval/apeval/internal/trunc"
	"github.com/apeval/apeval/reports"
	"github.com/apeval/apeval/reports/evaluation"
	"github.com/apeval/apeval/reports/rundir"
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
				return usagef("disagreements takes two run directories, or one with --baseline")
			}
			if len(args) == 1 && o.Baseline == "" {
				return usagef("disagreements of one run directory needs --baseline JUDGE")
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
	f.StringVar(&o.Baseline, "baseline", "", "baseline judge (identity, spec or unique prefix)")
	f.StringVar(&o.Candidate, "candidate", "", "candidate judge (identity or unique prefix) when a run holds several")
	f.IntVarP(&o.Limit, "limit", "n", 0, "write at most N cases, the most informative (0 = all)")
	f.StringVarP(&o.Out, "out", "o", "", "output file, written atomically (default: stdout)")
	return cmd
}

// pickJudges resolves the baseline and candidate of one or two runs the way
// compare does (reports.PairJudges); its errors are usage errors.
func pickJudges(dirs []string, infos []rundir.RunInfo, baselineFlag, candidateFlag string) (reports.JudgePair, error) {
	p, err := reports.PairJudges(dirs, infos, baselineFlag, candidateFlag)
	if err != nil {
		return reports.JudgePair{}, usageError{err}
	}
	return p, nil
}

// runDisagreements is `apeval datasets disagreements` with checked options.
func runDisagreements(_ context.Context, o *disagreementsOptions, io IO) error {
	dirs := o.Dirs
	var infos []rundir.RunInfo
	for _, d := range dirs {
		info, err := rundir.ReadRunInfo(d)
		if err != nil {
			return evaluation.DirError(d, err)
		}
		infos = append(infos, info)
	}
	paths := o.Datasets
	var stdin goio.Reader = io.In
	if len(paths) == 0 {
		if !evaluation.ReplayedSample(infos) {
			return usagef("--dataset is required: give the dataset file(s) the run replayed (decision files hold no raw cases)")
		}
		paths, stdin = []string{"-"}, datasets.SampleCases()
	}
	pair, err := pickJudges(dirs, infos, o.Baseline, o.Candidate)
	if err != nil {
		return err
	}

	found, err := evaluation.FindDisagreements(dirs, pair, o.Limit)
	if err != nil {
		return err
	}
	cases := found.Cases
	// Only the selected cases' lines are kept in memory.
	lines, where, err := found.Lines(paths, stdin, source.URLs)
	if err != nil {
		return usageError{err}
	}

	err = outfile.Write(o.Out, io.Out, func(w goio.Writer) error {
		for i, c := range cases {
			out, err := c.Annotate(lines[i])
			if err != nil {
				return usagef("%s: %v", where[i], err)
			}
			if _, err := w.Write(append(out, '\n')); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(io.Err, "%d disagreements (%d opposite, %d unknown) in %d cases over %d pairs both judged (baseline %s, candidate %s); %d cases written to %s\n",
		len(found.Ranked), found.Opposite, len(found.Ranked)-found.Opposite, found.Total, found.Paired, pair.Baseline, pair.Candidate, len(cases), outfile.Dest(o.Out))
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
	err = outfile.Write(o.Out, io.Out, func(w goio.Writer) error {
		var err error
		st, err = datasets.MergeLabels(w, o.Datasets, io.In, labels, datasets.MergeOptions{Overwrite: o.Overwrite, IgnoreUnknown: o.IgnoreUnknown})
		return err
	})
	if err != nil {
		var hints []string
		if st.Conflicts > 0 {
			hints = append(hints, "--overwrite replaces conflicting labels")
		}
		if len(st.Unknown) > 0 && !o.IgnoreUnknown {
			hints = append(hints, "--ignore-unknown skips unknown ids")
		}
		if len(hints) > 0 {
			err = fmt.Errorf("%w\nnothing written (%s)", err, strings.Join(hints, "; "))
		}
		return usageError{err}
	}
	fmt.Fprintf(io.Err, "%d labels for %d cases: %d added, %d changed, %d already there; %d cases updated, %d lines written to %s\n",
		labels.Count(), labels.Cases(), st.Added, st.Changed, st.Kept, st.Updated, st.Lines, outfile.Dest(o.Out))
	if n := labels.Empty(); n > 0 {
		fmt.Fprintf(io.Err, "%d labels-file line(s) carried no label and were skipped\n", n)
	}
	if len(st.Unknown) > 0 {
		fmt.Fprintf(io.Err, "skipped labels for %d id(s) not in the dataset: %s\n", len(st.Unknown), trunc.List(st.Unknown, 20))
	}
	return nil
}

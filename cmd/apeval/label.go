package main

import (
	"context"
	"encoding/json"
	"fmt"
	goio "io"

	"github.com/spf13/cobra"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/datasets/source"
	"github.com/apeval/apeval/internal/outfile"
	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/reports"
	"github.com/apeval/apeval/reports/evaluation"
)

func newLabelCmd(io IO) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "label",
		Short: "Label a stratified sample of unlabeled pairs: queue, labeling page, agreement",
	}
	cmd.AddCommand(newLabelQueueCmd(io, nil), newLabelServeCmd(io, nil), newLabelAgreementCmd(io, nil), newLabelWeakCmd(io, nil), newLabelCorrectCmd(io, nil))
	return cmd
}

type labelQueueOptions struct {
	Weak    []string // datasets whose weak labels stratify too
	Rules   []string
	Judges  []string
	Budget  int
	Reach   int
	Labels  []string // labels files counted toward --reach
	Matches string   // judge whose every match prediction is queued
	Seed    uint64
	Overlap float64
	Out     string
	Dir     string // the run directory (the argument)
}

// newLabelQueueCmd is `apeval label queue`; runF is runLabelQueue unless a
// test passes its own.
func newLabelQueueCmd(io IO, runF func(context.Context, *labelQueueOptions, IO) error) *cobra.Command {
	if runF == nil {
		runF = runLabelQueue
	}
	o := &labelQueueOptions{}
	cmd := &cobra.Command{
		Use:   "queue RUNDIR",
		Short: "Write a stratified labeling queue of the unlabeled pairs of a run",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("label queue takes one run directory")
			}
			budget, reach, matches := cmd.Flags().Changed("budget"), cmd.Flags().Changed("reach"), cmd.Flags().Changed("matches")
			switch {
			case matches && (budget || reach):
				return usagef("--matches JUDGE queues every pair the judge called match: give it without --budget or --reach")
			case matches && o.Matches == "":
				return usagef("--matches needs a judge (identity or unique prefix)")
			case matches && len(o.Weak) > 0:
				return usagef("--matches queues the strata of the judges' results; with --weak-labels the strata hold the weak label too: use --budget")
			case matches:
			case budget && reach:
				return usagef("give --budget N (the number of pairs to queue) or --reach N (each stratum where the judges disagree to N labels), not both")
			case reach && o.Reach < 1:
				return usagef("--reach %d: want at least 1 label a stratum", o.Reach)
			case len(o.Labels) > 0 && !reach:
				return usagef("--labels counts labels files toward --reach N or --matches JUDGE; a --budget queue reads none")
			case reach && len(o.Weak) > 0:
				return usagef("--reach counts the dataset's labels of each stratum of the judges' results; with --weak-labels the strata hold the weak label too: use --budget")
			case !reach && o.Budget < 1:
				return usagef("--budget N is required (the number of pairs to queue; or --reach N), got %d", o.Budget)
			}
			if o.Overlap < 0 || o.Overlap > 1 {
				return usagef("--overlap must be between 0 and 1, got %g", o.Overlap)
			}
			o.Dir = args[0]
			return runF(cmd.Context(), o, io)
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&o.Rules, "rule", nil, "queue only this rule (repeatable; default every rule)")
	f.StringArrayVar(&o.Judges, "judge", nil, "stratify by this judge's results (identity or unique prefix; repeatable; default every judge of the run)")
	f.IntVar(&o.Budget, "budget", 0, "number of pairs to queue (at least 5 per stratum are queued whatever the budget)")
	f.IntVar(&o.Reach, "reach", 0, "instead of --budget: queue only the strata where the judges disagree, each up to `N` labels counting the dataset's labels of it (or all its pairs)")
	f.StringArrayVar(&o.Labels, "labels", nil, "with --reach or --matches: a labels `FILE` whose labels count toward each stratum's reach too, their pairs never queued again (repeatable)")
	f.StringVar(&o.Matches, "matches", "", "instead of --budget: queue every unlabeled pair this `JUDGE` (identity or unique prefix) called match, whatever the other judges said, and none other: the pairs its precision rests on, all labeled (a precision hint in sessions asks for it)")
	f.Uint64Var(&o.Seed, "seed", 1, "seed of the random order")
	f.Float64Var(&o.Overlap, "overlap", 0.1, "share of the queue every labeler labels, for agreement")
	f.StringVarP(&o.Out, "out", "o", "", "queue file, written atomically (default: stdout)")
	f.StringArrayVar(&o.Weak, "weak-labels", nil, "dataset whose weak labels (user overrides) stratify too, as the letter W: strata are then (judges' results × weak label) (repeatable)")
	return cmd
}

// runLabelQueue is `apeval label queue` with checked options.
func runLabelQueue(_ context.Context, o *labelQueueOptions, io IO) error {
	spec := evaluation.QueueSpec{Dir: o.Dir, Judges: o.Judges, Rules: o.Rules, Labels: o.Labels, Matches: o.Matches, Config: metrics.QueueConfig{Budget: o.Budget, Reach: o.Reach, Seed: o.Seed, Overlap: o.Overlap}}
	if len(o.Weak) > 0 {
		spec.Weak = func() ([]datasets.WeakLabel, error) { return readWeakLabels(o.Weak, io) }
	}
	d, err := evaluation.DrawQueue(spec)
	if err != nil {
		return err
	}
	if len(o.Labels) > 0 {
		fmt.Fprintf(io.Err, "--labels: %d labeled pairs count as labeled and are not queued again (%d labels are of pairs out of scope)\n", d.FromFiles, d.Missing)
	}
	lines := d.Lines()
	if err := outfile.Write(o.Out, io.Out, func(w goio.Writer) error { return datasets.WriteSampleLabels(w, lines) }); err != nil {
		return err
	}
	return reports.WriteQueueSummary(io.Err, d.Queue, d.Letters, d.Names, d.Census, d.Unlabeled, outfile.Dest(o.Out))
}

type labelAgreementOptions struct {
	Run   string
	JSON  bool
	Files []string // the labels files (arguments)
}

// newLabelAgreementCmd is `apeval label agreement`; runF is
// runLabelAgreement unless a test passes its own.
func newLabelAgreementCmd(io IO, runF func(context.Context, *labelAgreementOptions, IO) error) *cobra.Command {
	if runF == nil {
		runF = runLabelAgreement
	}
	o := &labelAgreementOptions{}
	cmd := &cobra.Command{
		Use:   "agreement FILE...",
		Short: "How well labelers agree: Cohen's or Fleiss' kappa per rule, and judge vs person",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("label agreement needs at least one labels file")
			}
			o.Files = args
			return runF(cmd.Context(), o, io)
		},
	}
	cmd.Flags().StringVar(&o.Run, "run", "", "run directory whose judges to compare with the people")
	cmd.Flags().BoolVar(&o.JSON, "json", false, "print JSON")
	return cmd
}

// runLabelAgreement is `apeval label agreement` with checked options.
func runLabelAgreement(_ context.Context, o *labelAgreementOptions, io IO) error {
	rep, err := evaluation.Agreement(o.Files, o.Run)
	if err != nil {
		return usageError{err}
	}
	if o.JSON {
		enc := json.NewEncoder(io.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	if err := reports.WriteAgreement(io.Out, rep); err != nil {
		return err
	}
	for _, w := range rep.Warnings {
		fmt.Fprintln(io.Err, "warning:", w)
	}
	return nil
}

type labelWeakOptions struct {
	Datasets []string
	Out      string
}

// newLabelWeakCmd is `apeval label weak`; runF is runLabelWeak unless a
// test passes its own.
func newLabelWeakCmd(io IO, runF func(context.Context, *labelWeakOptions, IO) error) *cobra.Command {
	if runF == nil {
		runF = runLabelWeak
	}
	o := &labelWeakOptions{}
	cmd := &cobra.Command{
		Use:   "weak DATASET...",
		Short: "Export a dataset's weak labels (user overrides) as a labels file marked weak",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("label weak needs at least one dataset")
			}
			o.Datasets = args
			return runF(cmd.Context(), o, io)
		},
	}
	cmd.Flags().StringVarP(&o.Out, "out", "o", "", "labels file, written atomically (default: stdout)")
	return cmd
}

func runLabelWeak(_ context.Context, o *labelWeakOptions, io IO) error {
	weak, err := readWeakLabels(o.Datasets, io)
	if err != nil {
		return err
	}
	lines, rules := datasets.WeakSampleLabels(weak)
	if err := outfile.Write(o.Out, io.Out, func(w goio.Writer) error { return datasets.WriteSampleLabels(w, lines) }); err != nil {
		return err
	}
	fmt.Fprintf(io.Err, "label weak: %d weak labels (label_source weak) on %d rules\n", len(weak), rules)
	return nil
}

// readWeakLabels reads the weak labels of datasets (source.WeakLabels);
// unreadable lines are printed and refused.
func readWeakLabels(paths []string, io IO) ([]datasets.WeakLabel, error) {
	weak, err := source.WeakLabels(paths, io.In, func(err error) { fmt.Fprintln(io.Err, err) })
	if err != nil {
		return nil, usageError{err}
	}
	return weak, nil
}

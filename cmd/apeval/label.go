package main

import (
	"context"
	"encoding/json"
	"fmt"
	goio "io"
	"slices"
	"strconv"

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
		Long: `Imported logs and recorded calls carry no labels. apeval label picks the
(case, rule) pairs whose labels decide the most (queue), lets people label them
one key at a time in a local page (serve), and checks how well they agree
(agreement). Give the labels to run, report, gate or compare with --labels:
every figure is then weighted by the design that chose the pairs, so its
interval stays honest. The walkthrough is docs/labeling.md.`,
		Example: `  apeval run --judge recorded:recorded/ollama/qwen2.5:3b --judge recorded:recorded/ollama/qwen2.5:7b --out out/run1
  apeval label queue out/run1 --budget 300 --out queue.jsonl
  apeval label serve queue.jsonl --run out/run1 --labeler ana
  apeval report out/run1 --labels labels-ana.jsonl`,
	}
	cmd.AddCommand(newLabelQueueCmd(io, nil), newLabelServeCmd(io, nil), newLabelAgreementCmd(io, nil), newLabelWeakCmd(io, nil), newLabelCorrectCmd(io, nil))
	return cmd
}

type labelQueueOptions struct {
	Weak    []string // datasets whose weak labels stratify too
	Rules   []string
	Judges  []string
	Budget  int
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
		Long: `Reads a run directory and writes the (case, rule) pairs to label, one
apeval.labels/v1 line each, in the order to label them:

  {"schema":"apeval.labels/v1","case_id":"…","rule_id":"…",
   "stratum":"A:match B:no_match","stratum_size":412,"order":17}

Strata: per rule, the unlabeled pairs in scope grouped by the chosen judges'
results (match, no_match, undecided; every judge of the run by default, A, B, …
in run order — the legend is printed on stderr). A strong, slow reference judge
run once on everything sharpens the strata. Pairs the dataset already labels
are the census: never queued, they count with weight 1.

Allocation: every stratum gets min(5, its size); the rest of --budget is split
evenly across rules and, within a rule, by Neyman allocation (n_h ∝ N_h·S_h with
a prior S_h that is largest where the judges disagree). Order: seeded random
within a stratum, strata interleaved so that any prefix of the queue is itself
a stratified random sample: labelers may stop after any item. --overlap marks
a seeded share of the items that every labeler labels (for agreement).`,
		Example: `  apeval label queue out/run1 --budget 300 --out queue.jsonl
  apeval label queue out/run1 --rule irreversible-delete --judge ollama/qwen2.5:7b --budget 100 --seed 7 --out q.jsonl`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("label queue takes one run directory")
			}
			if o.Budget < 1 {
				return usagef("--budget N is required (the number of pairs to queue), got %d", o.Budget)
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
	f.Uint64Var(&o.Seed, "seed", 1, "seed of the random order")
	f.Float64Var(&o.Overlap, "overlap", 0.1, "share of the queue every labeler labels, for agreement")
	f.StringVarP(&o.Out, "out", "o", "", "queue file, written atomically (default: stdout)")
	f.StringArrayVar(&o.Weak, "weak-labels", nil, "dataset whose weak labels (user overrides) stratify too, as the letter W: strata are then (judges' results × weak label) (repeatable)")
	return cmd
}

// runLabelQueue is `apeval label queue` with checked options.
func runLabelQueue(_ context.Context, o *labelQueueOptions, io IO) error {
	dir := o.Dir
	t, _, err := evaluation.ReadPairs(dir, o.Judges, o.Rules)
	if err != nil {
		return err
	}
	pairs, census := t.QueuePairs()
	if len(pairs) == 0 {
		return usagef("%s: no unlabeled pair in scope to queue", dir)
	}
	letters := metrics.QueueLetters(len(t.Judges))
	judgeNames := t.Judges
	if len(o.Weak) > 0 {
		// The weak label is one more result per pair: W:match, W:no_match
		// or W:undecided (no weak label).
		weak, err := readWeakLabels(o.Weak, io)
		if err != nil {
			return err
		}
		metrics.AddWeakResults(pairs, datasets.WeakLabelMap(weak))
		letters = append(letters, metrics.WeakLetter)
		judgeNames = append(slices.Clone(judgeNames), "weak labels (label_source weak; "+strconv.Itoa(len(weak))+" in the datasets)")
	}
	q, err := metrics.BuildQueue(pairs, metrics.QueueConfig{Budget: o.Budget, Seed: o.Seed, Letters: letters, Overlap: o.Overlap})
	if err != nil {
		return usageError{err}
	}
	lines := q.Lines()
	if err := outfile.Write(o.Out, io.Out, func(w goio.Writer) error { return datasets.WriteSampleLabels(w, lines) }); err != nil {
		return err
	}
	return reports.WriteQueueSummary(io.Err, q, letters, judgeNames, census, len(pairs), outfile.Dest(o.Out))
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
		Long: `Reads labels files (apeval.labels/v1, one or more people) and gives, per rule,
the agreement between people on the pairs several of them labeled (skips left
out; a person's last label of a pair counts): Cohen's kappa for two labelers,
Fleiss' kappa for more, with a 95% bootstrap interval over pairs (2,000
resamples, seeded). With --run, each judge of the run is compared with the
people (Cohen's kappa between the judge's result and the first label by time),
and a warning is printed when people agree less with each other than a judge
agrees with them: then the labels, not the judge, are the problem.
Weak labels (lines with "label_source":"weak", from apeval label weak) are never
counted among the people: they get their own row, "weak labels vs people", and
with --run each judge is also compared with them ("<judge> vs weak labels").`,
		Example: `  apeval label agreement labels-ana.jsonl labels-ben.jsonl
  apeval label agreement --run out/run1 --json labels-*.jsonl`,
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
	all, err := datasets.ReadSampleLabels(o.Files, false)
	if err != nil {
		return usageError{err}
	}
	var t *metrics.PairTable
	if o.Run != "" {
		if t, _, err = evaluation.ReadPairs(o.Run, nil, nil); err != nil {
			return err
		}
	}
	rep, err := metrics.AgreementOf(all, t, 0.95)
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
		Long: `Writes the weak labels of a dataset (weak_labels: what users did about the
agent's own gate, imported by apeval datasets import) as apeval.labels/v1 lines
with "label_source":"weak" and labeler "weak". They are a signal, not ground
truth: run, report, gate and compare refuse them in --labels. apeval label
agreement compares them with the people's labels ("weak labels vs people", a
kappa with its interval), which estimates how often they are wrong; apeval label
queue --weak-labels stratifies the pairs to label on (judges' results × weak
label), so a human slice covers every combination.`,
		Example: `  apeval label weak cases.jsonl --out weak.jsonl
  apeval label agreement labels-ana.jsonl weak.jsonl`,
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

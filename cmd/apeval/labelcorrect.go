package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/metrics"
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
		Long: `Puts each judge's precision and recall on the weak labels (users' overrides of
the agent's own gate, a signal, not ground truth) beside the same figures
corrected from a slice people labeled, best drawn with apeval label queue
RUNDIR --weak-labels DATASET, so its strata are (judges' results × weak
label). In each stratum the people's labels estimate how often the weak label
is wrong there; the corrected figures weight each person's label by its
stratum (N_h / n_h), sessions as clusters within strata, and their intervals
carry the uncertainty of those estimated error rates (docs/statistics.md,
"Weak labels corrected from a human slice"). A slice drawn without
--weak-labels is post-stratified: each of its strata is split by weak label
(the strata are recomputed over the run's judges, or the --judge list the
queue was drawn with), each cell weighted by its pairs in the run.

The weak labels come from --weak-labels DATASET (the cases' weak_labels), or
from RUNDIR itself when it was made with run --weak-labels. A rule whose slice
leaves pairs in strata nobody labeled, or a stratum with fewer than 2 labels,
gets its corrected figures N/A with the reason; labels whose strata are not
this run's (other judges) are exit 2.`,
		Example: `  apeval label queue runs/pilot --weak-labels cases.jsonl --budget 200 --out queue.jsonl
  apeval label serve queue.jsonl --run runs/pilot --labeler ana --labels labels-ana.jsonl
  apeval label correct runs/pilot --labels labels-ana.jsonl --weak-labels cases.jsonl`,
		Args: cobra.ExactArgs(1),
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
	t, info, err := readPairs(o.Dir, o.Judges, o.Rules)
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
		weak = make(map[[2]string]datasets.Label, len(ws))
		for _, w := range ws {
			weak[[2]string{w.CaseID, w.RuleID}] = w.Label
		}
	}
	lines, err := datasets.ReadSampleLabels(o.Labels, false)
	if err != nil {
		return usageError{err}
	}
	for _, l := range lines {
		if l.LabelSource == datasets.LabelSourceWeak {
			return usagef("%s: label_source: weak labels cannot correct weak labels; --labels takes people's labels of a slice drawn with apeval label queue --weak-labels", l.Source)
		}
	}
	labels, err := metrics.ResolveSampleLabels(lines)
	if err != nil {
		return usageError{err}
	}
	missing := 0
	for _, l := range labels {
		if t.Row(l.CaseID, l.RuleID) == nil {
			missing++
		}
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
		return writeCorrectionJSON(io, rep, len(labels), missing)
	}
	return writeCorrectionTables(io, rep, len(labels), missing)
}

// correctionLabelSource names figures corrected from a human slice in
// machine output: they rest on people's labels weighted by strata of the
// weak labels.
const correctionLabelSource = "weak_corrected"

// ratioJSON is a design-weighted figure in JSON.
type ratioJSON struct {
	Estimate *float64 `json:"estimate"`
	Lo       *float64 `json:"lo"`
	Hi       *float64 `json:"hi"`
	NEff     float64  `json:"n_eff"`
	Units    int64    `json:"units"`
}

func ratioOf(r metrics.WeightedRatio) ratioJSON {
	return ratioJSON{Estimate: r.Estimate, Lo: r.Lo, Hi: r.Hi, NEff: r.NEff, Units: r.Units}
}

func writeCorrectionJSON(io IO, rep *metrics.WeakReport, labels, missing int) error {
	type row struct {
		Judge            string             `json:"judge"`
		RuleID           string             `json:"rule_id"`
		WeakPrecision    metrics.WeakFigure `json:"precision_on_weak_labels"`
		WeakRecall       metrics.WeakFigure `json:"recall_on_weak_labels"`
		Precision        ratioJSON          `json:"precision_corrected"`
		Recall           ratioJSON          `json:"recall_corrected"`
		WeakMatchWrong   ratioJSON          `json:"weak_match_wrong"`
		WeakNoMatchWrong ratioJSON          `json:"weak_no_match_wrong"`
		NA               string             `json:"na,omitempty"`
		Labels           int64              `json:"labels"`
		Dropped          int                `json:"labels_dropped"`
	}
	out := struct {
		LabelSource string                `json:"label_source"`
		Method      string                `json:"method"`
		Post        bool                  `json:"post_stratified"`
		Confidence  float64               `json:"confidence"`
		Labels      int                   `json:"labels"`
		NotInRun    int                   `json:"labels_not_in_run"`
		Rows        []row                 `json:"rows"`
		Strata      []metrics.WeakStratum `json:"strata"`
	}{LabelSource: correctionLabelSource, Method: methodOf(rep), Post: rep.PostStratified, Confidence: rep.Confidence, Labels: labels, NotInRun: missing, Strata: rep.Strata}
	for _, r := range rep.Rows {
		out.Rows = append(out.Rows, row{r.Judge, r.RuleID, r.WeakPrecision, r.WeakRecall, ratioOf(r.Precision), ratioOf(r.Recall),
			ratioOf(r.WeakMatchWrong), ratioOf(r.WeakNoMatchWrong), r.NA, r.Labels, r.Dropped})
	}
	if out.Strata == nil {
		out.Strata = []metrics.WeakStratum{}
	}
	enc := json.NewEncoder(io.Out)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// correctionMethod says how the corrected intervals are computed.
const correctionMethod = "design-weighted on people's labels of a slice stratified on (judges' results × weak label), sessions as clusters within strata (linearized, Wilson at the effective size)"

// postMethod is correctionMethod for a slice drawn without the weak label.
const postMethod = "design-weighted on people's labels of a slice stratified on the judges' results, post-stratified by weak label (each cell weighted by its pairs in the run), sessions as clusters within cells (linearized, Wilson at the effective size)"

func methodOf(rep *metrics.WeakReport) string {
	if rep.PostStratified {
		return postMethod
	}
	return correctionMethod
}

func writeCorrectionTables(io IO, rep *metrics.WeakReport, labels, missing int) error {
	pct := fmt.Sprintf("%g%%", rep.Confidence*100)
	fmt.Fprintf(io.Out, "Figures on weak labels (users' overrides, a signal, not ground truth) corrected from %d people's labels: %s.\n\n", labels, methodOf(rep))
	tw := tabwriter.NewWriter(io.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "judge\trule\tprecision on weak labels\tprecision corrected [%s]\trecall on weak labels\trecall corrected [%s]\tweak match wrong\tweak no_match wrong\tlabels\n", pct, pct)
	var na []string
	for _, r := range rep.Rows {
		p, rc := ciText(r.Precision), ciText(r.Recall)
		if r.NA != "" {
			p, rc = "N/A", "N/A"
			na = append(na, fmt.Sprintf("%s, rule %s: corrected figures N/A: %s", r.Judge, r.RuleID, r.NA))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\n", r.Judge, r.RuleID, weakText(r.WeakPrecision), p,
			weakText(r.WeakRecall), rc, ciText(r.WeakMatchWrong), ciText(r.WeakNoMatchWrong), r.Labels)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, n := range na {
		fmt.Fprintln(io.Out, n)
	}
	if missing > 0 {
		fmt.Fprintf(io.Out, "%d of the labels name pairs this run does not have in scope and are left out.\n", missing)
	}
	fmt.Fprintf(io.Out, "\nWeak labels' error per stratum (people's label differs from the weak label; W:undecided: share of people's match labels), %s interval, sessions as clusters:\n", pct)
	tw = tabwriter.NewWriter(io.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "rule\tstratum\tpairs\tlabeled\tdisagree\trate")
	for _, s := range rep.Strata {
		r := metrics.WeightedRatio{Estimate: s.Rate, Lo: s.RateLo, Hi: s.RateHi}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%s\n", s.RuleID, s.Stratum, s.Size, s.Labeled, s.Disagree, ciText(r))
	}
	return tw.Flush()
}

// weakText is a figure on weak labels: its value and counts, no interval.
func weakText(f metrics.WeakFigure) string {
	if f.Value == nil {
		return "N/A (0 weak)"
	}
	return fmt.Sprintf("%.3f (%d/%d weak)", *f.Value, f.Num, f.Den)
}

// ciText is an estimate with its interval, "N/A" without one.
func ciText(r metrics.WeightedRatio) string {
	if r.Estimate == nil {
		return "N/A"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%.3f", *r.Estimate)
	if r.Lo != nil && r.Hi != nil {
		fmt.Fprintf(&b, " [%.3f, %.3f]", *r.Lo, *r.Hi)
	}
	return b.String()
}

package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/apeval/apeval/datasets/source"
	"github.com/apeval/apeval/internal/config"
	"github.com/apeval/apeval/reports"
	"github.com/apeval/apeval/reports/evaluation"
)

type compareOptions struct {
	evalOptions
	Candidate string
	Out       string
	// Comment and ReportURL: --comment prints the pull-request comment
	// (reports.WriteComment), with a link to the uploaded report.html.
	Comment   bool
	ReportURL string
	// DiffURL links the comment's "what changes" block to an uploaded
	// diff.html.
	DiffURL string
	// Marker is the --config path the comment's hidden marker names.
	Marker string
	Dirs   []string // the run directories (arguments)
	// WithoutHookRewritten leaves out the cases auto mode judged on an
	// input a PreToolUse hook changed (evaluation.Spec).
	WithoutHookRewritten bool
}

// newCompareCmd is `apeval compare`; its RunE resolves the options and
// hands them to runF (runCompare unless a test passes its own).
func newCompareCmd(io IO, runF func(context.Context, *compareOptions, IO) error) *cobra.Command {
	if runF == nil {
		runF = runCompare
	}
	o := &compareOptions{}
	cmd := &cobra.Command{
		Use:   "compare A [B]",
		Short: "Compare a candidate judge with a baseline: deltas, paired session tests, fire-rate drift",
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.resolve(cmd, args); err != nil {
				return err
			}
			return runF(cmd.Context(), o, io)
		},
	}
	o.register(cmd, true)
	// compare prints the comparison, not a run's summary.json.
	cmd.Flags().Lookup("json").Usage = "print the comparison as JSON (every figure's Δ, interval, p-value, test and n; the candidate's verdict) instead of tables (same as --format json)"
	// compare's --baseline chooses the baseline judge itself, not only
	// the one fire-rate drift is measured against.
	cmd.Flags().Lookup("baseline").Usage = "baseline judge (identity or unique prefix) when run A holds several; with one run directory, default: the run's own --baseline (stderr names it; a run made without one needs this flag)"
	o.registerBy(cmd)
	cmd.Flags().StringVar(&o.Candidate, "candidate", "", "candidate judge (identity or unique prefix) when a run holds several")
	cmd.Flags().StringVar(&o.Out, "out", "", "also write compare.parquet (one row per rule × figure) into this directory")
	cmd.Flags().BoolVar(&o.Comment, "comment", false, "print a pull-request comment (Markdown, headed by <!-- apeval:CONFIG -->, at most 65,536 characters)")
	cmd.Flags().StringVar(&o.ReportURL, "report-url", "", "with --comment: link the comment's report.html to this URL (the uploaded run directory)")
	cmd.Flags().BoolVar(&o.WithoutHookRewritten, "without-hook-rewritten", false, "against recorded/claude-auto-mode@…: leave out the cases auto mode judged on an input a PreToolUse hook changed (provenance.hook_updated_input)")
	cmd.Flags().StringVar(&o.DiffURL, "diff-url", "", "with --comment: link the \"what changes\" block to this URL (the uploaded diff.html of apeval diff --out)")
	return cmd
}

// resolve completes compare's parsed flags with apeval.toml and checks
// them with the arguments; it reads no run directory.
func (o *compareOptions) resolve(cmd *cobra.Command, args []string) error {
	if err := o.applyConfig(cmd); err != nil {
		return err
	}
	if len(args) < 1 || len(args) > 2 {
		return usagef("compare takes two run directories, or one")
	}
	if o.Comment {
		switch {
		case o.JSON || (o.Format != "" && o.Format != string(reports.FormatMarkdown)):
			return usagef("--comment prints Markdown: leave out --format, or give --format markdown")
		}
		o.Format = string(reports.FormatMarkdown)
		if f := cmd.Flag("config"); f != nil {
			o.Marker = config.Marker(f.Value.String())
		} else {
			o.Marker = config.Marker("")
		}
	}
	if o.ReportURL != "" && !o.Comment {
		return usagef("--report-url goes with --comment")
	}
	if o.DiffURL != "" && !o.Comment {
		return usagef("--diff-url goes with --comment")
	}
	o.Dirs = args
	return o.validate()
}

// runCompare is `apeval compare` with resolved options.
func runCompare(ctx context.Context, o *compareOptions, io IO) error {
	dirs, done, err := fetchRunDirs(ctx, o.Dirs)
	if err != nil {
		return err
	}
	defer done()
	rs, err := openRuns(dirs)
	if err != nil {
		return err
	}
	infos := rs.Infos
	if len(dirs) == 1 {
		if err := runBaseline("compare", o.Dirs[0], infos[0], &o.Baseline, io.Err); err != nil {
			return err
		}
	}
	pair, err := reports.PairJudges(dirs, infos, o.Baseline, o.Candidate)
	if err != nil {
		return usageError{err}
	}
	crit, from, err := o.criteria(rs, io.Err)
	if err != nil {
		return err
	}
	lab, err := newLabelSink(o.Labels, infos[0].LabelSource)
	if err != nil {
		return err
	}
	warnLabelsLeftOut(rs, o.Labels, io.Err)
	c, err := rs.Compare(evaluation.Spec{Criteria: crit, CriteriaFrom: from, Slices: o.By, Inconclusive: o.Inconclusive, Labels: lab, WithoutHookRewritten: o.WithoutHookRewritten}, pair)
	if err != nil {
		return usageError{err}
	}
	rep, cmp, banner := c.Report, c.Cmp, c.Banner
	sum := rep.Summary
	defer func() { _ = sum.Release() }()
	if o.Out != "" {
		if err := reports.WriteComparisonFile(o.Out, cmp, sum.Thresholds.Confidence, infos[0].LabelSource); err != nil {
			return err
		}
	}
	v := c.Verdict
	rep.Exit = reports.VerdictExit(v, o.Inconclusive)
	rep.Color, rep.Width = useColor(io.Out, io), termWidth(io.Out, io)
	if o.Comment {
		// The comment describes the head run (B, or the single run), leads
		// with its own verdict line and says a filtered run is filtered in
		// its facts; nothing may come before the marker. What changes, call
		// by call: apeval diff's summary, or why a diff is not shown.
		c.ForComment(infos)
		changes := evaluation.Changes(dirs, o.Baseline, o.Candidate, o.DiffURL, source.URLs)
		// Nothing may come before the marker on stdout: what --labels
		// matched goes to stderr, as without --comment.
		rep.WriteLabelNotes(io.Err)
		if err := rep.WriteComment(io.Out, cmp, reports.CommentOptions{Marker: o.Marker, ReportURL: o.ReportURL, Banner: banner, Changes: changes}); err != nil {
			return err
		}
		if err := reports.CheckFigures(sum); err != nil {
			return err
		}
		return exitCodeError{rep.Exit}
	}
	// A filtered run is never mistaken for a full one, here either.
	view := reports.CompareView{Cmp: cmp, Dirs: dirs, Infos: infos, Banner: banner, Baseline: pair.Baseline, Candidate: pair.Candidate, Verdict: v}
	if err := rep.WriteCompare(io.Out, io.Err, outputFormat(o.Format, io.Out), view); err != nil {
		return err
	}
	return exitCodeError{rep.Exit}
}

package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/outfile"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports"
)

func newDatasetsCmd(io IO) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "datasets",
		Short: "Validate, describe and prepare case datasets (apeval.case/v1 JSONL)",
	}
	cmd.AddCommand(newValidateCmd(io, nil), newStatsCmd(io, nil), newSampleCmd(io, nil), newDisagreementsCmd(io, nil), newLabelImportCmd(io, nil), newImportCmd(io, nil))
	return cmd
}

// validateOptions are the options of `apeval datasets validate`.
type validateOptions struct {
	Policy string
	JSON   bool
	All    bool     // list every invalid line, not the first datasets.MaxListedInvalid
	Files  []string // the arguments; none: the embedded sample
}

// newValidateCmd is `apeval datasets validate`; runF is runValidate unless
// a test passes its own.
func newValidateCmd(io IO, runF func(context.Context, *validateOptions, IO) error) *cobra.Command {
	if runF == nil {
		runF = runValidate
	}
	o := &validateOptions{}
	cmd := &cobra.Command{
		Use:   "validate [FILE...]",
		Short: "Check dataset files and list the bad lines as file:line: field: message",
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Files = args
			return runF(cmd.Context(), o, io)
		},
	}
	cmd.Flags().StringVar(&o.Policy, "policy", "", "policy whose [categories] table classifies tools; labels naming a rule it lacks are reported")
	cmd.Flags().BoolVar(&o.JSON, "json", false, "print {valid, invalid, errors} as JSON, every invalid line in errors (with --policy also unknown_label_rules)")
	cmd.Flags().BoolVar(&o.All, "all", false, fmt.Sprintf("list every invalid line (default: the first %d, then the rest counted by kind)", datasets.MaxListedInvalid))
	return cmd
}

// runValidate is `apeval datasets validate` with parsed options.
func runValidate(ctx context.Context, o *validateOptions, io IO) error {
	src, err := openSource(o.Files, io.In)
	if err != nil {
		return err
	}
	defer src.Cleanup()
	src.Done = ctx.Done()
	pol, _, err := loadPolicy(o.Policy)
	if err != nil {
		return err
	}
	r := src.Reader(pol)
	defer r.Close()
	var stray *datasets.StrayLabels
	if o.Policy != "" {
		stray = datasets.NewStrayLabels(pol.RuleIDs())
	}
	listed := 0
	v, err := datasets.Validate(r, stray, func(msg string) {
		if !o.JSON && (o.All || listed < datasets.MaxListedInvalid) {
			listed++
			fmt.Fprintln(io.Out, msg)
		}
	})
	if err != nil {
		return usageError{err}
	}
	if o.JSON {
		if err := v.WriteJSON(io.Out, stray); err != nil {
			return err
		}
	} else {
		datasets.WriteRest(io.Out, "", "--all lists every line", v.KindsAfter(listed))
		fmt.Fprintf(io.Err, "%d valid, %d invalid\n", v.Valid, v.Invalid)
	}
	if msg := stray.Message(); msg != "" {
		fmt.Fprintf(io.Err, "apeval: warning: %s\n", msg)
	}
	if v.Invalid > 0 {
		return exitCodeError{exitUsage}
	}
	if v.Valid == 0 {
		// validate accepts what run accepts, and run refuses a dataset
		// without a case (an empty file, a failed export).
		return usagef("the dataset has no cases: apeval run refuses it")
	}
	return nil
}

// statsOptions are the options of `apeval datasets stats`.
type statsOptions struct {
	Policy          string
	Format          string
	JSON            bool
	ByTool          bool
	PermissionsFrom []string
	Files           []string // the arguments; none: the embedded sample
}

// newStatsCmd is `apeval datasets stats`; runF is runStats unless a test
// passes its own.
func newStatsCmd(io IO, runF func(context.Context, *statsOptions, IO) error) *cobra.Command {
	if runF == nil {
		runF = runStats
	}
	o := &statsOptions{}
	cmd := &cobra.Command{
		Use:   "stats [FILE...]",
		Short: "Describe a dataset: cases, sessions, categories, tools, labels, recorded judges",
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.JSON {
				o.Format = "json"
			}
			o.Files = args
			return runF(cmd.Context(), o, io)
		},
	}
	cmd.Flags().StringVar(&o.Policy, "policy", "", "policy whose [categories] table classifies tools")
	formatVar(cmd.Flags(), &o.Format, "table, tsv, csv, markdown or json (default: table on a terminal, tsv when piped)")
	cmd.Flags().BoolVar(&o.JSON, "json", false, "same as --format json")
	cmd.Flags().StringArrayVar(&o.PermissionsFrom, "permissions-from", nil, "count what an agent's own permission rules (KIND:PATH; claude-code, codex, opencode, gemini) would allow, ask or deny; repeatable")
	cmd.Flags().BoolVar(&o.ByTool, "by-tool", false, "list every tool name with its cases, category and where the category came from (table, heuristic, policy, record)")
	return cmd
}

// runStats is `apeval datasets stats` with parsed options.
func runStats(ctx context.Context, o *statsOptions, io IO) error {
	src, err := openSource(o.Files, io.In)
	if err != nil {
		return err
	}
	defer src.Cleanup()
	src.Done = ctx.Done()
	pol, _, err := loadPolicy(o.Policy)
	if err != nil {
		return err
	}
	if err := replay.AddPermissionImports(pol, o.PermissionsFrom); err != nil {
		return usageError{err}
	}
	if o.ByTool {
		rows, err := src.Tools(pol)
		if err != nil {
			return usageError{err}
		}
		return reports.RenderByTool(io.Out, rows, outputFormat(o.Format, io.Out))
	}
	st, err := scanStats(src, pol, true)
	if err != nil {
		return err
	}
	return reports.RenderStats(io.Out, st, outputFormat(o.Format, io.Out))
}

// sampleOptions are the options of `apeval datasets sample`.
type sampleOptions struct {
	Out       string
	Unlabeled bool
}

// newSampleCmd is `apeval datasets sample`; runF is runSample unless a test
// passes its own.
func newSampleCmd(io IO, runF func(context.Context, *sampleOptions, IO) error) *cobra.Command {
	if runF == nil {
		runF = runSample
	}
	o := &sampleOptions{}
	cmd := &cobra.Command{
		Use:   "sample",
		Short: "Write the embedded sample dataset and policy, to start from",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runF(cmd.Context(), o, io)
		},
	}
	cmd.Flags().StringVarP(&o.Out, "out", "o", ".", "directory to write cases.jsonl and policy.toml into")
	cmd.Flags().BoolVar(&o.Unlabeled, "unlabeled", false, "empty every case's labels (the sample as unlabeled recordings)")
	return cmd
}

// runSample is `apeval datasets sample` with parsed options.
func runSample(_ context.Context, o *sampleOptions, io IO) error {
	files, err := datasets.SampleFiles(o.Unlabeled, "")
	if err != nil {
		return err
	}
	paths, err := outfile.Files(o.Out, files, true)
	for _, p := range paths {
		fmt.Fprintln(io.Out, p)
	}
	return err
}

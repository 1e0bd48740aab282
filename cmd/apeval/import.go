package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/datasets/importers"
	"github.com/apeval/apeval/internal/outfile"
	"github.com/apeval/apeval/reports"
)

// importOptions are the options of `apeval datasets import`.
type importOptions struct {
	from, out, summary, ruleID, workspace, policy string
	noMask                                        bool
	sources                                       []string // the arguments
}

// newImportCmd is `apeval datasets import`; runF is runImport unless a
// test passes its own. --from is checked when the command line is parsed.
func newImportCmd(io IO, runF func(context.Context, *importOptions, IO) error) *cobra.Command {
	if runF == nil {
		runF = runImport
	}
	o := &importOptions{}
	cmd := &cobra.Command{
		Use:   "import [--from FORMAT] SOURCE...",
		Short: "Turn agent logs (Claude Code, Codex, Gemini CLI, OpenCode, OpenTelemetry, R-Judge, trajectory events) into cases",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.sources = args
			return runF(cmd.Context(), o, io)
		},
	}
	f := cmd.Flags()
	enumVar(f, &o.from, "from", importers.Auto, []string{"FORMAT"}, func(v string) error {
		if err := importers.CheckFormat(v); err != nil {
			return usageError{err}
		}
		return nil
	}, "source format: auto (told from the first records), "+strings.Join(importers.Formats(), ", "))
	f.StringVarP(&o.out, "out", "o", "-", "cases file to write (- for stdout)")
	f.StringVar(&o.summary, "summary", "", "write the per-source summary as JSON to this file")
	f.BoolVar(&o.noMask, "no-mask", false, "keep secrets in arguments and messages (masked by default)")
	f.StringVar(&o.ruleID, "rule-id", importers.DefaultRuleID, "rule ID that R-Judge labels are written under")
	f.StringVar(&o.workspace, "workspace", "", "workspace of trajectory events that name none")
	f.StringVar(&o.policy, "policy", "", "policy whose [categories] table classifies tools")
	return cmd
}

// runImport is `apeval datasets import` with parsed options.
func runImport(_ context.Context, o *importOptions, io IO) error {
	sources := o.sources
	opt := importers.Options{NoMask: o.noMask, RuleID: o.ruleID, Workspace: o.workspace, Stdin: io.In}
	if o.policy != "" {
		pol, _, err := loadPolicy(o.policy)
		if err != nil {
			return err
		}
		if len(pol.Categories) > 0 {
			opt.Categories = datasets.CategoryMap(pol.Categories)
		}
	}
	var sum *importers.Summary
	err := outfile.WriteCases(o.out, io.Out, func(emit func(*datasets.Case) error) error {
		var err error
		sum, err = importers.Import(o.from, sources, opt, emit, func(msg string) { fmt.Fprintln(io.Err, msg) })
		return err
	})
	if sum == nil {
		return usageError{err}
	}
	if sum.Detected != "" {
		fmt.Fprintf(io.Err, "datasets import: format %s (detected from %s; --from %s to choose it)\n", sum.Format, sum.Detected, sum.Format)
	}
	reports.WriteImportSummary(io.Err, sum)
	if o.summary != "" {
		if serr := outfile.JSON(o.summary, sum); serr != nil && err == nil {
			err = serr
		}
	}
	if err != nil {
		return usageError{err}
	}
	if sum.Errors > 0 {
		return exitCodeError{exitUsage}
	}
	return nil
}

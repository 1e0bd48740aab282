package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	goio "io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports"
)

func newDatasetsCmd(io IO) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "datasets",
		Short: "Validate, describe and prepare case datasets (apeval.case/v1 JSONL)",
	}
	cmd.AddCommand(newValidateCmd(io), newStatsCmd(io), newSampleCmd(io), newDisagreementsCmd(io), newLabelImportCmd(io), newImportCmd(io))
	return cmd
}

func newValidateCmd(io IO) *cobra.Command {
	var policy string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "validate [FILE...]",
		Short: "Check dataset files and list every bad line as file:line: field: message",
		Long: `Reads every line of the files (- for stdin; the embedded sample when no file is
given) and reports each invalid line as file:line: field: message. Exit code 0
when every line is valid, 2 otherwise.`,
		Example: `  apeval datasets validate cases.jsonl
  apeval datasets validate --policy policy.toml a.jsonl b.jsonl
  apeval datasets validate cases.jsonl.gz cases.jsonl.zst
  zcat cases.jsonl.gz | apeval datasets validate -`,
		RunE: func(cmd *cobra.Command, args []string) error {
			src, err := openSource(args, io.In)
			if err != nil {
				return err
			}
			defer src.cleanup()
			src.done = cmd.Context().Done()
			pol, _, err := loadPolicy(policy)
			if err != nil {
				return err
			}
			r := src.reader(pol)
			defer r.Close()
			var stray *strayLabels
			if policy != "" {
				stray = newStrayLabels(pol)
			}
			var valid, invalid int64
			var errs []string
			var order datasets.SeqOrder // the check run applies, so validate accepts what run accepts
			for r.Scan() {
				rec := r.Record()
				if rec.Err == nil {
					rec.Err = order.Check(rec.Case)
				}
				if rec.Late {
					valid-- // a duplicate found at the end: its case was counted valid
				}
				if rec.Err != nil {
					invalid++
					errs = append(errs, rec.Err.Error())
					if !asJSON {
						fmt.Fprintln(io.Out, rec.Err)
					}
					continue
				}
				valid++
				if stray != nil {
					stray.check(rec.Case)
				}
			}
			if err := r.Err(); err != nil {
				return usageError{err}
			}
			if asJSON {
				if errs == nil {
					errs = []string{}
				}
				out := map[string]any{"valid": valid, "invalid": invalid, "errors": errs}
				if stray != nil {
					out["unknown_label_rules"] = append([]string{}, stray.ids()...)
				}
				enc := json.NewEncoder(io.Out)
				enc.SetIndent("", "  ")
				if err := enc.Encode(out); err != nil {
					return err
				}
			} else {
				fmt.Fprintf(io.Err, "%d valid, %d invalid\n", valid, invalid)
			}
			if msg := stray.messageOrEmpty(); msg != "" {
				fmt.Fprintf(io.Err, "apeval: warning: %s\n", msg)
			}
			if invalid > 0 {
				return exitCodeError{exitUsage}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&policy, "policy", "", "policy whose [categories] table classifies tools; labels naming a rule it lacks are reported")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print {valid, invalid, errors} as JSON (with --policy also unknown_label_rules)")
	return cmd
}

func newStatsCmd(io IO) *cobra.Command {
	var policy, format string
	var asJSON, byTool bool
	var permsFrom []string
	cmd := &cobra.Command{
		Use:   "stats [FILE...]",
		Short: "Describe a dataset: cases, sessions, categories, tools, labels, recorded judges",
		Example: `  apeval datasets stats cases.jsonl
  apeval datasets stats --json | jq .judges`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if asJSON {
				format = "json"
			}
			if err := parseFormat(format); err != nil {
				return err
			}
			src, err := openSource(args, io.In)
			if err != nil {
				return err
			}
			defer src.cleanup()
			src.done = cmd.Context().Done()
			pol, _, err := loadPolicy(policy)
			if err != nil {
				return err
			}
			if err := replay.AddPermissionImports(pol, permsFrom); err != nil {
				return usageError{err}
			}
			if byTool {
				return statsByTool(io, src, pol, format)
			}
			st, err := scanStats(src, pol, true)
			if err != nil {
				return err
			}
			return reports.RenderStats(io.Out, st, outputFormat(format, io.Out))
		},
	}
	cmd.Flags().StringVar(&policy, "policy", "", "policy whose [categories] table classifies tools")
	cmd.Flags().StringVar(&format, "format", "", "table, tsv, markdown or json (default: table on a terminal, tsv when piped)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "same as --format json")
	cmd.Flags().StringArrayVar(&permsFrom, "permissions-from", nil, "count what an agent's own permission rules (KIND:PATH; claude-code, codex, opencode, gemini) would allow, ask or deny; repeatable")
	cmd.Flags().BoolVar(&byTool, "by-tool", false, "list every tool name with its cases, category and where the category came from (table, heuristic, policy, record)")
	return cmd
}

func newSampleCmd(io IO) *cobra.Command {
	var dir string
	var unlabeled bool
	cmd := &cobra.Command{
		Use:   "sample",
		Short: "Write the embedded sample dataset and policy, to start from",
		Long: `Writes the embedded sample's cases.jsonl and policy.toml into --out. With
--unlabeled every case's labels are emptied ("labels": {}, every other field kept):
the sample as a team's imported logs look, to try apeval label on.`,
		Example: `  apeval datasets sample --out my-eval
  apeval run --dataset my-eval/cases.jsonl --policy my-eval/policy.toml
  apeval datasets sample --unlabeled --out to-label`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return usageError{err}
			}
			cases, err := goio.ReadAll(datasets.SampleCases())
			if err != nil {
				return err
			}
			if unlabeled {
				var out []byte
				for _, line := range bytes.SplitAfter(cases, []byte("\n")) {
					if len(bytes.TrimSpace(line)) == 0 {
						continue
					}
					l, err := datasets.WithoutLabels(bytes.TrimSpace(line))
					if err != nil {
						return err
					}
					out = append(append(out, l...), '\n')
				}
				cases = out
			}
			for name, data := range map[string][]byte{"cases.jsonl": cases, "policy.toml": datasets.SamplePolicy()} {
				p := filepath.Join(dir, name)
				if err := reports.WriteFileAtomic(p, func(w goio.Writer) error {
					_, err := w.Write(data)
					return err
				}); err != nil {
					return err
				}
				fmt.Fprintln(io.Out, p)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&dir, "out", "o", ".", "directory to write cases.jsonl and policy.toml into")
	cmd.Flags().BoolVar(&unlabeled, "unlabeled", false, "empty every case's labels (the sample as unlabeled recordings)")
	return cmd
}

// statsByTool prints every tool name with its category and its source.
func statsByTool(io IO, src *source, pol *replay.Policy, format string) error {
	r := src.reader(pol)
	defer r.Close()
	bt := datasets.NewByTool(datasets.CategoryMap(pol.Categories))
	for r.Scan() {
		rec := r.Record()
		if rec.Late {
			return lateDuplicate(rec.Err, "counted")
		}
		if rec.Case != nil {
			bt.Add(rec.Case)
		}
	}
	if err := r.Err(); err != nil {
		return usageError{err}
	}
	return reports.RenderByTool(io.Out, bt.Rows(), outputFormat(format, io.Out))
}

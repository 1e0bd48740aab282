package main

import (
	"context"
	"errors"
	"fmt"
	goio "io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/config"
	"github.com/apeval/apeval/reports/rundir"
)

// initConfig is the apeval.toml apeval init writes: the embedded sample's
// files with its two recorded judges, every key shown, live-judge options
// and prices as comments to fill in.
const initConfig = `# apeval.toml: the project file of an apeval evaluation.
# apeval run, replay, report, compare and gate read it from the working
# directory (or --config FILE); a flag on the command line overrides a key.
# Relative paths are relative to this file. Unknown keys are errors.
schema = "apeval.config/v1"

# Case files (JSONL, apeval.case/v1) and the policy (apeval.policy/v1).
datasets = ["cases.jsonl"]
policy = "policy.toml"
# Kill criteria; default: the policy's [kill_criteria] table.
# criteria = "criteria.toml"

# The judge candidates are compared with (enables fire_rate_change_max).
baseline = "recorded/ollama/qwen2.5:3b"

# Run directories; {run_id} and {date} (UTC, YYYY-MM-DD) are replaced.
out = "apeval-out/{run_id}"
concurrency = 4
timeout = "10s"
# Map INCONCLUSIVE (exit 3) to "pass" (exit 0) or "fail" (exit 1).
# inconclusive = "fail"

# The judges. The sample's two judges are synthetic recordings (see
# datasets/sample/README.md in the apeval repository): their figures are
# not model benchmarks. A live judge takes backend options and prices in
# currency units per million prompt (price_in) and completion (price_out)
# tokens, which give the judging cost per 1,000 tool calls:
#
# [[judge]]
# spec = "ollama:qwen2.5:3b"
# options = { num_ctx = 4096, keep_alive = "30m" }
# price_in = 0.0
# price_out = 0.0
#
# [[judge]]
# spec = "openai:gpt-4o-mini"
# price_in = 0.15
# price_out = 0.60

[[judge]]
spec = "recorded:ollama/qwen2.5:3b"

[[judge]]
spec = "recorded:ollama/qwen2.5:7b-instruct-q4_K_M"

# Filters applied to every run (iteration: rules, tags, limit or sample
# of whole sessions with a seed). Empty: the full dataset.
[filter]
# rules = ["irreversible-delete"]
# tags = ["ja"]
# limit = 20
# sample = 20
# seed = 1

# Named subsets, chosen with --slice NAME.
[slices.ja]
tags = ["ja"]

[slices.dangerous]
rules = ["irreversible-delete", "secret-exfiltration"]

[slices.quick]
sample = 30
seed = 1
`

// initOptions are the options of `apeval init`.
type initOptions struct {
	Force bool
	Dir   string // the argument, default "."
}

// newInitCmd is `apeval init`; runF is runInit unless a test passes its own.
func newInitCmd(io IO, runF func(context.Context, *initOptions, IO) error) *cobra.Command {
	if runF == nil {
		runF = runInit
	}
	o := &initOptions{}
	cmd := &cobra.Command{
		Use:   "init [DIR]",
		Short: "Start a project: write apeval.toml with the sample dataset and policy",
		Long: `Writes DIR/apeval.toml (default: the current directory) together with the
embedded sample's cases.jsonl and policy.toml to start from. apeval run,
replay, report, compare and gate then read apeval.toml when run in DIR.
An existing file is not overwritten without --force.`,
		Example: `  apeval init my-eval && cd my-eval && apeval run`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usagef("init takes at most one directory")
			}
			o.Dir = "."
			if len(args) == 1 {
				o.Dir = args[0]
			}
			return runF(cmd.Context(), o, io)
		},
	}
	cmd.Flags().BoolVar(&o.Force, "force", false, "overwrite existing files")
	return cmd
}

// runInit is `apeval init` with checked options.
func runInit(_ context.Context, o *initOptions, io IO) error {
	dir := o.Dir
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return usageError{err}
	}
	cases, err := goio.ReadAll(datasets.SampleCases())
	if err != nil {
		return err
	}
	files := []struct {
		name string
		data []byte
	}{
		{config.Name, []byte(initConfig)},
		{"cases.jsonl", cases},
		{"policy.toml", datasets.SamplePolicy()},
	}
	if !o.Force {
		for _, f := range files {
			p := filepath.Join(dir, f.name)
			if _, err := os.Stat(p); err == nil {
				return usagef("%s exists; pass --force to overwrite it", p)
			} else if !errors.Is(err, fs.ErrNotExist) {
				return usageError{err}
			}
		}
	}
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		if err := rundir.WriteFileAtomic(p, func(w goio.Writer) error {
			_, err := w.Write(f.data)
			return err
		}); err != nil {
			return usageError{err}
		}
		fmt.Fprintln(io.Out, p)
	}
	next := "apeval run"
	if dir != "." {
		next = "cd " + dir + " && apeval run"
	}
	fmt.Fprintf(io.Err, "apeval: next: %s (then edit apeval.toml: your dataset, policy and judges)\n", next)
	return nil
}

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
		{config.Name, datasets.SampleConfig()},
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

package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/config"
	"github.com/apeval/apeval/internal/outfile"
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
	files, err := datasets.SampleFiles(false, config.Name)
	if err != nil {
		return err
	}
	paths, err := outfile.Files(dir, files, o.Force)
	for _, p := range paths {
		fmt.Fprintln(io.Out, p)
	}
	if errors.Is(err, outfile.ErrExists) {
		return usagef("%v; pass --force to overwrite it", err)
	} else if err != nil {
		return usageError{err}
	}
	next := "apeval run"
	if dir != "." {
		next = "cd " + dir + " && apeval run"
	}
	fmt.Fprintf(io.Err, "apeval: next: %s (then edit apeval.toml: your dataset, policy and judges)\n", next)
	return nil
}

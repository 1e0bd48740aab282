package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/datasets/source"
	"github.com/apeval/apeval/reports/diff"
	"github.com/apeval/apeval/reports/evaluation"
	"github.com/apeval/apeval/reports/rundir"
)

type diffOptions struct {
	Baseline, Candidate string
	JSON                bool
	Out                 string
	Top                 int
	PageMax             int
	Datasets            []string
	Dirs                []string
}

// newDiffCmd is `apeval diff`: it parses, calls reports/diff, renders and
// maps the exit code.
func newDiffCmd(io IO, runF func(context.Context, *diffOptions, IO) error) *cobra.Command {
	if runF == nil {
		runF = runDiff
	}
	o := &diffOptions{}
	cmd := &cobra.Command{
		Use:   "diff BASE_RUN HEAD_RUN | diff RUN [--baseline J] [--candidate J]",
		Short: "What a new judge, prompt or policy changes, call by call: loosened, tightened, fixed, broken",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) < 1 || len(args) > 2 {
				return usagef("diff takes two run directories, or one")
			}
			if o.Top < 0 || o.PageMax < 0 {
				return usagef("--top and --page-max take a number ≥ 0")
			}
			o.Dirs = args
			return runF(cmd.Context(), o, io)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Baseline, "baseline", "", "base judge (identity or unique prefix) when the base run holds several; with one run directory, default: the run's --baseline")
	f.StringVar(&o.Candidate, "candidate", "", "head judge (identity or unique prefix) when the head run holds several")
	f.BoolVar(&o.JSON, "json", false, "print the diff's summary as JSON (counts, transitions, top loosened cases, first diverging call per session, policy rules)")
	f.StringVar(&o.Out, "out", "", "write diff.parquet and diff.html into this directory")
	f.IntVar(&o.Top, "top", 10, "how many loosened cases to list, and how many differing cases auto mode judged on a hook's input (0: none)")
	f.StringArrayVar(&o.Datasets, "dataset", nil, "the runs' dataset file(s), so diff.html shows each judge's input as it saw it (masked), and, when run.json's are not there unchanged, to find the cases auto mode judged on a hook-rewritten input; the embedded sample needs none")
	f.IntVar(&o.PageMax, "page-max", 200000, "at most this many differing cases in diff.html (the rest are in diff.parquet, and the page says how many; 0: none)")
	return cmd
}

// runDiff is `apeval diff` with parsed options.
func runDiff(ctx context.Context, o *diffOptions, io IO) error {
	dirs, done, err := fetchRunDirs(ctx, o.Dirs)
	if err != nil {
		return err
	}
	defer done()
	if len(dirs) == 1 && o.Baseline == "" {
		info, err := rundir.ReadRunInfo(dirs[0])
		if err != nil {
			return usagef("%s is not a readable run directory: %v", o.Dirs[0], err)
		}
		if err := runBaseline("a diff", o.Dirs[0], info, &o.Baseline, io.Err); err != nil {
			return err
		}
	}
	in, err := diff.Open(dirs, o.Baseline, o.Candidate)
	if err != nil {
		return diffError(err)
	}
	opts := diff.Options{Top: o.Top, Out: o.Out, PageMax: o.PageMax}
	// --top 0 and --page-max 0 list none (diff.Options takes 0 for its
	// default, a negative number for none).
	if o.Top == 0 {
		opts.Top = -1
	}
	if o.PageMax == 0 {
		opts.PageMax = -1
	}
	// Auto mode judged what a PreToolUse hook made of a call; the summary
	// marks those cases, read from the datasets run.json names as compare
	// does, else from --dataset.
	if err := hookRewritten(&opts, in, o.Datasets, io); err != nil {
		return err
	}
	if o.Out != "" {
		if opts.Cases, err = diffCases(o.Datasets, in.Infos, io); err != nil {
			return err
		}
	}
	res, err := diff.Diff(in, opts)
	if err != nil {
		return diffError(err)
	}
	if o.JSON {
		if b := res.Summary.Overlap.Banner(); b != "" {
			fmt.Fprintf(io.Err, "apeval: %s\n", b)
		}
		if err := res.Summary.WriteJSON(io.Out); err != nil {
			return err
		}
	} else if err := res.Summary.WriteText(io.Out); err != nil {
		return err
	}
	if o.Out != "" {
		fmt.Fprintf(io.Err, "apeval: diff.parquet and diff.html in %s\n", o.Out)
	}
	return nil
}

// diffCases reads the dataset the runs replayed (--dataset, or the
// embedded sample when both runs replayed it) into memory, line by line,
// and decodes a case when diff.html needs its judge input; nil without one.
func diffCases(paths []string, infos []rundir.RunInfo, io IO) (func(string) (*datasets.Case, error), error) {
	paths, stdin, ok := evaluation.ReplayedInput(paths, io.In, infos)
	if !ok {
		return nil, nil
	}
	lookup, err := datasets.CaseIndex(paths, stdin, source.URLs)
	if err != nil {
		return nil, usageError{err}
	}
	return lookup, nil
}

// hookRewritten sets what opts needs to mark the cases auto mode judged on
// an input a PreToolUse hook changed: from the datasets run.json names, or,
// when those are not available unchanged, from the --dataset files given.
func hookRewritten(opts *diff.Options, in *diff.Input, paths []string, io IO) error {
	vendor, ids, note := evaluation.HookRewritten(in.Infos, in.Base, in.Head, source.URLs)
	opts.AutoMode = vendor
	switch {
	case vendor == "":
	case note == "":
		opts.HookRewritten = func(id string) bool { return ids[id] }
	case len(paths) > 0:
		lookup := opts.Cases
		if lookup == nil {
			var err error
			if lookup, err = diffCases(paths, in.Infos, io); err != nil {
				return err
			}
		}
		opts.HookRewritten = func(id string) bool {
			c, err := lookup(id)
			return err == nil && c != nil && evaluation.HookRewrittenFor(vendor, c)
		}
	default:
		opts.HookNote = note + " (--dataset FILE names it)"
	}
	return nil
}

func diffError(err error) error {
	var ie *diff.InputError
	if errors.As(err, &ie) {
		return usageError{err}
	}
	return err
}

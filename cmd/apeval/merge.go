package main

import (
	"context"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/apeval/apeval/datasets/source"
	"github.com/apeval/apeval/internal/objstore"
	"github.com/apeval/apeval/internal/runplan"
	"github.com/apeval/apeval/reports/evaluation"
	"github.com/apeval/apeval/reports/rundir"
)

// mergeOptions are the options of `apeval merge`. merge reads no
// apeval.toml: the shards' run.json hold their settings.
type mergeOptions struct {
	evalOptions
	Out          string
	OutLayout    string
	RunID        string
	AllowPartial bool
	Dirs         []string // the shard run directories (arguments)
}

// newMergeCmd is `apeval merge`; its RunE checks the options and hands
// them to runF (runMerge unless a test passes its own).
func newMergeCmd(io IO, runF func(context.Context, *mergeOptions, IO) error) *cobra.Command {
	if runF == nil {
		runF = runMerge
	}
	o := &mergeOptions{}
	cmd := &cobra.Command{
		Use:   "merge DIR...",
		Short: "Recombine the shard runs of one evaluation into a single run directory",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("merge needs the shard run directories")
			}
			if o.Out == "" {
				return usagef("merge needs --out DIR")
			}
			o.Dirs = args
			if err := o.validate(); err != nil {
				return err
			}
			return runF(cmd.Context(), o, io)
		},
	}
	cmd.Flags().StringVarP(&o.Out, "out", "o", "", "merged run directory (required)")
	layoutVar(cmd.Flags(), &o.OutLayout)
	cmd.Flags().StringVar(&o.RunID, "run-id", "", "run ID of the merged run (default: new)")
	cmd.Flags().BoolVar(&o.AllowPartial, "allow-partial", false, "merge even when some shards of 1..N are missing")
	o.register(cmd, true)
	return cmd
}

// runMerge is `apeval merge` with checked options.
func runMerge(ctx context.Context, o *mergeOptions, io IO) (err error) {
	out, runID := o.Out, o.RunID
	if err := runplan.CheckRunID(runID); err != nil {
		return usageError{err}
	}
	args, done, err := fetchRunDirs(ctx, o.Dirs)
	if err != nil {
		return err
	}
	defer done()
	infos, err := evaluation.CheckShards(args, o.AllowPartial)
	if err != nil {
		return usageError{err}
	}
	rs := &evaluation.RunSet{Dirs: args, Infos: infos, Describe: evaluation.DescribeFrom(source.URLs)}
	spec, err := o.spec(rs, io.Err)
	if err != nil {
		return err
	}
	if runID == "" {
		runID = runplan.NewRunID(time.Now())
	}
	layout, err := rundir.ParseLayout(o.OutLayout)
	if err != nil {
		return usagef("--out-layout: %v", err)
	}
	remote := ""
	if objstore.IsURL(out) { // written locally, then uploaded
		if remote, err = bucketRunDir(out, layout, runID); err != nil {
			return err
		}
		tmp, finish, err := stageBucket(ctx, remote, io, false)
		if err != nil {
			return err
		}
		out = filepath.Join(tmp, "run")
		defer func() { err = finish(out, err) }()
	}
	out = runplan.RunDirFor(out, layout, runID)
	if remote != "" {
		var flush func()
		io, flush = bucketIO(io, out, remote)
		defer flush()
	}
	rep, w, err := rs.Merge(spec, out, evaluation.MergedInfo(infos, runID, layout, time.Now(), spec))
	if err != nil {
		return err
	}
	defer w.Release()
	defer func() { _ = rep.Summary.Release() }()
	if err := writeRunReports(out, rep, o.Format, io, w); err != nil {
		return err
	}
	return verdictDone(rep, io)
}

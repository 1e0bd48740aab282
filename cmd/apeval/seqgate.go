package main

import (
	"context"

	"github.com/apeval/apeval/internal/objstore"
	"github.com/apeval/apeval/reports"
	"github.com/apeval/apeval/reports/rundir"
)

// runSequentialGate is `apeval gate --sequential`: every run directory in
// order (rundir.InOrder) is one look of the sequential gate
// (evaluation.RunSet.Sequential); it prints where every criterion stands
// and exits with the verdict's code.
func runSequentialGate(ctx context.Context, o *gateOptions, io IO) error {
	args, err := rundir.InOrder(o.Dirs, objstore.IsURL)
	if err != nil {
		return usageError{err}
	}
	dirs, done, err := fetchRunDirs(ctx, args)
	if err != nil {
		return err
	}
	defer done()
	rs, err := openRuns(dirs)
	if err != nil {
		return err
	}
	res, err := rs.Sequential(args, o.Criteria, o.Policy, o.Baseline, io.Err)
	if err != nil {
		return err
	}
	code := reports.VerdictExit(res.Verdict, o.Inconclusive)
	f := reports.FormatTable // also when piped
	if o.Format != "" {
		f, _ = reports.ParseFormat(o.Format) // checked by validate (--json: json)
	}
	if err := reports.WriteSequential(io.Out, res, f); err != nil {
		return err
	}
	reports.WriteSequentialNotes(io.Err, res, rs.Weak(), o.Inconclusive, code)
	return exitCodeError{code}
}

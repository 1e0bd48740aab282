package main

import (
	"context"
	"fmt"
	"time"

	"github.com/apeval/apeval/internal/mask"
	"github.com/apeval/apeval/internal/objstore"
	"github.com/apeval/apeval/internal/runplan"
)

// runToBucket is `apeval run --out s3://bucket/prefix`: the run is written
// to a temporary directory exactly as a local run (runplan.State.StageIn),
// then uploaded by toBucket.
func runToBucket(ctx context.Context, p *runplan.Plan, io IO) error {
	st := p.Start(time.Now())
	remote, err := st.Remote()
	if err != nil {
		return usageError{err}
	}
	return toBucket(ctx, remote, io, p.Quiet, func(tmp string) (string, error) {
		lio, flush := bucketIO(io, st.StageIn(tmp), remote)
		defer flush()
		return st.Out, runLocal(ctx, st, lio)
	})
}

// bucketIO is io for a run written to local and uploaded to remote
// (objstore.StagedLog): its messages name the bucket prefix, never the
// temporary directory, and its "reports in" line is left out: the
// "uploaded to" line says where the reports are once they are there.
// flush writes a last unfinished line.
func bucketIO(io IO, local, remote string) (IO, func()) {
	var flush func()
	io.Err, flush = objstore.StagedLog(io.Err, local, mask.Message(remote), "apeval: reports in ")
	return io, flush
}

// bucketRunDir is runplan.BucketRunDir with a usage error.
func bucketRunDir(remote, layout, runID string) (string, error) {
	r, err := runplan.BucketRunDir(remote, layout, runID)
	if err != nil {
		return "", usageError{err}
	}
	return r, nil
}

// toBucket writes a run directory to the bucket prefix remote
// (objstore.Stage): write produces it in a temporary directory (returning
// the run directory's path and the command's own error), then it is
// uploaded. A prefix that already holds objects is refused before any work.
func toBucket(ctx context.Context, remote string, io IO, quiet bool, write func(tmp string) (string, error)) error {
	tmp, finish, err := stageBucket(ctx, remote, io, quiet)
	if err != nil {
		return err
	}
	local, runErr := write(tmp)
	return finish(local, runErr)
}

// stageBucket is toBucket in two steps (objstore.Stage): finish uploads the
// run directory local when it holds run.json and says where it went.
func stageBucket(ctx context.Context, remote string, io IO, quiet bool) (tmp string, finish func(local string, runErr error) error, err error) {
	tmp, stageFinish, err := objstore.Stage(ctx, remote)
	if err != nil {
		return "", nil, usageError{err}
	}
	return tmp, func(local string, runErr error) error {
		uploaded, err := stageFinish(local, runErr)
		if uploaded {
			// Printed under --quiet too: it is where the reports are, as a
			// local run's "reports in" line is.
			fmt.Fprintf(io.Err, "apeval: uploaded to %s\n", mask.Message(remote))
		}
		return err
	}, nil
}

// fetchRunDirs downloads each run directory given as a bucket prefix
// (objstore.FetchAll).
var fetchRunDirs = objstore.FetchAll

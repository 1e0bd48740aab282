package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"time"

	"github.com/apeval/apeval/internal/mask"
	"github.com/apeval/apeval/internal/objstore"
	"github.com/apeval/apeval/reports"
)

// outIsURL reports whether the run is written to a bucket (--out or
// apeval.toml's out pattern is a URL).
func outIsURL(o *runOptions) bool {
	return objstore.IsURL(o.Out) || o.Out == "" && objstore.IsURL(o.outPattern)
}

// runToBucket is `apeval run --out s3://bucket/prefix`: the run is written
// to a temporary directory exactly as a local run, then uploaded by
// toBucket.
func runToBucket(ctx context.Context, o *runOptions, io IO) error {
	now := time.Now()
	if o.RunID == "" {
		o.RunID = newRunID(now)
	}
	remote := o.Out
	if remote == "" {
		remote = expandOut(o.outPattern, o.RunID, now)
	}
	remote, err := bucketRunDir(remote, o.layout, o.RunID)
	if err != nil {
		return err
	}
	o.remoteOut = mask.Message(remote)
	return toBucket(ctx, remote, io, o.Quiet, func(tmp string) (string, error) {
		o.Out = filepath.Join(tmp, "run")
		local := runDirFor(o.Out, o.layout, o.RunID)
		return local, runRun(ctx, o, io)
	})
}

// bucketRunDir is runDirFor for a bucket URL: the hive layout puts the run
// under run_id=<id> below it.
func bucketRunDir(remote, layout, runID string) (string, error) {
	l, err := objstore.Parse(remote)
	if err != nil {
		return "", usageError{err}
	}
	if layout == reports.LayoutHive {
		return l.With(path.Join(l.Key, reports.RunDir(runID))), nil
	}
	return remote, nil
}

// toBucket writes a run directory to the bucket prefix remote: write
// produces it in a temporary directory (returning the run directory's
// path and the command's own error), then every file is uploaded (each
// object atomically, run.json last, so a prefix holding run.json is
// complete) and the temporary directory removed. A run that did not commit
// its run.json (a bad dataset, a failed judge setup) uploads nothing. A
// prefix that already holds objects is refused before any work.
func toBucket(ctx context.Context, remote string, io IO, quiet bool, write func(tmp string) (string, error)) error {
	tmp, finish, err := stageBucket(ctx, remote, io, quiet)
	if err != nil {
		return err
	}
	local, runErr := write(tmp)
	return finish(local, runErr)
}

// stageBucket is toBucket in two steps: it checks the prefix is unused and
// makes the temporary directory; finish uploads the run directory local
// (below tmp) when it holds run.json, removes tmp, and returns runErr
// joined with any upload error.
func stageBucket(ctx context.Context, remote string, io IO, quiet bool) (tmp string, finish func(local string, runErr error) error, err error) {
	if used, err := objstore.Exists(ctx, remote); err != nil {
		return "", nil, usageError{err}
	} else if used {
		return "", nil, usagef("--out %s already holds objects; give each run its own prefix", mask.Message(remote))
	}
	if tmp, err = os.MkdirTemp("", "apeval-out-*"); err != nil {
		return "", nil, err
	}
	finish = func(local string, runErr error) error {
		defer os.RemoveAll(tmp)
		if _, err := os.Stat(filepath.Join(local, objstore.Commit)); err != nil {
			return runErr // nothing committed, nothing to upload
		}
		// An interrupted run still uploads what it finished (as a local
		// run keeps it); a second interrupt kills the process mid-upload,
		// which leaves no half-written object.
		if err := objstore.Upload(context.WithoutCancel(ctx), local, remote); err != nil {
			return errors.Join(err, runErr)
		}
		if !quiet {
			fmt.Fprintf(io.Err, "apeval: uploaded to %s\n", mask.Message(remote))
		}
		return runErr
	}
	return tmp, finish, nil
}

// fetchRunDirs downloads each run directory given as a bucket prefix into
// a temporary directory and returns the local directories in the same
// order (local paths unchanged); cleanup removes the downloads.
func fetchRunDirs(ctx context.Context, dirs []string) (_ []string, cleanup func(), err error) {
	var tmps []string
	cleanup = func() {
		for _, t := range tmps {
			_ = os.RemoveAll(t)
		}
	}
	out := make([]string, len(dirs))
	for i, d := range dirs {
		if !objstore.IsURL(d) {
			out[i] = d
			continue
		}
		tmp, err := os.MkdirTemp("", "apeval-in-*")
		if err != nil {
			cleanup()
			return nil, nil, err
		}
		tmps = append(tmps, tmp)
		local := filepath.Join(tmp, "run")
		if err := objstore.Download(ctx, d, local, false); err != nil {
			cleanup()
			return nil, nil, usageError{err}
		}
		out[i] = local
	}
	return out, cleanup, nil
}

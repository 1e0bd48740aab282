package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	stdio "io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/apeval/apeval/internal/mask"
	"github.com/apeval/apeval/internal/objstore"
	"github.com/apeval/apeval/internal/runplan"
	"github.com/apeval/apeval/reports/rundir"
)

// runToBucket is `apeval run --out s3://bucket/prefix`: the run is written
// to a temporary directory exactly as a local run, then uploaded by
// toBucket.
func runToBucket(ctx context.Context, p *runplan.Plan, io IO) error {
	st := p.Start(time.Now())
	remote, err := bucketRunDir(st.OutBase(), p.Layout, st.RunID)
	if err != nil {
		return err
	}
	st.RemoteOut = mask.Message(remote)
	return toBucket(ctx, remote, io, p.Quiet, func(tmp string) (string, error) {
		st.Out = runplan.RunDirFor(filepath.Join(tmp, "run"), p.Layout, st.RunID)
		lio, flush := bucketIO(io, st.Out, remote)
		defer flush()
		return st.Out, runLocal(ctx, st, lio)
	})
}

// bucketIO is io for a run written to local and uploaded to remote: its
// messages name the bucket prefix, never the temporary directory (which is
// gone when the run ends), and its "reports in" line is left out: the
// "uploaded to" line says where the reports are once they are there.
// flush writes a last unfinished line.
func bucketIO(io IO, local, remote string) (IO, func()) {
	w := &localToRemote{w: io.Err, local: local, remote: mask.Message(remote)}
	io.Err = w
	return io, w.flush
}

type localToRemote struct {
	w             interface{ Write([]byte) (int, error) }
	local, remote string
	buf           []byte
}

func (l *localToRemote) Write(p []byte) (int, error) {
	l.buf = append(l.buf, p...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := string(l.buf[:i+1])
		l.buf = l.buf[i+1:]
		if err := l.line(line); err != nil {
			return 0, err
		}
	}
}

func (l *localToRemote) line(s string) error {
	if strings.HasPrefix(s, "apeval: reports in "+l.local) {
		return nil
	}
	_, err := stdio.WriteString(l.w, strings.ReplaceAll(s, l.local, l.remote))
	return err
}

func (l *localToRemote) flush() {
	if len(l.buf) > 0 {
		_ = l.line(string(l.buf))
		l.buf = nil
	}
}

// bucketRunDir is runDirFor for a bucket URL: the hive layout puts the run
// under run_id=<id> below it.
func bucketRunDir(remote, layout, runID string) (string, error) {
	l, err := objstore.Parse(remote)
	if err != nil {
		return "", usageError{err}
	}
	if layout == rundir.LayoutHive {
		return l.With(path.Join(l.Key, rundir.RunDir(runID))), nil
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
	// Two runs started at once both find the prefix unused: the claim, a
	// conditional create, lets only one of them go on.
	release, err := objstore.Claim(ctx, remote)
	if errors.Is(err, objstore.ErrPrefixInUse) {
		return "", nil, usagef("--out %s is in use by another run or already holds objects; give each run its own prefix", mask.Message(remote))
	}
	if err != nil {
		return "", nil, usageError{err}
	}
	if tmp, err = os.MkdirTemp("", "apeval-out-*"); err != nil {
		return "", nil, errors.Join(err, release(context.WithoutCancel(ctx)))
	}
	finish = func(local string, runErr error) error {
		defer os.RemoveAll(tmp)
		// The claim goes last, after the upload (or at once when nothing
		// is uploaded): until then a second run finds the prefix in use.
		uctx := context.WithoutCancel(ctx)
		if _, err := os.Stat(filepath.Join(local, objstore.Commit)); err != nil {
			return errors.Join(runErr, release(uctx)) // nothing committed, nothing to upload
		}
		// An interrupted run still uploads what it finished (as a local
		// run keeps it); a second interrupt kills the process mid-upload,
		// which leaves no half-written object.
		if err := objstore.Upload(uctx, local, remote); err != nil {
			return errors.Join(err, runErr, release(uctx))
		}
		if err := release(uctx); err != nil {
			return errors.Join(err, runErr)
		}
		// Printed under --quiet too: it is where the reports are, as a
		// local run's "reports in" line is.
		fmt.Fprintf(io.Err, "apeval: uploaded to %s\n", mask.Message(remote))
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

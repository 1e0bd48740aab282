package objstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/apeval/apeval/internal/mask"
)

// Stage prepares a run directory written to the bucket prefix remote: it
// refuses a prefix that already holds objects or is claimed by another
// run (Claim), and makes a temporary directory tmp to write the run in.
// finish(local, runErr) uploads the run directory local (below tmp) when
// it holds Commit (run.json; each object atomically, Commit last, so a
// prefix holding it is complete; an interrupted run still uploads what it
// finished), then releases the claim and removes tmp. It returns runErr
// joined with any upload error, and whether it uploaded (and released
// the claim). A run that did
// not commit (a bad dataset, a failed judge setup) uploads nothing.
func Stage(ctx context.Context, remote string) (tmp string, finish func(local string, runErr error) (uploaded bool, err error), err error) {
	if used, err := Exists(ctx, remote); err != nil {
		return "", nil, err
	} else if used {
		return "", nil, fmt.Errorf("--out %s already holds objects; give each run its own prefix", mask.Message(remote))
	}
	// Two runs started at once both find the prefix unused: the claim, a
	// conditional create, lets only one of them go on.
	release, err := Claim(ctx, remote)
	if errors.Is(err, ErrPrefixInUse) {
		return "", nil, fmt.Errorf("--out %s is in use by another run or already holds objects; give each run its own prefix", mask.Message(remote))
	}
	if err != nil {
		return "", nil, err
	}
	if tmp, err = os.MkdirTemp("", "apeval-out-*"); err != nil {
		return "", nil, errors.Join(err, release(context.WithoutCancel(ctx)))
	}
	finish = func(local string, runErr error) (bool, error) {
		defer os.RemoveAll(tmp)
		// The claim goes last, after the upload (or at once when nothing
		// is uploaded): until then a second run finds the prefix in use.
		uctx := context.WithoutCancel(ctx)
		if _, err := os.Stat(filepath.Join(local, Commit)); err != nil {
			return false, errors.Join(runErr, release(uctx)) // nothing committed, nothing to upload
		}
		// A second interrupt kills the process mid-upload, which leaves no
		// half-written object.
		if err := Upload(uctx, local, remote); err != nil {
			return false, errors.Join(err, runErr, release(uctx))
		}
		if err := release(uctx); err != nil {
			return false, errors.Join(err, runErr)
		}
		return true, runErr
	}
	return tmp, finish, nil
}

// FetchAll downloads each run directory given as a bucket prefix into a
// temporary directory and returns the local directories in the same order
// (local paths unchanged); cleanup removes the downloads.
func FetchAll(ctx context.Context, dirs []string) (_ []string, cleanup func(), err error) {
	var tmps []string
	cleanup = func() {
		for _, t := range tmps {
			_ = os.RemoveAll(t)
		}
	}
	out := make([]string, len(dirs))
	for i, d := range dirs {
		if !IsURL(d) {
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
		if err := Download(ctx, d, local, false); err != nil {
			cleanup()
			return nil, nil, err
		}
		out[i] = local
	}
	return out, cleanup, nil
}

// StagedLog is the log of a run written in a temporary directory (Stage)
// and uploaded to remote: every line written to it reaches w naming remote
// where it named local (the temporary directory is gone when the run
// ends), and a line starting with drop+local is left out (the line saying
// where the files are locally: once uploaded, they are at remote). Lines
// are passed on whole; flush writes a last unfinished one.
func StagedLog(w io.Writer, local, remote, drop string) (log io.Writer, flush func()) {
	l := &stagedLog{w: w, local: local, remote: remote, drop: drop + local}
	return l, l.flush
}

type stagedLog struct {
	w                   io.Writer
	local, remote, drop string
	buf                 []byte
}

func (l *stagedLog) Write(p []byte) (int, error) {
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

func (l *stagedLog) line(s string) error {
	if strings.HasPrefix(s, l.drop) {
		return nil
	}
	_, err := io.WriteString(l.w, strings.ReplaceAll(s, l.local, l.remote))
	return err
}

func (l *stagedLog) flush() {
	if len(l.buf) > 0 {
		_ = l.line(string(l.buf))
		l.buf = nil
	}
}

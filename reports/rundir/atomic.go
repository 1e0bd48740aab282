package rundir

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// WriteFileAtomic writes path through write into a temporary file in the
// same directory, syncs it and renames it over path, so a reader never sees
// a half-written report and an interrupted run leaves the old file (or none).
//
// Only a regular file (or none) is replaced so: a symlink keeps its link
// and the file it points to is written (atomically, when that is a regular
// file or absent), and anything that is not a regular file (a device such
// as /dev/null, a FIFO, /dev/stdout) is written through, never replaced.
func WriteFileAtomic(path string, write func(io.Writer) error) error {
	target, direct, err := atomicTarget(path)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if direct {
		return writeThrough(target, write)
	}
	path = target
	f, err := CreateTemp(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 64<<10)
	if err := write(bw); err != nil {
		DiscardTemp(f)
		return err
	}
	if err := bw.Flush(); err != nil {
		DiscardTemp(f)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return CommitTemp(f, path)
}

// IsRegularOrAbsent reports whether path, following symlinks, is a regular
// file or does not exist: what WriteFileAtomic replaces by a rename.
func IsRegularOrAbsent(path string) bool {
	_, direct, err := atomicTarget(path)
	return err == nil && !direct
}

// atomicTarget is the file WriteFileAtomic writes for path: path, or the
// file a symlink at path points to (through every link; a dangling link's
// target is created). direct says to write it in place: it exists and is
// not a regular file, or it is a process's standard stream.
func atomicTarget(path string) (string, bool, error) {
	p := path
	for range 40 {
		if stdStream(p) {
			return p, true, nil
		}
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return p, false, nil
		}
		if err != nil {
			return "", false, err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return p, !fi.Mode().IsRegular(), nil
		}
		link, err := os.Readlink(p)
		if err != nil {
			return "", false, err
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(p), link)
		}
		p = link
	}
	return "", false, errors.New("too many levels of symbolic links")
}

// stdStream reports whether p names a standard stream or a descriptor of
// the process (/dev/stdout, /dev/fd/N, /proc/self/fd/N), which are written
// through like "-".
func stdStream(p string) bool {
	switch p {
	case "/dev/stdout", "/dev/stderr":
		return true
	}
	return strings.HasPrefix(p, "/dev/fd/") || strings.HasPrefix(p, "/proc/")
}

// writeThrough writes into an existing file that is not a regular one (a
// device, a FIFO, a standard stream) in place.
func writeThrough(path string, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	bw := bufio.NewWriterSize(f, 64<<10)
	if err := write(bw); err != nil {
		// The producer's own error (a bad input, an interrupt), as the
		// atomic path returns it: not a write error of the device.
		f.Close()
		return err
	}
	werr := bw.Flush()
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("write %s: %w", path, werr)
	}
	return nil
}

// CreateTemp opens a fresh temporary file next to path, named path.*.tmp.
func CreateTemp(path string) (*os.File, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, base+".*.tmp")
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	// CreateTemp makes the file private; reports are meant to be shared
	// (CI artifacts, other users of the machine), like any file we create.
	if err := f.Chmod(0o644); err != nil {
		DiscardTemp(f)
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	return f, nil
}

// CommitTemp syncs and closes a temporary file, then renames it to path.
// On failure the temporary file is removed.
func CommitTemp(f *os.File, path string) error {
	if err := f.Sync(); err != nil {
		DiscardTemp(f)
		return fmt.Errorf("sync %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		_ = os.Remove(f.Name())
		return fmt.Errorf("close %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		_ = os.Remove(f.Name())
		return fmt.Errorf("rename %s: %w", path, err)
	}
	syncDir(filepath.Dir(path))
	return nil
}

// DiscardTemp closes and removes a temporary file after a failed write.
func DiscardTemp(f *os.File) {
	_ = f.Close()
	_ = os.Remove(f.Name())
}

// syncDir makes a rename durable. Some file systems refuse to sync a
// directory; the rename itself already happened, so that is not an error.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	_ = d.Close()
}

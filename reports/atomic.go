package reports

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// WriteFileAtomic writes path through write into a temporary file in the
// same directory, syncs it and renames it over path, so a reader never sees
// a half-written report and an interrupted run leaves the old file (or none).
func WriteFileAtomic(path string, write func(io.Writer) error) error {
	f, err := createTemp(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 64<<10)
	if err := write(bw); err != nil {
		discardTemp(f)
		return err
	}
	if err := bw.Flush(); err != nil {
		discardTemp(f)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return commitTemp(f, path)
}

// createTemp opens a fresh temporary file next to path, named path.*.tmp.
func createTemp(path string) (*os.File, error) {
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
		discardTemp(f)
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	return f, nil
}

// commitTemp syncs and closes a temporary file, then renames it to path.
// On failure the temporary file is removed.
func commitTemp(f *os.File, path string) error {
	if err := f.Sync(); err != nil {
		discardTemp(f)
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

// discardTemp closes and removes a temporary file after a failed write.
func discardTemp(f *os.File) {
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

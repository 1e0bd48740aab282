package reports

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// LockFile is the lock a run holds on its run directory while it writes.
const LockFile = ".apeval.lock"

// ErrRunDirBusy is returned by CreateRun when another apeval run holds the
// run directory's lock.
var ErrRunDirBusy = errors.New("run directory is in use by another apeval run")

// runDir is a run directory claimed for one run: locked against a second
// run writing into it, with the earlier run's files known so that they can
// be replaced as a whole, and the directories this run created, so that a
// run that fails before writing anything leaves no directory behind.
type runDir struct {
	path    string
	created string // topmost directory this run created; "" when it existed
	lock    *os.File
}

// ownedFile reports whether name is a file apeval writes into a run
// directory (reports, charts, run.json) or a temporary file of one.
func ownedFile(name string) bool {
	if base, ok := strings.CutSuffix(name, ".tmp"); ok {
		// createTemp names a temporary file <name>.<random>.tmp.
		if i := strings.LastIndexByte(base, '.'); i > 0 {
			return ownedFile(base[:i])
		}
		return false
	}
	switch name {
	case DecisionsFile, GatesFile, MetricsFile, RunFile, SummaryJSON, SummaryMD, JUnitFile, HTMLFile:
		return true
	}
	return strings.HasSuffix(name, ".svg")
}

// claimRunDir creates dir if needed, takes its lock and checks that it is
// empty or an apeval run directory. Stale temporary files of a killed run
// are removed (no other run can be writing them: we hold the lock).
func claimRunDir(dir string) (*runDir, error) {
	d := &runDir{path: dir}
	for p := filepath.Clean(dir); ; {
		if _, err := os.Lstat(p); err == nil {
			break
		}
		d.created = p
		parent := filepath.Dir(p)
		if parent == p {
			break
		}
		p = parent
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create run directory: %w", err)
	}
	lock, err := os.OpenFile(filepath.Join(dir, LockFile), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		d.removeCreated()
		return nil, fmt.Errorf("lock run directory: %w", err)
	}
	if err := lockFile(lock); err != nil {
		_ = lock.Close()
		d.removeCreated()
		return nil, fmt.Errorf("%s: %w (%v); wait for it or choose another --out", dir, ErrRunDirBusy, err)
	}
	d.lock = lock
	entries, err := os.ReadDir(dir)
	if err != nil {
		d.release()
		return nil, fmt.Errorf("read run directory: %w", err)
	}
	var foreign []string
	isRun := false
	for _, e := range entries {
		switch name := e.Name(); {
		case name == LockFile:
		case name == RunFile:
			isRun = true
		case ownedFile(name):
			if strings.HasSuffix(name, ".tmp") {
				_ = os.Remove(filepath.Join(dir, name))
			}
		default:
			foreign = append(foreign, name)
		}
	}
	if len(foreign) > 0 && !isRun {
		d.release()
		d.removeCreated()
		return nil, fmt.Errorf("%s is not empty and is not an apeval run directory (it holds %s, and no %s); choose another --out",
			dir, listNames(foreign, 3), RunFile)
	}
	return d, nil
}

func listNames(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}

// clearEarlier removes the files an earlier run left (reports, charts), so
// that the directory holds only this run's output; files apeval does not
// own are kept. keep lists temporary files of this run.
func (d *runDir) clearEarlier(keep ...string) {
	entries, err := os.ReadDir(d.path)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		if name == LockFile || !ownedFile(name) {
			continue
		}
		skip := false
		for _, k := range keep {
			if filepath.Base(k) == name {
				skip = true
			}
		}
		if !skip {
			_ = os.Remove(filepath.Join(d.path, name))
		}
	}
}

// release removes the lock file, then drops the lock (removing it first
// means a run that opens the path from then on finds a fresh file; only a
// run that opened the old file in the same instant could lock it as well).
func (d *runDir) release() {
	if d == nil || d.lock == nil {
		return
	}
	_ = os.Remove(d.lock.Name())
	_ = d.lock.Close()
	d.lock = nil
}

// removeCreated removes the directories this run created, if they are
// still empty (a run that stopped before writing anything).
func (d *runDir) removeCreated() {
	if d == nil || d.created == "" {
		return
	}
	for p := filepath.Clean(d.path); ; p = filepath.Dir(p) {
		if os.Remove(p) != nil || p == d.created {
			return
		}
	}
}

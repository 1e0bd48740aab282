package rundir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/apeval/apeval/internal/trunc"
)

// LockFile is the lock a run holds on its run directory while it writes.
const LockFile = ".apeval.lock"

// EarlierDir holds the files of the earlier run in a run directory while a
// new run commits and writes its reports: removed once the reports are
// written, moved back when they fail (or when the next run finds it: the
// run that made it never finished).
const EarlierDir = ".apeval-earlier"

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
	stashed bool // the earlier run's files are in EarlierDir
}

// ownedFile reports whether name is a file apeval writes into a run
// directory (reports, charts, run.json) or a temporary file of one.
func ownedFile(name string) bool {
	if base, ok := strings.CutSuffix(name, ".tmp"); ok {
		// CreateTemp names a temporary file <name>.<random>.tmp.
		if i := strings.LastIndexByte(base, '.'); i > 0 {
			return ownedFile(base[:i])
		}
		return false
	}
	switch name {
	case DecisionsFile, GatesFile, MetricsFile, CompareFile, RunFile, SummaryJSON, SummaryMD, JUnitFile, HTMLFile, SimulateFile, SimulateJSONFile:
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
		case name == LockFile, name == EarlierDir:
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
	if _, err := os.Stat(filepath.Join(dir, EarlierDir)); err == nil {
		// A run died between committing and writing its reports: the
		// earlier run comes back.
		if err := d.restoreEarlier(); err != nil {
			d.release()
			return nil, fmt.Errorf("%s: restoring the earlier run from %s: %w", dir, EarlierDir, err)
		}
		isRun = true
	}
	if len(foreign) > 0 && !isRun {
		d.release()
		d.removeCreated()
		return nil, fmt.Errorf("%s is not empty and is not an apeval run directory (it holds %s, and no %s); choose another --out",
			dir, trunc.List(foreign, 3), RunFile)
	}
	return d, nil
}

// stashEarlier moves the files an earlier run left (reports, charts) into
// EarlierDir, so that the directory holds only this run's output and the
// earlier run can come back if this one fails before its reports are
// written; files apeval does not own stay where they are. keep lists
// temporary files of this run. Renames within one directory need no space.
func (d *runDir) stashEarlier(keep ...string) error {
	entries, err := os.ReadDir(d.path)
	if err != nil {
		return err
	}
	stash := filepath.Join(d.path, EarlierDir)
	made := false
	for _, e := range entries {
		name := e.Name()
		if name == LockFile || !ownedFile(name) || strings.HasSuffix(name, ".tmp") {
			continue
		}
		skip := false
		for _, k := range keep {
			if filepath.Base(k) == name {
				skip = true
			}
		}
		if skip {
			continue
		}
		if !made {
			if err := os.Mkdir(stash, 0o755); err != nil {
				return err
			}
			made = true
		}
		if err := os.Rename(filepath.Join(d.path, name), filepath.Join(stash, name)); err != nil {
			return err
		}
	}
	d.stashed = made
	return nil
}

// dropEarlier removes the earlier run once this one is complete.
func (d *runDir) dropEarlier() {
	if d.stashed {
		_ = os.RemoveAll(filepath.Join(d.path, EarlierDir))
		d.stashed = false
	}
}

// restoreEarlier removes this run's files and moves the earlier run's back.
func (d *runDir) restoreEarlier() error {
	stash := filepath.Join(d.path, EarlierDir)
	entries, err := os.ReadDir(d.path)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if name := e.Name(); name != LockFile && ownedFile(name) {
			if err := os.Remove(filepath.Join(d.path, name)); err != nil {
				return err
			}
		}
	}
	earlier, err := os.ReadDir(stash)
	if err != nil {
		return err
	}
	for _, e := range earlier {
		if err := os.Rename(filepath.Join(stash, e.Name()), filepath.Join(d.path, e.Name())); err != nil {
			return err
		}
	}
	d.stashed = false
	return os.Remove(stash)
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

package rundir

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// History lists the run directories directly inside dir in the order
// they were made: run.json's created time, then name (a history of runs
// for `gate --sequential DIR`). Subdirectories without a run.json are
// not runs and are passed over; a run.json that cannot be read, or no run
// at all, is an error naming the directory.
func History(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("%s is neither a run directory nor a directory of run directories: %w", dir, err)
	}
	type run struct {
		dir  string
		info RunInfo
	}
	var runs []run
	for _, e := range ents {
		d := filepath.Join(dir, e.Name())
		if !e.IsDir() {
			continue
		}
		if _, err := os.Stat(filepath.Join(d, RunFile)); err != nil {
			continue
		}
		info, err := ReadRunInfo(d)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d, err)
		}
		runs = append(runs, run{d, info})
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("%s is neither a run directory nor a directory of run directories (no %s in it or its subdirectories)", dir, RunFile)
	}
	slices.SortStableFunc(runs, func(a, b run) int {
		if c := a.info.Created.Compare(b.info.Created); c != 0 {
			return c
		}
		return strings.Compare(a.dir, b.dir)
	})
	out := make([]string, len(runs))
	for i, r := range runs {
		out[i] = r.dir
	}
	return out, nil
}

// InOrder expands the arguments of a sequential gate into run
// directories in order: several arguments as given; one that is remote
// (remote(arg): a bucket prefix is one run) or a run directory itself,
// as it is; else the run directories inside it in the order they were
// made (History).
func InOrder(args []string, remote func(string) bool) ([]string, error) {
	if len(args) != 1 || remote(args[0]) {
		return args, nil
	}
	if _, err := os.Stat(filepath.Join(args[0], RunFile)); err == nil {
		return args, nil
	}
	return History(args[0])
}

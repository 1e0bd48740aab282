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
		return nil, fmt.Errorf("%s: %w", dir, err)
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

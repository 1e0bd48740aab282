package diff

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports/rundir"
)

// readAll reads a run's results, each a copy fn may keep and change.
func readAll(dir string, fn func(*replay.Result)) (rundir.RunInfo, error) {
	return rundir.ReadRun(dir, func(r *replay.Result) error {
		c := *r
		c.CaseID, c.SessionID, c.Judge = strings.Clone(r.CaseID), strings.Clone(r.SessionID), strings.Clone(r.Judge)
		c.Rules = slices.Clone(r.Rules)
		for i := range c.Rules {
			c.Rules[i].RuleID = strings.Clone(c.Rules[i].RuleID)
			c.Rules[i].Repeats = slices.Clone(c.Rules[i].Repeats)
		}
		c.Calls = slices.Clone(r.Calls)
		c.Tags = slices.Clone(r.Tags)
		fn(&c)
		return nil
	})
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func genPairCopy(t *testing.T, from, to string) {
	t.Helper()
	if err := os.MkdirAll(to, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range dirNames(t, from) {
		src, err := os.Open(filepath.Join(from, n))
		if err != nil {
			t.Fatal(err)
		}
		dst, err := os.Create(filepath.Join(to, n))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(dst, src); err != nil {
			t.Fatal(err)
		}
		src.Close()
		if err := dst.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func mustInfo(t *testing.T, dir string) rundir.RunInfo {
	t.Helper()
	info, err := rundir.ReadRunInfo(dir)
	if err != nil {
		t.Fatal(err)
	}
	return info
}

func mustWriteInfo(t *testing.T, dir string, info rundir.RunInfo) {
	t.Helper()
	if err := rundir.WriteRunInfo(dir, info); err != nil {
		t.Fatal(err)
	}
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apeval/apeval/reports/rundir"
)

// --out-layout hive: the run directory is ROOT/run_id=<id> with one
// judge=<identity>/ pair of files per judge; run, report and merge give the
// same figures as the flat layout.
func TestOutLayoutHive(t *testing.T) {
	wholeProcess(t)
	t.Parallel()
	base := t.TempDir()
	flat := filepath.Join(base, "flat")
	if code, _, stderr := apeval(t, "", "run", "-q", "--out", flat); code == exitUsage {
		t.Fatal(stderr)
	}
	root := filepath.Join(base, "table")
	if code, _, stderr := apeval(t, "", "run", "-q", "--out-layout", "hive", "--out", root, "--run-id", "day1"); code == exitUsage {
		t.Fatal(stderr)
	}
	run := filepath.Join(root, "run_id=day1")
	info, err := rundir.ReadRunInfo(run)
	if err != nil {
		t.Fatal(err)
	}
	if info.Layout != rundir.LayoutHive || len(info.Judges) < 2 {
		t.Fatalf("run.json layout %q with %d judges", info.Layout, len(info.Judges))
	}
	for _, j := range info.Judges {
		for _, f := range []string{rundir.DecisionsFile, rundir.GatesFile} {
			if _, err := os.Stat(filepath.Join(run, rundir.JudgeDir(j.Identity), f)); err != nil {
				t.Error(err)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(run, rundir.DecisionsFile)); err == nil {
		t.Error("the hive layout also wrote a flat decisions.parquet")
	}
	want := comparableSummary(t, flat)
	if got := comparableSummary(t, run); got != want {
		t.Fatalf("hive run summary differs from the flat run:\n%s\n---\n%s", want, got)
	}
	// report reads the hive run back to the same figures.
	os.Remove(filepath.Join(run, rundir.SummaryJSON))
	if code, _, stderr := apeval(t, "", "report", run); code == exitUsage {
		t.Fatal(stderr)
	}
	if got := comparableSummary(t, run); got != want {
		t.Fatalf("report over the hive run differs from the flat run")
	}

	// Hive shards merge into a hive run (and a flat one) equal to the
	// single run.
	var shards []string
	for _, s := range []string{"1/2", "2/2"} {
		id := "shard" + strings.ReplaceAll(s, "/", "of")
		if code, _, stderr := apeval(t, "", "replay", "-q", "--shard", s, "--out-layout", "hive", "--out", root, "--run-id", id); code != 0 {
			t.Fatalf("shard %s: %s", s, stderr)
		}
		shards = append(shards, filepath.Join(root, "run_id="+id))
	}
	for _, layout := range []string{"hive", "flat"} {
		out := filepath.Join(base, "merged-"+layout)
		if code, _, stderr := apeval(t, "", append([]string{"merge", "--out-layout", layout, "--out", out, "--run-id", "m"}, shards...)...); code == exitUsage {
			t.Fatal(stderr)
		}
		dir := out
		if layout == "hive" {
			dir = filepath.Join(out, "run_id=m")
		}
		if got := comparableSummary(t, dir); got != want {
			t.Errorf("merge --out-layout %s differs from the single run", layout)
		}
	}

	if code, _, stderr := apeval(t, "", "run", "--out-layout", "parted"); code != exitUsage || !strings.Contains(stderr, "want flat or hive") {
		t.Errorf("bad layout: exit %d %s", code, stderr)
	}
}

package main

import (
	"encoding/json"
	"io"
	"path/filepath"
	"testing"
)

// The reading commands' cases numbered as they come (evalSpec.CheckDistinct)
// give the summary of an evaluation keeping every case ID: on one run of
// the sample (its cases come together), and on the run read twice (every
// case comes back, so the decision files are read again for the figures),
// and the run read twice at once as two runs of the same cases (compare:
// numbered by position in each).
func TestCheckDistinctReadsAgain(t *testing.T) {
	wholeProcess(t)
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	if code, _, stderr := apeval(t, "", "run", "--out", dir, "-q"); code == exitUsage {
		t.Fatal(stderr)
	}
	summary := func(dirs []string, check, paired bool) string {
		t.Helper()
		rs, err := openRuns(dirs)
		if err != nil {
			t.Fatal(err)
		}
		var o evalOptions
		spec, err := o.spec(rs, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		spec.CheckDistinct, spec.PairedStreams = check, paired
		ev, err := rs.Evaluate(spec, paired, nil)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := finish(ev, rs.Infos[0])
		if err != nil {
			t.Fatal(err)
		}
		defer rep.Summary.Release()
		b, err := json.Marshal(rep.Summary)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, dirs := range [][]string{{dir}, {dir, dir}} {
		if got, want := summary(dirs, true, false), summary(dirs, false, false); got != want {
			t.Errorf("%d directories: summary with cases numbered as they come differs:\n%s\n%s", len(dirs), got, want)
		}
	}
	if got, want := summary([]string{dir, dir}, true, true), summary([]string{dir, dir}, false, false); got != want {
		t.Errorf("two streams: summary with cases numbered by position differs:\n%s\n%s", got, want)
	}
	// Shards of one run: report numbers their cases as they come.
	var shards []string
	for _, sh := range []string{"1/2", "2/2"} {
		d := filepath.Join(t.TempDir(), "shard")
		if code, _, stderr := apeval(t, "", "run", "--shard", sh, "--out", d, "-q"); code == exitUsage {
			t.Fatal(stderr)
		}
		shards = append(shards, d)
	}
	for _, dirs := range [][]string{shards, {shards[0], dir}, {shards[0], shards[0]}} {
		rs, err := openRuns(dirs)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := rs.ShardsOfOneRun(), len(dirs) == 2 && dirs[1] == shards[1]; got != want {
			t.Errorf("%v: shards of one run %v, want %v", dirs, got, want)
		}
	}
	if got, want := summary(shards, true, false), summary(shards, false, false); got != want {
		t.Errorf("shards: summary with cases numbered as they come differs:\n%s\n%s", got, want)
	}
}

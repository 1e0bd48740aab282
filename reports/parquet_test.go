package reports

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports/rundir"
)

func writeRun(t testing.TB, dir string, rs []*replay.Result) {
	t.Helper()
	w, err := rundir.CreateRun(dir, testInfo())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func readRun(t testing.TB, dir string) (rundir.RunInfo, []*replay.Result) {
	t.Helper()
	var got []*replay.Result
	info, err := rundir.ReadRun(dir, func(r *replay.Result) error { got = append(got, r); return nil })
	if err != nil {
		t.Fatal(err)
	}
	return info, got
}

func TestRunRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   []*replay.Result
	}{
		{"fixtures", fixtureResults()},
		{"empty run", nil},
		{"several batches", bulkResults(3*1024 + 17)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeRun(t, dir, tt.in)
			info, got := readRun(t, dir)
			if len(got) != len(tt.in) {
				t.Fatalf("read %d results, wrote %d", len(got), len(tt.in))
			}
			for i := range tt.in {
				if !reflect.DeepEqual(got[i], tt.in[i]) {
					t.Fatalf("result %d differs:\n got %+v\nwant %+v", i, *got[i], *tt.in[i])
				}
			}
			var decisions int64
			for _, r := range tt.in {
				decisions += int64(len(r.Rules))
			}
			if info.Results != int64(len(tt.in)) || info.Decisions != decisions {
				t.Errorf("run.json counts results=%d decisions=%d, want %d and %d",
					info.Results, info.Decisions, len(tt.in), decisions)
			}
			want := testInfo()
			want.Schema, want.Results, want.Decisions = rundir.RunSchema, info.Results, info.Decisions
			if !reflect.DeepEqual(info, want) {
				t.Errorf("run.json:\n got %+v\nwant %+v", info, want)
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if strings.HasSuffix(e.Name(), ".tmp") {
					t.Errorf("temporary file %s left behind", e.Name())
				}
			}
		})
	}
}

// The writer must copy what it buffers: a caller that reuses one Result
// value for every case still gets every case written.
func TestRunWriterCopiesResult(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	w, err := rundir.CreateRun(dir, testInfo())
	if err != nil {
		t.Fatal(err)
	}
	want := fixtureResults()
	var reused replay.Result
	for _, r := range want {
		reused = *r
		reused.Rules = append([]replay.RuleResult(nil), r.Rules...)
		if err := w.Write(&reused); err != nil {
			t.Fatal(err)
		}
		for i := range reused.Rules {
			reused.Rules[i] = replay.RuleResult{Confidence: fp(-1)}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	_, got := readRun(t, dir)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("reused Result changed the written rows")
	}
}

func TestRunWriterAbort(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	w, err := rundir.CreateRun(dir, testInfo())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(fixtureResults()[0]); err != nil {
		t.Fatal(err)
	}
	w.Abort()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 0 {
		t.Fatalf("abort left %d files, first %s", len(entries), entries[0].Name())
	}
	if err := w.Write(fixtureResults()[0]); err == nil {
		t.Fatal("write after abort succeeded")
	}
	if err := w.Close(); err == nil {
		t.Fatal("close after abort succeeded")
	}
}

func TestRunWriterRejectsUnrecordableCalls(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		mutate func(r *replay.Result)
		want   string
	}{
		{"call with no rule", func(r *replay.Result) { r.Calls = append(r.Calls, replay.Call{Status: "ok"}) }, "decided no rule"},
		{"rule points past calls", func(r *replay.Result) { r.Rules[0].Call = 5 }, "refers to call 5 of 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := rundir.CreateRun(t.TempDir(), testInfo())
			if err != nil {
				t.Fatal(err)
			}
			defer w.Abort()
			r := fixtureResults()[0]
			tt.mutate(r)
			err = w.Write(r)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Write error = %v, want it to mention %q", err, tt.want)
			}
		})
	}
}

func TestReadRunStopsOnCallbackError(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeRun(t, dir, fixtureResults())
	stop := errors.New("stop")
	n := 0
	_, err := rundir.ReadRun(dir, func(*replay.Result) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Fatalf("ReadRun = %v after %d calls, want stop after 1", err, n)
	}
}

func TestReadRunMissingFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeRun(t, dir, fixtureResults())
	if err := os.Remove(filepath.Join(dir, rundir.DecisionsFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := rundir.ReadRun(dir, func(*replay.Result) error { return nil }); err == nil {
		t.Fatal("ReadRun succeeded without decisions.parquet")
	}
}

func BenchmarkWriteRun(b *testing.B) {
	rs := bulkResults(64 << 10)
	dir := b.TempDir()
	b.ReportAllocs()
	b.ResetTimer()
	cases := 0
	for b.Loop() {
		w, err := rundir.CreateRun(dir, testInfo())
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range rs {
			if err := w.Write(r); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
		w.Release() // unlock the directory for the next iteration
		cases += len(rs)
	}
	b.ReportMetric(float64(cases)/b.Elapsed().Seconds(), "cases/s")
}

func BenchmarkReadRun(b *testing.B) {
	rs := bulkResults(64 << 10)
	dir := b.TempDir()
	writeRun(b, dir, rs)
	b.ReportAllocs()
	b.ResetTimer()
	cases := 0
	for b.Loop() {
		if _, err := rundir.ReadRun(dir, func(*replay.Result) error { cases++; return nil }); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cases)/b.Elapsed().Seconds(), "cases/s")
}

// Decision rows that match no gates row mean the files do not belong
// together; ReadRun says so instead of dropping rows.
func TestReadRunFilesOutOfStep(t *testing.T) {
	t.Parallel()
	full, short := t.TempDir(), t.TempDir()
	writeRun(t, full, fixtureResults())
	writeRun(t, short, fixtureResults()[:1])
	gates, err := os.ReadFile(filepath.Join(short, rundir.GatesFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(full, rundir.GatesFile), gates, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = rundir.ReadRun(full, func(*replay.Result) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "out of step") {
		t.Fatalf("ReadRun = %v, want an out-of-step error", err)
	}
}

// Two runs into one directory: the second fails while the first holds the
// lock, and succeeds once the first released it.
func TestRunDirLock(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	w, err := rundir.CreateRun(dir, testInfo())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rundir.CreateRun(dir, testInfo()); !errors.Is(err, rundir.ErrRunDirBusy) {
		t.Fatalf("second run while the first writes: %v, want ErrRunDirBusy", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	w.Release()
	w2, err := rundir.CreateRun(dir, testInfo())
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	w2.Abort()
	if _, err := os.Stat(filepath.Join(dir, rundir.RunFile)); err != nil {
		t.Errorf("abort of the second run removed the first run's files: %v", err)
	}
}

// A run with labels copies each batch of decision rows to add the weights;
// the copies must carry their own pointer values (fingerprint, and the
// other nullable numbers), not point into the buffer that is refilled while
// the copy waits to be written.
func TestWriteRunWeightedKeepsFingerprints(t *testing.T) {
	rs := bulkResults(20000) // several batches of decision rows
	dir := t.TempDir()
	w, err := rundir.CreateRunWeighted(dir, testInfo(), func(string, string, string) rundir.LabelWeight { return rundir.LabelWeight{Weight: 1} })
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]replay.Digest{}
	for _, r := range rs {
		for _, rr := range r.Rules {
			want[r.CaseID+"/"+rr.RuleID] = rr.Fingerprint
		}
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	bad, n := 0, 0
	if _, err := rundir.ReadRun(dir, func(r *replay.Result) error {
		for _, rr := range r.Rules {
			n++
			if rr.Fingerprint != want[r.CaseID+"/"+rr.RuleID] {
				bad++
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if bad > 0 || n != len(want) {
		t.Fatalf("%d of %d fingerprints read back differ (%d written)", bad, n, len(want))
	}
}

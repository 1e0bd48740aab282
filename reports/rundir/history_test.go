package rundir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHistory: the run directories of a directory in the order they were
// made (created, then name), whatever their names; other entries passed
// over; no run, or an unreadable run.json, an error naming the directory.
func TestHistory(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	for name, at := range map[string]time.Time{"c-first": t0, "a-second": t0.Add(time.Hour), "b-third": t0.Add(2 * time.Hour), "d-tie": t0.Add(2 * time.Hour)} {
		d := filepath.Join(root, name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := WriteRunInfo(d, RunInfo{Created: at}); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(root, "notes"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "README"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := History(root)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range got {
		names = append(names, filepath.Base(d))
	}
	if s := strings.Join(names, ","); s != "c-first,a-second,b-third,d-tie" {
		t.Errorf("order %s", s)
	}
	if _, err := History(filepath.Join(root, "notes")); err == nil || !strings.Contains(err.Error(), "notes is neither a run directory nor a directory of run directories") {
		t.Errorf("no runs: %v", err)
	}
	if _, err := History(filepath.Join(root, "missing")); err == nil || !strings.Contains(err.Error(), "missing is neither a run directory nor a directory of run directories: open ") {
		t.Errorf("missing directory: %v", err)
	}
	bad := filepath.Join(root, "e-bad")
	if err := os.MkdirAll(bad, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad, RunFile), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := History(root); err == nil || !strings.Contains(err.Error(), "e-bad") {
		t.Errorf("unreadable run.json: %v", err)
	}
}

// TestInOrder: gate --sequential's arguments: several, a remote one or a
// run directory stay as given; a directory of runs becomes its runs in
// the order they were made.
func TestInOrder(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	for name, at := range map[string]time.Time{"b": t0, "a": t0.Add(time.Hour)} {
		d := filepath.Join(root, name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := WriteRunInfo(d, RunInfo{Created: at}); err != nil {
			t.Fatal(err)
		}
	}
	remote := func(s string) bool { return strings.HasPrefix(s, "s3://") }
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	for _, tc := range []struct {
		args, want []string
	}{
		{[]string{a, b}, []string{a, b}},
		{[]string{"s3://bucket/run"}, []string{"s3://bucket/run"}},
		{[]string{a}, []string{a}},
		{[]string{root}, []string{b, a}},
	} {
		got, err := InOrder(tc.args, remote)
		if err != nil || strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("InOrder(%q) = %q, %v; want %q", tc.args, got, err, tc.want)
		}
	}
	if _, err := InOrder([]string{filepath.Join(root, "none")}, remote); err == nil || !strings.Contains(err.Error(), "none") {
		t.Errorf("missing directory: %v", err)
	}
}

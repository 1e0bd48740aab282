package evaluation

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadInfosNamesAFileAmongTheRuns: `report RUN --labels a.jsonl
// b.jsonl` (as docs/labeling.md showed it) makes b.jsonl a second run
// directory; the error says it is a file and how to give two labels
// files (it said "open b.jsonl/run.json: not a directory").
func TestReadInfosNamesAFileAmongTheRuns(t *testing.T) {
	t.Parallel()
	f := filepath.Join(t.TempDir(), "labels-ben.jsonl")
	if err := os.WriteFile(f, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadInfos([]string{f})
	if err == nil || !strings.Contains(err.Error(), "is a file, not a run directory") || !strings.Contains(err.Error(), "--labels a.jsonl --labels b.jsonl") {
		t.Errorf("got %v", err)
	}
	// A missing directory still says it is none.
	if _, err := ReadInfos([]string{filepath.Join(t.TempDir(), "nope")}); err == nil || !strings.Contains(err.Error(), "is not a run directory") {
		t.Errorf("missing: %v", err)
	}
}

// TestDirErrorNamesTheRunsInside: report or gate given the directory the
// runs are made in (apeval-out/, a history) names the run directories in
// it and gate --sequential (it said only "no run.json").
func TestDirErrorNamesTheRunsInside(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, d := range []string{"run-a", "run-b", "notes"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"run-a", "run-b"} {
		if err := os.WriteFile(filepath.Join(root, d, "run.json"), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := ReadInfos([]string{root})
	want := "; it holds run directories (" + filepath.Join(root, "run-a") + ", " + filepath.Join(root, "run-b") +
		"): name one of them, or decide over them all in the order they were made with apeval gate --sequential " + root
	if err == nil || !strings.HasPrefix(err.Error(), root+" is not a run directory") || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("got %v\nwant the suffix %q", err, want)
	}
	// A directory without runs in it gets no hint.
	if _, err := ReadInfos([]string{filepath.Join(root, "notes")}); err == nil || strings.Contains(err.Error(), "it holds") {
		t.Errorf("notes: %v", err)
	}
}

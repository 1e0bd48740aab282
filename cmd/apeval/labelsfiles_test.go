package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSecondLabelsFileWithoutFlag: docs/labeling.md showed
// `report RUN --labels a.jsonl b.jsonl`; b.jsonl then lands among the run
// directories. report and gate say it is a file and how to give two labels
// files (they said "report of several directories needs --out" and "gate
// takes exactly one run directory").
func TestSecondLabelsFileWithoutFlag(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "labels-ana.jsonl"), filepath.Join(dir, "labels-ben.jsonl")
	for _, f := range []string{a, b} {
		if err := os.WriteFile(f, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := filepath.Join(dir, "run")
	for _, verb := range []string{"report", "gate"} {
		code, _, stderr := apeval(t, "", verb, run, "--labels", a, b)
		if code != exitUsage || !strings.Contains(stderr, b+" is a file, not a run directory") || !strings.Contains(stderr, "--labels a.jsonl --labels b.jsonl") {
			t.Errorf("%s: exit %d\n%s", verb, code, stderr)
		}
	}
}

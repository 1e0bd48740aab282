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

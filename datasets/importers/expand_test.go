package importers

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/apeval/apeval/datasets"
)

// TestDirectoryWithoutTheFormatsFiles: a directory holding a Codex rollout
// under another name than rollout-*.jsonl finds no file; the error names
// the format and the names it looks for, and how to read the file anyway
// (it said "no files of this format found").
func TestDirectoryWithoutTheFormatsFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "escalation.jsonl"), []byte(`{"timestamp":"2025-12-05T11:00:00.000Z","type":"session_meta","payload":{"id":"s1","cwd":"/w","cli_version":"0.77.0"}}`+"\n"))
	_, err := Import("codex-rollout", []string{dir}, Options{}, func(*datasets.Case) error { return nil }, nil)
	if err == nil || !strings.Contains(err.Error(), "no codex-rollout files") || !strings.Contains(err.Error(), "rollout-*.jsonl") || !strings.Contains(err.Error(), "name a file") {
		t.Errorf("got %v", err)
	}
	// Named as a file, it is read.
	if _, err := Import("codex-rollout", []string{filepath.Join(dir, "escalation.jsonl")}, Options{}, func(*datasets.Case) error { return nil }, nil); err != nil {
		t.Errorf("the file itself: %v", err)
	}
}

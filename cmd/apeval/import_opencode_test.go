package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An OpenCode database that cannot be read (here: encrypted, no SQLite
// header) is exit 2 naming the file and what was found, and --out is not
// written at all.
func TestImportBadOpenCodeDB(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "opencode.db")
	if err := os.WriteFile(db, []byte("\x8e\x1f\x03\xa7 not a plain SQLite file, perhaps SQLCipher"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "cases.jsonl")
	for _, from := range []string{"opencode", "auto"} {
		code, _, stderr := apeval(t, "", "datasets", "import", "--from", from, db, "--out", out)
		if code != exitUsage || !strings.Contains(stderr, db+": not an SQLite database") {
			t.Errorf("--from %s: exit %d\n%s", from, code, stderr)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("--from %s: %s written (%v)", from, out, err)
		}
	}
}

package reports

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/diff"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden compares got with testdata/name, or rewrites it under -update.
// A mismatch shows a line diff.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run `go test ./reports -update` to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (- want, + got, unified; `go test ./reports -update` accepts the new output):\n%s",
			path, lineDiff(string(want), string(got)))
	}
}

// lineDiff is a unified line diff of a against b (go-internal/diff), to
// read a golden mismatch.
func lineDiff(a, b string) string {
	return string(diff.Diff("want", []byte(a), "got", []byte(b)))
}

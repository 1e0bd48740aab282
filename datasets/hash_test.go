package datasets

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFileSHA256(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "a.jsonl")
	if err := os.WriteFile(path, []byte("abc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte("abc\n"))
	if got := FileSHA256(path, nil); got != hex.EncodeToString(sum[:]) {
		t.Errorf("local file: %q", got)
	}
	if got := FileSHA256(path+".missing", nil); got != "" {
		t.Errorf("missing file: %q", got)
	}
	objects := Opener(func(name string) (io.ReadCloser, error) {
		if name == "s3://b/a.jsonl" {
			return io.NopCloser(strings.NewReader("abc\n")), nil
		}
		return nil, errors.New("no such object")
	})
	if got := FileSHA256("s3://b/a.jsonl", objects); got != hex.EncodeToString(sum[:]) {
		t.Errorf("object: %q", got)
	}
	if got := FileSHA256("s3://b/none", objects); got != "" {
		t.Errorf("missing object: %q", got)
	}
}

package automode

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzRead: a settings file either reads or fails with an error that names
// the file; it never panics, and what it reads are non-blank strings with a
// line inside the file.
func FuzzRead(f *testing.F) {
	for _, p := range []string{"testdata/home/.claude/settings.json", "testdata/managed/managed-settings.json",
		"testdata/broken/not-string.json", "testdata/broken/trailing-comma.json"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"autoMode":{"soft_deny":["$defaults"," "]}}`))
	f.Add([]byte(`{"autoMode":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "settings.json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		lines := strings.Count(string(data), "\n") + 1
		src, err := Read(KindUser, path, func(string) {})
		if err != nil {
			if !strings.HasPrefix(err.Error(), path) {
				t.Fatalf("error without the file name: %v", err)
			}
			return
		}
		for k, list := range src.lists {
			for _, e := range list {
				if strings.TrimSpace(e.Text) == "" || e.Line < 1 || e.Line > lines || e.Key != k {
					t.Fatalf("entry %+v (file has %d lines)", e, lines)
				}
			}
		}
	})
}

package outfile_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/outfile"
)

// TestWriteStdoutAllOrNothing: to stdout the output appears whole, or
// not at all when the writer fails half-way.
func TestWriteStdoutAllOrNothing(t *testing.T) {
	for _, path := range []string{"", "-", "/dev/stdout"} {
		var out bytes.Buffer
		if err := outfile.Write(path, &out, func(w io.Writer) error { _, err := io.WriteString(w, "a\nb\n"); return err }); err != nil {
			t.Fatal(err)
		}
		if out.String() != "a\nb\n" {
			t.Errorf("%q: stdout %q", path, out.String())
		}
		out.Reset()
		boom := errors.New("boom")
		err := outfile.Write(path, &out, func(w io.Writer) error {
			_, _ = io.WriteString(w, "half a dataset\n")
			return boom
		})
		if !errors.Is(err, boom) || out.Len() != 0 {
			t.Errorf("%q: failure wrote %q to stdout, err %v", path, out.String(), err)
		}
	}
}

// TestWriteFileKeepsOldOnFailure: a file is replaced whole, and a failed
// write leaves the old content.
func TestWriteFileKeepsOldOnFailure(t *testing.T) {
	p := filepath.Join(t.TempDir(), "out.jsonl")
	var stdout bytes.Buffer
	if err := outfile.Write(p, &stdout, func(w io.Writer) error { _, err := io.WriteString(w, "old\n"); return err }); err != nil {
		t.Fatal(err)
	}
	_ = outfile.Write(p, &stdout, func(w io.Writer) error {
		_, _ = io.WriteString(w, "new, half")
		return errors.New("boom")
	})
	if b, _ := os.ReadFile(p); string(b) != "old\n" || stdout.Len() != 0 {
		t.Errorf("file %q after a failed write (want old), stdout %q", b, stdout.String())
	}
	if outfile.Dest(p) != p || outfile.Dest("") != "stdout" {
		t.Errorf("Dest: %q, %q", outfile.Dest(p), outfile.Dest(""))
	}
}

func TestJSONAndBytes(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s.json")
	if err := outfile.JSON(p, map[string]int{"a": 1}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "{\n  \"a\": 1\n}\n" {
		t.Errorf("JSON wrote %q", b)
	}
	if err := outfile.Bytes(p, []byte("x")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "x" {
		t.Errorf("Bytes wrote %q", b)
	}
}

// TestFilesRefusesToOverwrite: without overwrite nothing is written when
// one file exists; with it every file is.
func TestFilesRefusesToOverwrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "proj")
	files := []outfile.File{{Name: "a.toml", Data: []byte("a")}, {Name: "b.jsonl", Data: []byte("b")}}
	paths, err := outfile.Files(dir, files, false)
	if err != nil || len(paths) != 2 || paths[0] != filepath.Join(dir, "a.toml") {
		t.Fatalf("Files: %v, %v", paths, err)
	}
	if err := os.Remove(paths[0]); err != nil {
		t.Fatal(err)
	}
	_, err = outfile.Files(dir, []outfile.File{{Name: "a.toml", Data: []byte("A")}, {Name: "b.jsonl", Data: []byte("B")}}, false)
	if !errors.Is(err, outfile.ErrExists) || err.Error() != filepath.Join(dir, "b.jsonl")+" exists" {
		t.Fatalf("existing file: err %v", err)
	}
	if _, serr := os.Stat(paths[0]); serr == nil {
		t.Error("a.toml written although b.jsonl existed")
	}
	if _, err := outfile.Files(dir, []outfile.File{{Name: "b.jsonl", Data: []byte("B")}}, true); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "b.jsonl")); string(b) != "B" {
		t.Errorf("overwrite: %q", b)
	}
}

func TestStdinCount(t *testing.T) {
	if n := outfile.StdinCount([]string{"a", "-"}, nil, []string{"-", "-"}); n != 3 {
		t.Errorf("StdinCount = %d, want 3", n)
	}
}

// TestWriteCases: cases whose sessions come out together make a file
// marked grouped; interleaved sessions leave it unmarked; stdout gets the
// plain lines.
func TestWriteCases(t *testing.T) {
	mk := func(id, sess string) *datasets.Case {
		c := &datasets.Case{ID: id, SessionID: sess, HookPoint: "tool.before"}
		c.Tool.Name = "Bash"
		return c
	}
	produce := func(cs ...*datasets.Case) func(func(*datasets.Case) error) error {
		return func(emit func(*datasets.Case) error) error {
			for _, c := range cs {
				if err := emit(c); err != nil {
					return err
				}
			}
			return nil
		}
	}
	dir := t.TempDir()
	grouped, mixed := filepath.Join(dir, "g.jsonl"), filepath.Join(dir, "m.jsonl")
	if err := outfile.WriteCases(grouped, nil, produce(mk("a", "s1"), mk("b", "s1"), mk("c", "s2"))); err != nil {
		t.Fatal(err)
	}
	if err := outfile.WriteCases(mixed, nil, produce(mk("a", "s1"), mk("c", "s2"), mk("b", "s1"))); err != nil {
		t.Fatal(err)
	}
	g, _ := os.ReadFile(grouped)
	m, _ := os.ReadFile(mixed)
	marker := `{"` + datasets.SessionsField + `":"` + datasets.SessionsGrouped + `",`
	if !bytes.HasPrefix(g, []byte(marker)) || bytes.Count(g, []byte("\n")) != 3 {
		t.Errorf("grouped file:\n%s", g)
	}
	if bytes.Contains(m, []byte(datasets.SessionsField)) || bytes.Count(m, []byte("\n")) != 3 {
		t.Errorf("interleaved file marked or short:\n%s", m)
	}
	var out bytes.Buffer
	if err := outfile.WriteCases("-", &out, produce(mk("a", "s1"))); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), `{"id":"a"`) || strings.Count(out.String(), "\n") != 1 {
		t.Errorf("stdout: %q", out.String())
	}
}

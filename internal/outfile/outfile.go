// Package outfile writes what a command was asked to write with --out:
// a file, replaced atomically (reports/rundir.WriteFileAtomic: a reader
// never sees half of it, a device or FIFO is written through), or
// standard output, spooled first so that a failure half-way prints
// nothing rather than part of a dataset. Not a stable Go API.
//
// Where to look:
//
//	outfile.go       ToStdout, Write, Dest, Bytes, JSON, Files, StdinCount, WriteCases (cases JSONL, marked grouped)
//	outfile_test.go  stdout spooling on failure, atomic files, JSON, Files' refusal to overwrite
package outfile

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/reports/rundir"
)

// ToStdout reports whether an --out value means standard output: "-",
// or /dev/stdout, which is treated the same (never replaced by a file).
func ToStdout(path string) bool { return path == "-" || path == "/dev/stdout" }

// Write writes through write into path atomically, or to stdout when
// path is "", "-" or /dev/stdout. Stdout output is spooled to a temporary
// file first, so that a failure half-way prints nothing.
func Write(path string, stdout io.Writer, write func(io.Writer) error) error {
	if path != "" && !ToStdout(path) {
		return rundir.WriteFileAtomic(path, write)
	}
	f, err := os.CreateTemp("", "apeval-out-*.jsonl")
	if err != nil {
		return err
	}
	defer func() {
		_ = f.Close()
		_ = os.Remove(f.Name())
	}()
	bw := bufio.NewWriterSize(f, 64<<10)
	if err := write(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	_, err = io.Copy(stdout, f)
	return err
}

// Dest names where Write wrote, for a summary line: path, or "stdout".
func Dest(path string) string {
	if path == "" {
		return "stdout"
	}
	return path
}

// Bytes writes data to path atomically.
func Bytes(path string, data []byte) error {
	return rundir.WriteFileAtomic(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// JSON writes v to path atomically as indented JSON (two spaces, one
// trailing newline), as every --summary file is written.
func JSON(path string, v any) error {
	return rundir.WriteFileAtomic(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	})
}

// File is one file of a set Files writes: its name in the directory and
// its content (the sample's files, datasets.SampleFiles, are of this type).
type File = datasets.SampleFile

// ErrExists is the error of Files when a file exists and overwriting was
// not asked for.
var ErrExists = errors.New("exists")

// Files creates dir and writes files into it, each atomically, in order,
// and returns their paths. Unless overwrite, it first checks that none
// exists and writes nothing if one does (an error wrapping ErrExists that
// names it).
func Files(dir string, files []File, overwrite bool) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if !overwrite {
		for _, f := range files {
			p := filepath.Join(dir, f.Name)
			if _, err := os.Stat(p); err == nil {
				return nil, fmt.Errorf("%s %w", p, ErrExists)
			} else if !errors.Is(err, fs.ErrNotExist) {
				return nil, err
			}
		}
	}
	var paths []string
	for _, f := range files {
		p := filepath.Join(dir, f.Name)
		if err := Bytes(p, f.Data); err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// StdinCount counts the paths that read standard input ("-"), over every
// list given: at most one of a command's inputs can read it.
func StdinCount(lists ...[]string) int {
	n := 0
	for _, l := range lists {
		for _, p := range l {
			if p == "-" {
				n++
			}
		}
	}
	return n
}

// WriteCases writes the cases produce emits as apeval.case/v1 JSONL to
// path atomically, or streamed to stdout when path means it (ToStdout; a
// long import shows its cases as they come). When every session's cases
// came out together (datasets.Grouping), a written file is marked
// grouped (datasets.MarkGrouped: docs/cases.md, "Grouped sessions"); a
// device or FIFO given as path is written through, never read back.
func WriteCases(path string, stdout io.Writer, produce func(emit func(*datasets.Case) error) error) error {
	var grouping datasets.Grouping
	write := func(w io.Writer) error {
		return produce(func(c *datasets.Case) error {
			grouping.Add(c)
			return datasets.WriteJSONL(w, c)
		})
	}
	if ToStdout(path) {
		bw := bufio.NewWriterSize(stdout, 64<<10)
		if err := write(bw); err != nil {
			return err
		}
		return bw.Flush()
	}
	if err := rundir.WriteFileAtomic(path, write); err != nil {
		return err
	}
	if !grouping.Grouped() || !rundir.IsRegularOrAbsent(path) {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return rundir.WriteFileAtomic(path, func(w io.Writer) error { return datasets.MarkGrouped(w, f) })
}

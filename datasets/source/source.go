// Package source is a command's dataset input (Source, Open): case
// files, object-storage URLs (a pattern matches objects in the bucket's
// listing), stdin (spooled so it can be read twice) or the embedded
// sample; Readers over it classify tools with the policy's categories.
// The datasets package links no cloud SDK: this package gives it the
// object-storage opener (URLs). It is not a stable Go API.
//
// Where to look:
//
//	source.go   Source, Open, Reader, SpoolStdin, ScanStats, Tools, Refs, ApproxCases
//	urls.go     URLs (the object-storage opener), OpenReader, WeakLabels, expand (bucket patterns)
//
// Not a stable Go API: apeval is a command, and this package serves it;
// its exported names change with the command, without a compatibility
// promise between versions.
package source

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/mask"
	"github.com/apeval/apeval/internal/objstore"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports/rundir"
)

// Source is the dataset input of a command: files and object-storage
// URLs, stdin or the embedded sample. Stdin is spooled to a temporary file
// so it can be read twice (the recorded-judge scan and the replay).
type Source struct {
	paths  []string
	stdin  io.Reader
	sample bool
	temp   string
	open   []*os.File
	// Done stops its Readers' waiting for input when the command is
	// interrupted (datasets.Reader.Done): a stdin that sends nothing must
	// not keep Ctrl-C from working.
	Done <-chan struct{}
	// MaxIDsInMemory is its Readers' (0: the datasets default).
	MaxIDsInMemory int
}

// Open is the source of paths (none: the embedded sample; "-": stdin),
// each object-storage URL replaced by the objects its pattern matches. A
// local path that does not exist or is a directory is an error naming it.
func Open(paths []string, stdin io.Reader) (*Source, error) {
	if len(paths) == 0 {
		return &Source{stdin: stdin, sample: true}, nil
	}
	paths, err := expand(context.Background(), paths)
	if err != nil {
		return nil, err
	}
	s := &Source{paths: paths, stdin: stdin}
	for _, p := range paths {
		if p == "-" || objstore.IsURL(p) {
			continue
		}
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if st.IsDir() {
			return nil, fmt.Errorf("--dataset %s is a directory; give the JSONL files", p)
		}
	}
	return s, nil
}

// SpoolStdin copies stdin to a temporary file so the dataset can be read twice.
func (s *Source) SpoolStdin() error {
	if s.temp != "" || !slices.Contains(s.paths, "-") {
		return nil
	}
	f, err := os.CreateTemp("", "apeval-stdin-*.jsonl")
	if err != nil {
		return err
	}
	s.temp = f.Name()
	if _, err := io.Copy(f, s.stdin); err != nil {
		f.Close()
		return fmt.Errorf("reading stdin: %w", err)
	}
	return f.Close()
}

// Cleanup closes the files its Readers opened and removes the spooled stdin.
func (s *Source) Cleanup() {
	for _, f := range s.open {
		if f != nil {
			_ = f.Close()
		}
	}
	if s.temp != "" {
		_ = os.Remove(s.temp)
	}
}

// Reader opens a fresh pass over the dataset, classifying tools with the
// policy's category overrides.
func (s *Source) Reader(p *replay.Policy) *datasets.Reader {
	var r *datasets.Reader
	switch {
	case s.sample:
		r = OpenReader([]string{"-"}, datasets.SampleCases())
		r.StdinName = datasets.SampleName
	case s.temp != "":
		f, err := os.Open(s.temp)
		if err != nil {
			f = nil // the Reader reports the failure on its first Scan
		}
		r = OpenReader(s.paths, f)
		s.open = append(s.open, f)
	default:
		r = OpenReader(s.paths, s.stdin)
	}
	if len(p.Categories) > 0 {
		r.Categories = datasets.CategoryMap(p.Categories)
	}
	r.MaxIDsInMemory = s.MaxIDsInMemory
	r.Done = s.Done
	return r
}

// Refs name the datasets and their SHA-256 for run.json (reading every
// file once more; the URLs masked).
func (s *Source) Refs() []rundir.FileRef {
	if s.sample {
		return []rundir.FileRef{{Name: datasets.SampleName, SHA256: datasets.SampleSHA256()}}
	}
	var out []rundir.FileRef
	for _, p := range s.paths {
		if p == "-" {
			out = append(out, rundir.FileRef{Name: datasets.StdinName})
			continue
		}
		name := p
		if objstore.IsURL(p) {
			name = mask.Message(p)
		}
		out = append(out, rundir.FileRef{Name: name, SHA256: datasets.FileSHA256(p, URLs)})
	}
	return out
}

// ScanStats reads the whole dataset once for its statistics
// (replay.ScanStats); stdin is spooled first, to be read again.
func (s *Source) ScanStats(p *replay.Policy, skipInvalid bool) (*datasets.Stats, error) {
	if err := s.SpoolStdin(); err != nil {
		return nil, err
	}
	r := s.Reader(p)
	defer r.Close()
	return replay.ScanStats(r, p, skipInvalid)
}

// Tools lists every tool name of the dataset with its cases, category
// and where the category came from (datasets.ToolsOf, under the policy's
// [categories] table).
func (s *Source) Tools(p *replay.Policy) ([]datasets.ToolRow, error) {
	r := s.Reader(p)
	defer r.Close()
	return datasets.ToolsOf(r, datasets.CategoryMap(p.Categories))
}

// ApproxCases counts the lines of the dataset files, for the progress
// display's total and ETA when no statistics pass was made; 0 when a
// dataset is stdin or cannot be read (no ETA then).
func (s *Source) ApproxCases() int64 {
	if s.sample || slices.Contains(s.paths, "-") {
		return 0
	}
	for _, p := range s.paths {
		if objstore.IsURL(p) {
			return 0 // counting lines would read the objects once more
		}
	}
	var n int64
	buf := make([]byte, 1<<20)
	for _, p := range s.paths {
		f, err := os.Open(p)
		if err != nil {
			return 0
		}
		head := make([]byte, 4)
		k, _ := io.ReadFull(f, head)
		if datasets.Compression(head[:k]) != "" {
			_ = f.Close()
			return 0 // line count of a compressed file is unknown without decompressing
		}
		n += int64(bytes.Count(head[:k], []byte{'\n'}))
		for {
			k, err := f.Read(buf)
			n += int64(bytes.Count(buf[:k], []byte{'\n'}))
			if err != nil {
				break
			}
		}
		_ = f.Close()
	}
	return n
}

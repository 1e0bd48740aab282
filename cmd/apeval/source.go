package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/mask"
	"github.com/apeval/apeval/internal/objstore"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports/rundir"
)

// loadPolicy reads --policy, or the embedded sample policy when empty
// (replay.ReadPolicy).
func loadPolicy(path string) (*replay.Policy, *rundir.FileRef, error) {
	p, name, sha, err := replay.ReadPolicy(path)
	if err != nil {
		return nil, nil, usageError{err}
	}
	return p, &rundir.FileRef{Name: name, SHA256: sha}, nil
}

// source is the dataset input of a run: files, stdin or the embedded sample.
// Stdin is spooled to a temporary file so it can be read twice (the
// recorded-judge scan and the replay).
type source struct {
	paths  []string
	stdin  io.Reader
	sample bool
	temp   string
	open   []*os.File
	// done stops its Readers' waiting for input when the command is
	// interrupted (datasets.Reader.Done): a stdin that sends nothing must
	// not keep Ctrl-C from working.
	done <-chan struct{}
}

func openSource(paths []string, stdin io.Reader) (*source, error) {
	if len(paths) == 0 {
		return &source{stdin: stdin, sample: true}, nil
	}
	paths, err := expandDatasets(context.Background(), paths)
	if err != nil {
		return nil, err
	}
	s := &source{paths: paths, stdin: stdin}
	for _, p := range paths {
		if p == "-" || objstore.IsURL(p) {
			continue
		}
		st, err := os.Stat(p)
		if err != nil {
			return nil, usageError{err}
		}
		if st.IsDir() {
			return nil, usagef("--dataset %s is a directory; give the JSONL files", p)
		}
	}
	return s, nil
}

// spoolStdin copies stdin to a temporary file so the dataset can be read twice.
func (s *source) spoolStdin() error {
	if s.temp != "" || !contains(s.paths, "-") {
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

func (s *source) cleanup() {
	for _, f := range s.open {
		if f != nil {
			_ = f.Close()
		}
	}
	if s.temp != "" {
		_ = os.Remove(s.temp)
	}
}

// reader opens a fresh pass over the dataset, classifying tools with the
// policy's category overrides.
func (s *source) reader(p *replay.Policy) *datasets.Reader {
	var r *datasets.Reader
	switch {
	case s.sample:
		r = openDatasets([]string{"-"}, datasets.SampleCases())
		r.StdinName = datasets.SampleName
	case s.temp != "":
		f, err := os.Open(s.temp)
		if err != nil {
			f = nil // the Reader reports the failure on its first Scan
		}
		r = openDatasets(s.paths, f)
		s.open = append(s.open, f)
	default:
		r = openDatasets(s.paths, s.stdin)
	}
	if len(p.Categories) > 0 {
		r.Categories = datasets.CategoryMap(p.Categories)
	}
	r.MaxIDsInMemory = maxIDsInMemory
	r.Done = s.done
	return r
}

// maxIDsInMemory is the Readers' MaxIDsInMemory: 0, the datasets default,
// except in tests of duplicates found at the end of the input.
var maxIDsInMemory int

func (s *source) refs() []rundir.FileRef {
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
		out = append(out, rundir.FileRef{Name: name, SHA256: datasets.FileSHA256(p, datasetURLs)})
	}
	return out
}

// scanStats reads the whole dataset once for its statistics
// (replay.ScanStats); stdin is spooled first, to be read again.
func scanStats(s *source, p *replay.Policy, skipInvalid bool) (*datasets.Stats, error) {
	if err := s.spoolStdin(); err != nil {
		return nil, usageError{err}
	}
	r := s.reader(p)
	defer r.Close()
	st, err := replay.ScanStats(r, p, skipInvalid)
	if err != nil {
		return nil, usageError{err}
	}
	return st, nil
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// approxCases counts the lines of the dataset files, for the progress
// display's total and ETA when no statistics pass was made; 0 when a
// dataset is stdin or cannot be read (no ETA then).
func (s *source) approxCases() int64 {
	if s.sample || contains(s.paths, "-") {
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

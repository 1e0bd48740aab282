package main

import (
	"io"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/datasets/source"
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

// openSource is source.Open for a command: its errors are usage errors.
func openSource(paths []string, stdin io.Reader) (*source.Source, error) {
	s, err := source.Open(paths, stdin)
	if err != nil {
		return nil, usageError{err}
	}
	s.MaxIDsInMemory = maxIDsInMemory
	return s, nil
}

// maxIDsInMemory is the Readers' MaxIDsInMemory: 0, the datasets default,
// except in tests of duplicates found at the end of the input.
var maxIDsInMemory int

// scanStats is Source.ScanStats for a command: its errors are usage errors.
func scanStats(s *source.Source, p *replay.Policy, skipInvalid bool) (*datasets.Stats, error) {
	st, err := s.ScanStats(p, skipInvalid)
	if err != nil {
		return nil, usageError{err}
	}
	return st, nil
}

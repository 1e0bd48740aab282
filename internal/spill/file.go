package spill

import (
	"errors"
	"io"
	"os"
	"sync"
)

// File is the one temporary file of a spill: sorted runs (and whatever a
// user keeps beside them) written once each at an offset reserved one after
// the other, read back with ReadAt. Every disk spill of apeval goes through
// it — metrics' lists (Pool), replay's idle sessions, the datasets
// duplicate-id check — so that there is one way a temporary file is made,
// hidden and removed.
//
// The file is created by the first Reserve, in dir ("" for os.TempDir())
// with the os.CreateTemp pattern, and unlinked right after it is opened, so
// nothing is left behind however the process ends; where a system cannot
// unlink an open file (Windows), Close removes it. A File is safe for
// concurrent use: Reserve hands out disjoint ranges, and WriteAt and
// ReadAt on them need no lock.
type File struct {
	dir, pattern string

	mu     sync.Mutex
	f      *os.File
	remove string // the name to remove at Close when it could not be unlinked
	end    int64
	closed bool
}

// NewFile returns a File that creates its temporary file in dir with the
// os.CreateTemp pattern when the first bytes are reserved.
func NewFile(dir, pattern string) *File { return &File{dir: dir, pattern: pattern} }

// errClosed is what reading or writing a closed File returns.
var errClosed = errors.New("spill: the temporary file was closed")

// Reserve returns an offset where n bytes may be written (the file's end
// before the call), creating the file if it does not exist yet. An error
// is os.CreateTemp's (or that the File was closed).
func (s *File) Reserve(n int64) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return 0, errClosed
	}
	if s.f == nil {
		f, err := os.CreateTemp(s.dir, s.pattern)
		if err != nil {
			return 0, err
		}
		if err := os.Remove(f.Name()); err != nil {
			s.remove = f.Name()
		}
		s.f = f
	}
	off := s.end
	s.end += n
	return off, nil
}

// Created reports whether the file exists (something was reserved).
func (s *File) Created() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.f != nil
}

// Size returns the bytes reserved so far.
func (s *File) Size() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.end
}

// Name returns the file's name ("" before it is created).
func (s *File) Name() string {
	f := s.file()
	if f == nil {
		return ""
	}
	return f.Name()
}

func (s *File) file() *os.File {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.f
}

// WriteAt writes b at off, in a range Reserve returned.
func (s *File) WriteAt(b []byte, off int64) (int, error) {
	f := s.file()
	if f == nil {
		return 0, errClosed
	}
	return f.WriteAt(b, off)
}

// ReadAt reads len(b) bytes at off.
func (s *File) ReadAt(b []byte, off int64) (int, error) {
	f := s.file()
	if f == nil {
		return 0, errClosed
	}
	return f.ReadAt(b, off)
}

// Section returns a reader of the n bytes at off (a run).
func (s *File) Section(off, n int64) *io.SectionReader { return io.NewSectionReader(s, off, n) }

// Close closes the file, removing it where it could not be unlinked. It may
// be called more than once; the File cannot be used afterwards.
func (s *File) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if s.f == nil {
		return nil
	}
	err := s.f.Close()
	if s.remove != "" {
		err = errors.Join(err, os.Remove(s.remove))
	}
	s.f = nil
	return err
}

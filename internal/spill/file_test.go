package spill

import (
	"bytes"
	"errors"
	"io"
	"path/filepath"
	"sync"
	"testing"
)

// TestFileReservesDisjointRanges: concurrent writers each reserve a range,
// write it and read it back intact; the ranges tile the file; nothing is
// visible in the directory while in use (where the system can unlink an
// open file) nor after Close; a closed File refuses reads, writes and
// reservations.
func TestFileReservesDisjointRanges(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	f := NewFile(dir, "apeval-test-*")
	if f.Created() || f.Name() != "" {
		t.Fatal("file created before the first reservation")
	}
	const writers, each = 8, 50
	offs := make([][]int64, writers)
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				n := 1 + (w*each+i)%37
				off, err := f.Reserve(int64(n))
				if err != nil {
					errs <- err
					return
				}
				b := bytes.Repeat([]byte{byte(w*each + i)}, n)
				if _, err := f.WriteAt(b, off); err != nil {
					errs <- err
					return
				}
				got := make([]byte, n)
				if _, err := io.ReadFull(f.Section(off, int64(n)), got); err != nil || !bytes.Equal(got, b) {
					errs <- errors.Join(err, errors.New("read back differs"))
					return
				}
				offs[w] = append(offs[w], off)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	// Every byte of the file belongs to exactly one range, and holds its
	// writer's byte.
	total := int64(0)
	for w := range writers {
		for i, off := range offs[w] {
			n := 1 + (w*each+i)%37
			total += int64(n)
			b := make([]byte, n)
			if _, err := f.ReadAt(b, off); err != nil {
				t.Fatal(err)
			}
			if want := bytes.Repeat([]byte{byte(w*each + i)}, n); !bytes.Equal(b, want) {
				t.Fatalf("range %d/%d at %d overwritten", w, i, off)
			}
		}
	}
	if f.Size() != total {
		t.Errorf("size %d, reserved %d", f.Size(), total)
	}
	ls := func() []string { m, _ := filepath.Glob(filepath.Join(dir, "*")); return m }
	if m := ls(); len(m) != 0 && f.remove == "" {
		t.Errorf("files in the directory while in use: %v", m)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if m := ls(); len(m) != 0 {
		t.Errorf("files left after Close: %v", m)
	}
	if _, err := f.ReadAt(make([]byte, 1), 0); !errors.Is(err, errClosed) {
		t.Errorf("ReadAt after Close: %v", err)
	}
	if _, err := f.WriteAt([]byte{1}, 0); !errors.Is(err, errClosed) {
		t.Errorf("WriteAt after Close: %v", err)
	}
	if _, err := f.Reserve(1); !errors.Is(err, errClosed) {
		t.Errorf("Reserve after Close: %v", err)
	}
}

// TestFileCreateError: a directory that does not exist is os.CreateTemp's
// error at the first Reservation, and nothing is created.
func TestFileCreateError(t *testing.T) {
	t.Parallel()
	f := NewFile(filepath.Join(t.TempDir(), "missing"), "apeval-test-*")
	if _, err := f.Reserve(8); err == nil || f.Created() {
		t.Fatalf("Reserve in a missing directory: err %v, created %v", err, f.Created())
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

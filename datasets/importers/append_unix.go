//go:build unix

package importers

import (
	"bytes"
	"io"
	"os"
	"syscall"
)

// AppendLine appends line (which ends in "\n") to the file at path with
// one write, holding an advisory exclusive lock (flock) so that agents
// recording at the same time never interleave their lines.
//
// It never leaves a partial line: a write that fails part way (a full
// disk, ulimit -f) is cut back to where it started, and a partial last
// line found before writing (a write cut by a crash of the machine) is
// removed, so the new line never glues onto it.
func AppendLine(path string, line []byte) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return err
	}
	werr := appendWhole(f, line)
	// Closing the file releases the lock.
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	return werr
}

func appendWhole(f *os.File, line []byte) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	size, err := completeSize(f, st.Size())
	if err != nil {
		return err
	}
	if size != st.Size() {
		if err := f.Truncate(size); err != nil {
			return err
		}
	}
	if _, err := f.Write(line); err != nil {
		// Only this process writes under the lock: cutting back to size
		// removes exactly the part of the line that was written.
		if terr := f.Truncate(size); terr != nil {
			return terr
		}
		return err
	}
	return nil
}

// completeSize is the length of the file's complete lines: size, or less
// when the file does not end in a newline.
func completeSize(f *os.File, size int64) (int64, error) {
	if size == 0 {
		return 0, nil
	}
	buf := make([]byte, 64<<10)
	end := size
	for end > 0 {
		n := int64(len(buf))
		if n > end {
			n = end
		}
		chunk := buf[:n]
		if _, err := f.ReadAt(chunk, end-n); err != nil && err != io.EOF {
			return 0, err
		}
		if end == size && chunk[n-1] == '\n' {
			return size, nil
		}
		if i := bytes.LastIndexByte(chunk, '\n'); i >= 0 {
			return end - n + int64(i) + 1, nil
		}
		end -= n
	}
	return 0, nil
}

// openNoBlock opens path for reading without waiting for a FIFO's writer.
func openNoBlock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

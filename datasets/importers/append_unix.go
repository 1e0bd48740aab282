//go:build unix

package importers

import (
	"os"
	"syscall"
)

// AppendLine appends line (which ends in "\n") to the file at path with
// one write, holding an advisory exclusive lock (flock) so that agents
// recording at the same time never interleave their lines.
func AppendLine(path string, line []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return err
	}
	_, werr := f.Write(line)
	// Closing the file releases the lock.
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	return werr
}

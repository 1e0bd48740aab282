//go:build unix

package datasets

import (
	"os"
	"syscall"
)

// lockExclusive takes f's advisory exclusive lock (flock), waiting for it.
func lockExclusive(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_EX) }

func unlock(f *os.File) { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

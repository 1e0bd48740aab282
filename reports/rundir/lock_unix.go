//go:build unix

package rundir

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive, non-blocking lock on f; the kernel drops it
// when the process dies, so a killed run never leaves the directory locked.
func lockFile(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}

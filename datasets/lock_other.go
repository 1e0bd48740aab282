//go:build !unix

package datasets

import "os"

// lockExclusive: no advisory lock on this platform; O_APPEND still keeps
// whole lines of one write together.
func lockExclusive(*os.File) error { return nil }

func unlock(*os.File) {}

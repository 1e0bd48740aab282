//go:build !unix

package rundir

import "os"

// lockFile is a no-op where flock is not available: two runs into one
// directory are not detected there.
func lockFile(*os.File) error { return nil }

//go:build !unix

package importers

import "time"

var cpuStart = time.Now()

// cpuSeconds falls back to wall time where getrusage is not available.
func cpuSeconds() float64 { return time.Since(cpuStart).Seconds() }

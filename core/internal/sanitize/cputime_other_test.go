//go:build !linux

package sanitize

import "time"

var processStart = time.Now()

// threadCPU falls back to wall time where RUSAGE_THREAD does not exist.
func threadCPU() time.Duration { return time.Since(processStart) }

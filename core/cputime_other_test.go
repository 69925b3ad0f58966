//go:build !linux

package core

import "time"

// cpuTime is the wall clock where the process's CPU time is not read: the
// benchmarks' ratios are then only as good as the machine is quiet.
func cpuTime() int64 { return time.Now().UnixNano() }

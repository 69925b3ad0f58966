package core

import "syscall"

// cpuTime is the CPU time the process has used, in nanoseconds (user and
// system, every thread: the garbage collector's work included), so that
// benchPair measures work rather than the wall clock of a shared machine.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

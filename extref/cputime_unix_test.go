//go:build unix

package extref

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has used, in user and system mode:
// on a busy machine it varies less than the wall-clock time.
func cpuTime() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

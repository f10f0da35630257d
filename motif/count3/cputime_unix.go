//go:build unix

package count3

import (
	"syscall"
	"time"
)

// processCPU is the process's user + system CPU time (phases' cpu
// figures: on a shared host the steadier measure than wall time).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

//go:build unix

package daemon

import "syscall"

// openFilesLimit returns the process's soft limit on open descriptors
// (RLIMIT_NOFILE), which the Go runtime raised to the hard limit at
// start; 0 if unknown or unlimited.
func openFilesLimit() uint64 {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return 0
	}
	cur := uint64(rl.Cur)
	if cur >= 1<<62 { // RLIM_INFINITY
		return 0
	}
	return cur
}

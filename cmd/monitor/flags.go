package main

import (
	"fmt"
	"slices"
	"time"

	"github.com/motifwatch/motifwatch/gpu"
)

// singleString is a string flag that may be given once: a second
// `--graph` is more likely a typo than a wish for the last one.
type singleString struct {
	value *string
	set   bool
}

func (s *singleString) String() string { return *s.value }
func (s *singleString) Type() string   { return "string" }

func (s *singleString) Set(v string) error {
	if s.set {
		return fmt.Errorf("given twice (%q, then %q): give it once", *s.value, v)
	}
	*s.value, s.set = v, true
	return nil
}

// Flags shared by mine and gpm, checked the same way in both.

// backends are the values of --backend.
var backends = []string{gpu.BackendCPU, gpu.BackendGPU, gpu.BackendAuto}

const backendUsage = "mining engine: cpu, gpu, or auto (the GPU when one is usable, else the CPU with a warning)"

const workersUsage = "CPU worker goroutines, or GPU warps for gpm (0: one per CPU; 64 warps per multiprocessor)"

// checkEngineFlags checks --backend, --workers and --devices.
func checkEngineFlags(cmd, backend string, workers int, devices []int) error {
	if !slices.Contains(backends, backend) {
		return usageError{fmt.Errorf("%s: --backend %q: want cpu, gpu or auto", cmd, backend)}
	}
	if workers < 0 {
		return usageError{fmt.Errorf("%s: --workers %d must not be negative (0: one per CPU)", cmd, workers)}
	}
	for _, d := range devices {
		if d < 0 {
			return usageError{fmt.Errorf("%s: --devices %d: device ordinals are 0 or more", cmd, d)}
		}
	}
	if len(devices) > 0 && backend == gpu.BackendCPU {
		return usageError{fmt.Errorf("%s: --devices needs --backend gpu or auto", cmd)}
	}
	return nil
}

// checkProgress checks --progress.
func checkProgress(cmd string, every time.Duration) error {
	if every < 0 {
		return usageError{fmt.Errorf("%s: --progress %s must not be negative (0: no progress lines)", cmd, every)}
	}
	return nil
}

package main

import (
	"fmt"
	"time"

	"github.com/motifwatch/motifwatch/internal/backend"
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

const backendUsage = "mining engine: cpu, gpu, or auto (the GPU when one is usable, else the CPU with a warning)"

const workersUsage = "CPU worker goroutines, or GPU warps for gpm (0: one per CPU; 64 warps per multiprocessor)"

// checkEngineFlags checks --backend, --workers and --devices.
func checkEngineFlags(cmd string, b backend.Backend, workers int, devices []int) error {
	if _, err := backend.Parse(string(b)); err != nil {
		return usageError{fmt.Errorf("%s: --backend %w", cmd, err)}
	}
	if workers < 0 {
		return usageError{fmt.Errorf("%s: --workers %d must not be negative (0: one per CPU)", cmd, workers)}
	}
	for _, d := range devices {
		if d < 0 {
			return usageError{fmt.Errorf("%s: --devices %d: device ordinals are 0 or more", cmd, d)}
		}
	}
	if len(devices) > 0 && b == backend.CPU {
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

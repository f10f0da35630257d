package main

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/motifwatch/motifwatch/config"
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

// gpuFlags are the --gpu-* flags of mine and bench: the GPU engine's
// tuning options, the config's engine.gpu section (docs/CONFIG.md), with
// its defaults.
type gpuFlags struct {
	g  config.GPU
	fs *pflag.FlagSet
}

func addGPUFlags(f *pflag.FlagSet) *gpuFlags {
	d := config.DefaultConfig().Engine.GPU
	gf := &gpuFlags{g: d, fs: f}
	f.IntVar(&gf.g.Chunks, "gpu-chunks", d.Chunks, "engine.gpu.chunks: root chunks per device a mining call is cut into (0: 4 with several devices, 1 with one)")
	f.Int64Var(&gf.g.PartitionEdges, "gpu-partition-edges", d.PartitionEdges, "engine.gpu.partition_edges: mine in time partitions of this many root edges (0: only when the window does not fit a device)")
	f.Float64Var(&gf.g.MemoryFraction, "gpu-memory-fraction", d.MemoryFraction, "engine.gpu.memory_fraction: share of a device's memory the window may take before mining in time partitions")
	f.BoolVar(&gf.g.Count3OnDevice, "gpu-count3-on-device", d.Count3OnDevice, "engine.gpu.count3_on_device: count the SNAP shapes over the device's window mirror instead of on the host's cores")
	f.BoolVar(&gf.g.CountSmallOnHost, "gpu-count-small-on-host", d.CountSmallOnHost, "engine.gpu.count_small_on_host: two-edge and two-node four-edge count queries counted on the host, not mined on the device")
	return gf
}

// options are the flags' values (the defaults where no flags were added:
// a mineOptions built by a test).
func (gf *gpuFlags) options() config.GPU {
	if gf == nil {
		return config.DefaultConfig().Engine.GPU
	}
	return gf.g
}

// check checks the flags' values as config validation checks the keys.
func (gf *gpuFlags) check(cmd string) error {
	switch g := gf.options(); {
	case g.Chunks < 0:
		return usageError{fmt.Errorf("%s: --gpu-chunks %d must not be negative (0: 4 per device with several devices, 1 with one)", cmd, g.Chunks)}
	case g.PartitionEdges < 0:
		return usageError{fmt.Errorf("%s: --gpu-partition-edges %d must not be negative (0: partitions only when the window does not fit)", cmd, g.PartitionEdges)}
	case !(g.MemoryFraction > 0 && g.MemoryFraction <= 1):
		return usageError{fmt.Errorf("%s: --gpu-memory-fraction %v must be in (0, 1]", cmd, g.MemoryFraction)}
	}
	return nil
}

// apply sets the flags given on the command line over c (bench: over the
// config's engine.gpu).
func (gf *gpuFlags) apply(c *config.GPU) {
	if gf.fs.Changed("gpu-chunks") {
		c.Chunks = gf.g.Chunks
	}
	if gf.fs.Changed("gpu-partition-edges") {
		c.PartitionEdges = gf.g.PartitionEdges
	}
	if gf.fs.Changed("gpu-memory-fraction") {
		c.MemoryFraction = gf.g.MemoryFraction
	}
	if gf.fs.Changed("gpu-count3-on-device") {
		c.Count3OnDevice = gf.g.Count3OnDevice
	}
	if gf.fs.Changed("gpu-count-small-on-host") {
		c.CountSmallOnHost = gf.g.CountSmallOnHost
	}
}

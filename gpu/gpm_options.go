package gpu

import "time"

// GPMOptions configure the static GPM engine (DuMato's DM_WC / DM_OPT on
// one device): one warp per traversal over DFS-wide TE arrays in global
// memory.
type GPMOptions struct {
	// Device is the CUDA device ordinal.
	Device int
	// Warps is the number of concurrent traversals (TEs); 0: 64 per
	// multiprocessor, capped so the TE arrays fit MemoryLimit.
	Warps int
	// Balance turns on the paper's CPU-driven redistribution: the host
	// reads the warps' activity every Interval and, when fewer than
	// Threshold × Warps are active, stops the kernel (warps park in a
	// consistent state), moves unexplored extensions from donors to idle
	// warps round-robin, and relaunches.
	Balance   bool
	Threshold float64       // 0: 0.5
	Interval  time.Duration // 0: 2ms
	// MemoryLimit bounds the device memory for the TE arrays (the paper's
	// traversals × max degree × k² bound, checked before launch); 0: half
	// the device's memory.
	MemoryLimit int64
}

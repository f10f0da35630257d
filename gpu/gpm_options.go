package gpu

import "time"

// GPMOptions configure the static GPM engine (DuMato's DM_WC / DM_OPT on
// one device): one warp per traversal over DFS-wide TE arrays in global
// memory. A job that finishes within its first kernel launch (balancing
// off, or on and done before the first slice ends) costs one launch and
// one synchronise: the warps start from their roots on the device, and
// no TE state crosses the bus.
type GPMOptions struct {
	// Device is the CUDA device ordinal.
	Device int
	// Warps is the number of concurrent traversals (TEs); 0: 64 per
	// multiprocessor. Without Balance it is capped at the vertex count
	// (each warp starts on its share of the roots; one past them would
	// never get work); with it, warps beyond the roots start idle and
	// take subtrees at the first redistribution. A job whose TE arrays
	// exceed MemoryLimit fails before launch (gpm.ErrMemory).
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
	// LiteralCliques counts cliques with the paper's generic workflow
	// (Extend from the first vertex, Filter lower, Filter is-clique)
	// instead of the pattern-aware kernel (DuMato's PA variant: each
	// level intersects the parent's candidates with the newest vertex's
	// neighbours): same counts; gpm.CPUOptions.LiteralCliques on the CPU.
	LiteralCliques bool
}

package gpu

import "time"

// DeviceInfo describes one device of the engine.
type DeviceInfo struct {
	Index, Ordinal  int
	Name            string
	Multiprocessors int
	TotalBytes      int64
	// ComputeCapability is the device's, "9.0" for an H100 or H200.
	ComputeCapability string
	// Kernels says, per module loaded at start, whether its sm_90 machine
	// code was loaded or its PTX compiled by the driver (and why), and the
	// time taken: "temporal: sm_90 (35 ms)".
	Kernels string
}

// DeviceStats are one device's running figures.
type DeviceStats struct {
	Index int
	// HeldBytes is device memory the engine holds (pool included);
	// InUseBytes what is in use; WindowBytes what the window mirror takes.
	HeldBytes, InUseBytes, WindowBytes int64
	WindowEdges                        int64
	// Busy is the time the device's thread spent on device work: Sync
	// (new edges uploaded, adjacency maintained on the device), Mine
	// (kernels) and Drain (enumerate buffers copied out and handed to the
	// sink) are its parts.
	Busy, Sync, Mine, Drain time.Duration
}

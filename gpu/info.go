package gpu

import "time"

// DeviceInfo describes one device of the engine.
type DeviceInfo struct {
	Index, Ordinal  int
	Name            string
	Multiprocessors int
	TotalBytes      int64
}

// DeviceStats are one device's running figures.
type DeviceStats struct {
	Index int
	// HeldBytes is device memory the engine holds (pool included);
	// InUseBytes what is in use; WindowBytes what the window mirror takes.
	HeldBytes, InUseBytes, WindowBytes int64
	WindowEdges                        int64
	// Busy is the time the device's thread spent on device work.
	Busy time.Duration
}

package gpu

import (
	"os"
	"strconv"
)

// defaultOccupancy is the mining kernel build used unless configured
// (measured on an H200: BENCHMARKS.md).
const defaultOccupancy = 5

// Options configure the GPU engine.
type Options struct {
	// Devices lists the CUDA device ordinals to use; an ordinal may repeat
	// to run several logical partitions on one GPU (each its own context),
	// which is how the multi-GPU paths are tested on one device. Empty:
	// every device found.
	Devices []int
	// OutRecords is the enumerate-mode output buffer per device, in
	// matches; a full buffer is drained to the sink and the search
	// resumes where it stopped. 0: 1<<20.
	OutRecords int
	// QueueTasks is the device work queue's capacity (subtrees handed
	// between warps). 0: 1<<16.
	QueueTasks int
	// Occupancy is the mining kernel's resident blocks per multiprocessor
	// (4, 5, 6 or 8, each a build of the kernel with its register budget);
	// the grid is that many blocks per multiprocessor. 0: the default
	// below, or $MOTIFWATCH_GPU_OCCUPANCY.
	Occupancy int
	// Chunks is how many root chunks a mining call is cut into per device,
	// pulled by the devices in turn so a slow chunk cannot stall the rest.
	// 0: 4.
	Chunks int
	// PartitionEdges, if positive, mines in time partitions of at most this
	// many root edges: each device holds only a partition's edges and the
	// delta of history before it (Everest's major and minor partitions),
	// taking partitions in time order. Without it, partitions are used only
	// when the window would not fit a device (see MemoryFraction).
	PartitionEdges int64
	// MemoryFraction is the share of a device's memory the window mirror
	// may take before mining switches to time partitions. 0: 0.3 (the
	// adjacency is rebuilt beside the old one, and scratch needs room).
	MemoryFraction float64
}

func (o Options) withDefaults() Options {
	if o.OutRecords <= 0 {
		o.OutRecords = 1 << 20
	}
	if o.QueueTasks <= 0 {
		o.QueueTasks = 1 << 16
	}
	if o.Chunks <= 0 {
		o.Chunks = 4
	}
	if o.Occupancy == 0 {
		o.Occupancy = defaultOccupancy
		if v, err := strconv.Atoi(os.Getenv("MOTIFWATCH_GPU_OCCUPANCY")); err == nil {
			o.Occupancy = v
		}
	}
	if o.MemoryFraction <= 0 {
		o.MemoryFraction = 0.3
	}
	return o
}

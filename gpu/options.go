package gpu

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
	// Blocks is the grid size of the mining kernel. 0: 8 per multiprocessor.
	Blocks int
	// Chunks is how many root chunks a mining call is cut into per device,
	// pulled by the devices in turn so a slow chunk cannot stall the rest.
	// 0: 4.
	Chunks int
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
	return o
}

package daemon

import "github.com/motifwatch/motifwatch/stream"

// dutyPolicy says which partitions' records this instance mines as last
// edges and dead-letters. Records of other partitions only join the
// window: their owner decides about them. Without scale-out an instance
// has every partition's duty (everyPartition); scaled out, the group's
// generation assigns it some (ownedPartitions).
type dutyPolicy interface {
	owns(partition int) bool
	// restrict tells the processor which partitions' edges it mines as
	// last edges.
	restrict(proc *stream.Processor)
}

// everyPartition is the duty of an instance without scale-out.
type everyPartition struct{}

func (everyPartition) owns(int) bool                { return true }
func (everyPartition) restrict(p *stream.Processor) { p.Own(nil) }

// ownedPartitions is the duty of a scaled-out instance: the partitions
// its generation of the group assigned to it.
type ownedPartitions struct {
	list []int
	set  map[int]bool
}

func newOwnedPartitions(partitions []int) ownedPartitions {
	o := ownedPartitions{list: partitions, set: make(map[int]bool, len(partitions))}
	for _, p := range partitions {
		o.set[p] = true
	}
	return o
}

func (o ownedPartitions) owns(partition int) bool      { return o.set[partition] }
func (o ownedPartitions) restrict(p *stream.Processor) { p.Own(o.list) }

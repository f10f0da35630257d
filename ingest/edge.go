package ingest

import "github.com/motifwatch/motifwatch/window"

// Origin locates a record in Kafka. Offsets are what the daemon commits,
// and (with the record's seq) what identifies an edge across restarts.
type Origin struct {
	Topic     string
	Partition int
	Offset    int64
}

// Value is one decoded attribute value, before it enters a window (whose
// string dictionary only the window's writer may touch).
type Value struct {
	Num  float64
	Str  string
	Kind window.Kind
	Set  bool // false: the record did not carry the attribute
}

// Edge is a decoded edge on its way from a record to the window.
type Edge struct {
	Src, Dst string
	// SrcKey and DstKey are Src's and Dst's keys in the decoder's node
	// dictionary (DecodeOptions.NodeKeys; 0: none): the window's writer
	// finds their ids through them (window.IDs.InternKey).
	SrcKey, DstKey window.Key
	// T is the timestamp in window ticks (config input.time_unit).
	T int64
	// Seq orders edges with equal T. With input.fields.seq configured it is
	// the record's own sequence field (so a replayed file keeps its order
	// across partitions); otherwise the reorder buffer assigns arrival order.
	Seq int64
	// Attrs is aligned with the window schema's EdgeAttrs.
	Attrs []Value
	// SrcLabel and DstLabel are optional node labels ("" = none).
	SrcLabel, DstLabel string
	Origin             Origin
	// HasSeq reports that Seq came from the record.
	HasSeq bool
	// History marks an edge re-read on restart to rebuild the window: it
	// joins the window but is never mined as the last edge of a match
	// (its matches were alerted before the restart).
	History bool
	// Replayed marks an edge after the committed offset that the daemon
	// had already processed before a clean shutdown: it is mined again,
	// but only matches that were still held open at shutdown are reported
	// (the others were alerted then). See stream.Processor.Resume.
	Replayed bool
	// Raw is the record's value as consumed (nil from a file, and for
	// values over RawKeepMax), kept so that an edge refused after the
	// reorder buffer (stream.Refused) can be dead-lettered as it came. It
	// lies in a buffer shared by the edges of one fetch (kafka's
	// Fetcher), alive until the last of them is gone.
	Raw []byte
}

// RawKeepMax is the largest record value kept with its edge (Edge.Raw)
// for a dead letter after the reorder buffer (the node cap): larger ones
// would make the buffer's memory the records' (a burst of 400 KB records
// held 1 GB), so their dead letter carries the source coordinates only.
const RawKeepMax = 1024

// edgeOverhead is what an Edge costs in a container before its strings:
// the struct itself (about 150 bytes) plus the reorder buffer's heap key
// and slot bookkeeping, rounded up.
const edgeOverhead = 224

// valueOverhead is one attribute Value (float, string header, kind, set).
const valueOverhead = 40

// Bytes estimates the host memory e holds: the struct, its strings, its
// attributes and Raw (the topic name is shared by every record and not
// counted). The reorder buffer caps the sum over its edges (SetMaxBytes).
func (e *Edge) Bytes() int {
	n := edgeOverhead + len(e.Src) + len(e.Dst) + len(e.SrcLabel) + len(e.DstLabel) + cap(e.Raw)
	for i := range e.Attrs {
		n += valueOverhead + len(e.Attrs[i].Str)
	}
	return n
}

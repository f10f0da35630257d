package config

import "fmt"

// MemoryBudget is the memory the daemon's caps allow it: the documented
// total that `monitor run` keeps the Go runtime within (its memory
// limit) and that docs/CONFIG.md ("Memory") explains. Each part is
// bytes.
type MemoryBudget struct {
	// Window is window.max_bytes: the window with everything that grows
	// with its edges and node ids (adjacency, pair index, node
	// dictionaries, per-edge metadata), motifwatch_window_bytes.
	Window int64
	// Buffered is what window.max_buffered_bytes bounds, the records
	// fetched and not taken in (a quarter of it, at least 1 MiB) and the
	// reorder buffer's decoded edges (the rest), plus the fetch buffers
	// waiting for their partition's next fetch, which keep at most the
	// fetch share again: max_buffered_bytes + max(max_buffered_bytes/4,
	// 1 MiB), 1.25 × max_buffered_bytes from 4 MiB on.
	Buffered int64
	// Base is the rest, which no cap measures: the Go runtime and the
	// program, Kafka clients, HTTP, metrics, alert and dead-letter
	// writers, mining scratch, and the batches in flight (up to three:
	// one taken in, one mined, one written), BaseBytes plus
	// BatchEdgeBytes per edge of window.batch_size.
	Base int64
	// Broker is the embedded broker's records (kafka.brokers: embedded):
	// 1.25 × kafka.embedded.retention_bytes for each partition of its
	// three topics (edges, alerts, dead letters); 0 with real brokers.
	Broker int64
}

// BaseBytes and BatchEdgeBytes size MemoryBudget.Base: an idle daemon
// runs in about 22 MB resident, and an edge of a batch in flight costs a
// few hundred bytes in the pipeline (its decoded edge, columns, metadata
// and, refused by the node cap, its dead letter), at most three batches
// at once.
const (
	BaseBytes      = 64 << 20
	BatchEdgeBytes = 2 << 10
)

// minFetchShare is the least the daemon lets fetched records hold
// (daemon's minInFlightBytes).
const minFetchShare = 1 << 20

// Total is the sum of the parts.
func (b MemoryBudget) Total() int64 { return b.Window + b.Buffered + b.Base + b.Broker }

// String shows the total and its parts, in MiB.
func (b MemoryBudget) String() string {
	s := fmt.Sprintf("%s (window %s + buffered %s + base %s", mib(b.Total()), mib(b.Window), mib(b.Buffered), mib(b.Base))
	if b.Broker > 0 {
		s += " + embedded broker " + mib(b.Broker)
	}
	return s + ")"
}

func mib(n int64) string { return fmt.Sprintf("%.0fMiB", float64(n)/(1<<20)) }

// MemoryBudget returns the memory the configuration's caps allow the
// daemon (see the type). ok is false when a cap it needs is off
// (window.max_bytes or window.max_buffered_bytes 0, or an embedded
// broker keeping everything): the daemon's memory then grows with its
// input, and no budget bounds it.
func (c *Config) MemoryBudget() (b MemoryBudget, ok bool) {
	w := &c.Window
	b = MemoryBudget{Window: int64(w.MaxBytes), Buffered: int64(w.MaxBufferedBytes) + max(int64(w.MaxBufferedBytes)/4, minFetchShare),
		Base: BaseBytes + BatchEdgeBytes*int64(max(w.BatchSize, 0))}
	ok = w.MaxBytes > 0 && w.MaxBufferedBytes > 0
	if c.Embedded() {
		r := int64(c.Kafka.Embedded.RetentionBytes)
		b.Broker = r * 5 / 4 * 3 * int64(max(c.Kafka.Partitions, 1))
		ok = ok && r > 0
	}
	return b, ok
}

// Package stream mines registered queries incrementally over a sliding
// window: each released batch of edges is appended, every query is mined
// for exactly the matches that END in the batch (the engine's primitive,
// never a re-mine of the window), matches whose anti-edge intervals are
// still open are held until the watermark passes them, and old edges are
// evicted once no future or held match can reach them.
//
// A Processor is driven by one goroutine (the daemon's pipeline) and is
// made of parts that each own their state: the appender (append.go: the
// one way a batch goes into the window, its first passes shared by the
// window's workers for a large batch), the miner (mine.go: the queries),
// the holder (held.go: open matches), the recorder (record.go: alert
// records), the edges' metadata (meta.go) and the roots (roots.go: which
// edges this instance mines, and resume watermarks); attrwatch.go says
// when a query reads an edge attribute no record carries. processor.go
// runs a batch through them in order; caps.go bounds what they may hold
// or do.
//
// It imports window, motif, ingest (for the decoded edge type) and alerts
// (for the record it produces), and never kafka or cu.
package stream

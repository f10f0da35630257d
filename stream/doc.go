// Package stream mines registered queries incrementally over a sliding
// window: each released batch of edges is appended, every query is mined
// for exactly the matches that END in the batch (the engine's primitive,
// never a re-mine of the window), matches whose anti-edge intervals are
// still open are held until the watermark passes them, and old edges are
// evicted once no future or held match can reach them.
//
// A Processor is driven by one goroutine (the daemon's pipeline). It
// imports window, motif, ingest (for the decoded edge type) and alerts
// (for the record it produces), and never kafka or cu.
package stream

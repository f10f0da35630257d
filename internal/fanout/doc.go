// Package fanout runs a function on several goroutines at once and waits
// for all of them: once per worker (Each), or over contiguous ranges of
// an index space, one range per worker (Ranges, Range).
//
// The loaders, the window's bulk append and the streaming processor's
// batch passes split their work this way: ranges of edges in position
// order, so each worker reads and writes memory of its own, and the
// results (counts per range, flags per edge) combine in range order.
package fanout

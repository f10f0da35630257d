// Package window keeps a sliding window of temporal edges on the host.
//
// A Window holds the edges that are currently "live" in (t, seq) order: the
// order in which they were appended, which callers guarantee is
// non-decreasing in time. Each edge has a global position (its sequence
// number in the stream, never reused) that doubles as the tie-breaker
// between equal timestamps. Columns hold src, dst, t and one float64 column
// per edge attribute; every vertex has out- and in-adjacency lists in time
// order, so "edges of v after position p and no later than time t" is a
// binary search plus a scan.
//
// String node ids map to dense uint32 ids through IDs; an id is released
// when its last edge leaves the window, so a stream of ever-new ids does not
// grow the dictionary without bound.
//
// Package window owns no long-lived goroutines: one writer appends and
// evicts; readers (the miners) run between writes. AppendColumns and the
// pair index build fan out to goroutines that finish within the call; the
// pair index, built by its first reader, is the one structure behind a
// lock. It never imports kafka, cu, or the motif engine.
package window

// Package ingest turns outside records into window edges.
//
// Today it holds the file source of batch mode: LoadFile reads a temporal
// edge file (SNAP and Everest text: "src dst t [attr...]" per line, with an
// optional header and an optional node attribute file) into a new
// window.Window. The Kafka consumer of the daemon will live here too.
//
// Layout: file.go (the loader's API and the edge file), file_nodes.go (the
// node attribute file), order.go (the stable radix sort by time), text.go (line reading, field splitting and number
// parsing over []byte, without allocating).
//
// Data flows one way, ingest → window → engine: package ingest imports
// window, never motif, gpu or the engines.
package ingest

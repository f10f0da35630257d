// Package layering holds no code, only a test of the import graph: the
// packages that compute (window, motif, gpm, synth, ingest, stream,
// alerts, config) never reach a network client, and Kafka's client
// library is imported by internal/kafka alone. The rule lives in a test
// because a single import can break it and the compiler does not mind.
package layering

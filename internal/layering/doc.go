// Package layering holds no code, only tests of the import graph: the
// packages that compute (window, motif, gpm, synth, ingest, stream,
// alerts, config) and the batch runners (mine, gpmrun) never reach a
// network client; only the commands import the runners (mine, gpmrun,
// bench); Kafka's client libraries are imported by kafka alone (and its
// test harness kafkatest); and only tests import a test harness. The
// rules live in tests because a single import can break them and the
// compiler does not mind.
package layering

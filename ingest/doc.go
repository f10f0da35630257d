// Package ingest turns outside records into window edges, without any
// I/O but files: it never imports a network client (a test in
// internal/layering checks it), so stream and the engines that take its
// Edge stay free of Kafka.
//
// Batch mode: LoadFile reads a temporal edge file (SNAP and Everest text:
// "src dst t [attr...]" per line, with an optional header and an optional
// node attribute file) into a new window.Window: in chunks cut at line
// boundaries and parsed in parallel, merged in file order, and optionally
// through a binary cache of the parsed edges (FileOptions.CacheDir).
//
// Streaming mode (the records come from kafka): a Decoder turns
// each record value (JSON or CSV) into an Edge; a Reorder buffer holds
// edges until the watermark passes them and releases them in (T, Seq)
// order, a JumpRule keeping a record far ahead of its partition's time
// from moving the watermark alone (reorder_jump.go); Metrics counts all
// of it, the dead-lettered records included.
//
// Data flows one way, ingest → window → engine: package ingest imports
// window, never motif, gpu, the engines or alerts. The decoders and the
// reorder buffer are pure and have benchmarks.
package ingest

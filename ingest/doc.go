// Package ingest turns outside records into window edges.
//
// Batch mode: LoadFile reads a temporal edge file (SNAP and Everest text:
// "src dst t [attr...]" per line, with an optional header and an optional
// node attribute file) into a new window.Window: in chunks cut at line
// boundaries and parsed in parallel, merged in file order, and optionally
// through a binary cache of the parsed edges (FileOptions.CacheDir).
//
// Streaming mode, in the order a record passes: a Consumer reads the edge
// topic as a member of a Kafka consumer group (kafka-go, no automatic
// commits); a Decoder turns each record value (JSON or CSV) into an Edge;
// a Reorder buffer holds edges until the watermark passes them and
// releases them in (T, Seq) order; records that cannot become edges
// (undecodable, oversized, late) go to a DeadLetter topic with the reason
// and their source in headers; Metrics counts all of it. An Admin answers
// the offset queries of a restart (committed offsets, the offsets at a
// time) and Replay re-reads an offset range to rebuild the window.
//
// Scale-out: a Member is an instance's membership of the consumer group,
// used only to learn the partitions it owns in each generation and to
// commit their offsets fenced by the generation; Readers read every
// partition outside the group, because every instance's window needs
// every edge.
//
// Layout: file.go (the loader's API, chunking, stats), file_part.go (one
// chunk's lines into local columns), file_merge.go (the parts into one
// window), filecache.go (the binary edge cache), file_nodes.go (the
// node attribute file), order.go (the stable radix sort by time), text.go
// (line reading, field splitting and number parsing over []byte, without
// allocating); edge.go (Edge, Value, Origin); decode.go (DecodeOptions,
// Decoder, DecodeError), decode_json.go (a strict JSON scanner that
// builds nothing), decode_csv.go, decode_time.go (exact timestamp to tick
// conversion); reorder.go (the buffer and its watermark); kafka.go
// (Consumer, Admin, Replay); deadletter.go (DeadLetter: the size cap,
// batched writes, Permanent); member.go (Member, Generation),
// readers.go (Readers); metrics.go.
//
// Data flows one way, ingest → window → engine: package ingest imports
// window, never motif, gpu, the engines or alerts. Only kafka.go,
// deadletter.go, member.go, readers.go and metrics.go know Kafka and
// Prometheus; the decoders and the reorder
// buffer are pure and have benchmarks.
package ingest

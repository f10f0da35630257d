// Package kafka is motifwatch's only Kafka client: every request to a
// broker, and the client library (kafka-go, imported here as kafkago),
// stay inside it, so the packages that compute (window, motif, gpm,
// stream, ingest, alerts) never reach a network client.
//
// Streaming intake, in the order a record passes: a GroupFetcher reads
// the edge topic as a member of a consumer group with a whole-topic
// protocol (one member reads everything; more instances stand by) and no
// automatic commits, through a Fetcher per generation, which reads whole
// fetches per partition, one goroutine each, and decodes them (ingest's
// Decoder) there, pausing partitions that run ahead in event time when
// told (ingest.Reorder.AppendAhead); the ingest package reorders what was
// fetched. The fetcher checks each partition's offset against the log's
// bounds and resets one outside them (FetcherOptions.OffsetReset, as a
// consumer's auto.offset.reset), and tells its reader where each
// partition's reading starts or resumes (Position, in order with the
// records: a start, a reset, a Seek, or a partition found unknown and
// held until the reader says where to go on, FetcherOptions.HoldGone);
// records that cannot become edges go to a DeadLetter topic with the
// reason and their source in headers, capped in size and batched, with
// permanent errors told from transient ones. An Admin answers the
// metadata and offset queries of a restart (partitions, committed
// offsets, the offsets at a time, the log's start and end) and Replay
// re-reads an offset range to rebuild the window.
//
// Scale-out: a Member is an instance's membership of the consumer group,
// used only to learn the partitions it owns in each generation and to
// commit their offsets fenced by the generation (ErrFenced; a commit
// refused for some partitions is a CommitError naming them); a Fetcher
// reads every partition outside the group, because every instance's
// window needs every edge. Member.Rejoin ends a generation so that the
// group assigns the topic's partitions anew (partitions added), and
// Admin.GroupAssignment says which partitions the group's members hold.
//
// Output: an AlertSink writes alert records to the alert topic
// (acknowledged by all in-sync replicas, transient failures retried with
// backoff) and ReadAlerts reads them back for `monitor alerts`.
//
// Plumbing: Clients builds the transport and dialer of ClientOptions
// (client id, metadata refresh, TLS and SASL: options of this package's
// own, as franz-go's kgo.Opt are its own; daemon.KafkaClientOptions
// translates the configuration); StartEmbedded runs an in-process
// Kafka-protocol broker (kfake on 127.0.0.1, spoken to over TCP exactly
// like a cluster) for development, tests and the demo; EnsureTopics,
// WaitReady and Ping administer and probe a cluster; Produce writes
// edge records (JSON or CSV) into a topic, for `monitor produce`, the
// demo feed and the tests (package feed makes those records from a
// window or the demo feed); CleanError words the library's errors for
// people.
//
// Message, Header, Transport and Dialer are the library's types under
// this package's name, so callers pass them along without importing it.
//
// Package kafka imports ingest (its decoders) and alerts (its records),
// never config, window, synth, stream or an engine (internal/layering
// checks it).
package kafka

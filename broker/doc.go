// Package broker owns motifwatch's Kafka plumbing that is not a record
// format: an embedded Kafka-protocol broker for development, tests and the
// demo (kfake on 127.0.0.1, spoken to over TCP exactly like a cluster),
// topic administration through kafka-go's Client, and a producer that
// writes edges into a topic (the replay behind `monitor produce`, the
// daemon's demo feed and the end-to-end tests).
//
// Layout: embedded.go (StartEmbedded), topics.go (EnsureTopics,
// WaitReady), ping.go (Ping and the classes of its errors), produce.go (Producer, Produce, ProduceFile), encode.go (the
// JSON and CSV record encodings).
//
// Package broker imports kafka-go, kfake and window; it never imports
// ingest, motif, alerts or the engines, so any of them may use it.
package broker

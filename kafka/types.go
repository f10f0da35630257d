package kafka

import kafkago "github.com/segmentio/kafka-go"

// The client library's record and connection types, under this package's
// name so that the daemon and the commands pass them along without
// importing the library themselves: Kafka is spoken only here.
type (
	// Message is one Kafka record as read or written.
	Message = kafkago.Message
	// Header is one record header.
	Header = kafkago.Header
	// Transport carries writers' and admin requests (TLS, SASL, client id).
	Transport = kafkago.Transport
	// Dialer opens readers' connections (TLS, SASL, client id).
	Dialer = kafkago.Dialer
)

// FirstOffset stands for a partition's first offset kept, to be looked up
// (Fetcher.Seek, NewFetcher).
const FirstOffset = kafkago.FirstOffset

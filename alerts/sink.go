package alerts

import (
	"context"
	"errors"
)

// ErrClosed is returned by a Sink or Router used after Close.
var ErrClosed = errors.New("alerts: closed")

// Sink writes alert records somewhere durable.
//
// Write is synchronous: it returns nil only when every record in alerts
// has been acknowledged (for Kafka: by all in-sync replicas). On an error
// some records may have been written and others not; the caller retries
// the whole slice, so consumers must tolerate duplicates (match records
// carry MatchID for that). Write must not keep or modify alerts after it
// returns. Sinks are safe for concurrent use.
//
// Close releases the sink's resources; Writes after Close return ErrClosed.
type Sink interface {
	Write(ctx context.Context, alerts []Alert) error
	Close() error
}

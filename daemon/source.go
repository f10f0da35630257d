package daemon

import (
	"context"

	"github.com/motifwatch/motifwatch/internal/kafka"
)

// recordSource is where a pipeline's records come from: the consumer
// group's Reader without scale-out (kafka.Consumer), a reader per
// partition scaled out (kafka.Readers). Fetch is called from the
// intake's fetcher goroutine only (intake.go). A source that also has
// Lag() map[int]int64 (records behind the log end, per partition) feeds
// the lag metrics after every batch.
type recordSource interface {
	Fetch(ctx context.Context) (kafka.Message, error)
}

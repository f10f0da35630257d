package daemon

import (
	"context"

	"github.com/motifwatch/motifwatch/kafka"
)

// recordSource is where a pipeline's records come from, fetched and
// decoded a fetch at a time: the consumer group's partitions without
// scale-out (kafka.GroupFetcher), every partition from given offsets
// scaled out (kafka.Fetcher). Next and Done are called from the
// intake's goroutine and the pipeline's (intake.go), Pause from the
// pipeline's. A source that also has Lag() map[int]int64 (records behind
// the log end, per partition) feeds the lag metrics after every batch.
type recordSource interface {
	// Next returns the next chunk, or a fetch error (the source retries
	// by itself; the error is for readiness); Done hands a chunk back
	// once taken in.
	Next(ctx context.Context) (*kafka.Chunk, error)
	Done(c *kafka.Chunk)
	// Pause stops fetching the partitions listed and resumes the others
	// (intake.pauseAhead).
	Pause(partitions []int)
	// Seek moves the reading of a partition (kafka.Fetcher.Seek): a
	// Position with Seek set marks where its records start again
	// (partitions.go: a topic created again).
	Seek(partition int, offset int64)
}

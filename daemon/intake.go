package daemon

import (
	"context"
	"slices"

	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/kafka"
)

// intake is the first stage: it runs ahead of the pipeline goroutine.
// The source fetches whole record batches per partition and decodes each
// in its partition's goroutine (kafka.Fetcher), and the intake goroutine
// hands the decoded chunks to the pipeline. So fetching and decoding of
// the next batch overlap the mining, alert writing and committing of
// this one, the partitions decode in parallel, and the pipeline pays one
// channel operation per fetch, not per record. The pipeline goroutine
// tells the source, through the intake, which partitions to pause
// (pauseAhead) and where to read a partition again (partitions.go).
//
// Memory: the source bounds the bytes of fetched records not yet taken
// in (kafka.FetcherOptions.InFlightBytes: a quarter of
// window.max_buffered_bytes); a chunk's bytes count from its fetch until
// the pipeline has taken it in.
type intake struct {
	src recordSource
	// retry rides out failed fetches; probe asks the brokers whether they
	// answer again (nil: do not wait for them).
	retry *retrier
	probe func(context.Context) error
	pm    *pipelineMetrics
	// paused is the partitions the source was last told to pause
	// (ingest.Reorder.AppendAhead); ahead is scratch for the next set.
	paused, ahead []int
}

// run forwards the source's chunks to out until ctx ends. A failed fetch
// is a broker outage to ride out, not the end: the source retries by
// itself (and rejoins its group), so run marks the daemon not ready,
// backs off, waits until the brokers answer again and goes on.
func (in *intake) run(ctx context.Context, out chan<- *kafka.Chunk) {
	for {
		c, err := in.src.Next(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			if !in.reconnect(ctx, err) {
				return
			}
			continue
		}
		select {
		case out <- c:
		case <-ctx.Done():
			in.src.Done(c)
			return
		}
	}
}

// reconnect handles a failed fetch: backoff, then probing the brokers
// (with backoff too) until they answer. It returns false once ctx ends.
func (in *intake) reconnect(ctx context.Context, err error) bool {
	if in.retry == nil {
		return sleep(ctx, backoffMin)
	}
	if !sleep(ctx, in.retry.failed(err, true)) {
		return false
	}
	if in.probe == nil {
		return true
	}
	return in.retry.do(ctx, probeAttempt, in.probe) == nil
}

// pauseAhead tells the source which partitions run ahead in event time
// in r (ingest.Reorder.AppendAhead): they are not fetched until the
// watermark catches up, so a skewed backlog stays within the reorder
// buffer's caps without making the others' records late.
func (in *intake) pauseAhead(r *ingest.Reorder) {
	in.ahead = r.AppendAhead(in.ahead[:0])
	slices.Sort(in.ahead)
	if slices.Equal(in.ahead, in.paused) {
		return
	}
	in.paused = append(in.paused[:0], in.ahead...)
	in.src.Pause(in.paused)
	if in.pm != nil {
		in.pm.pausedPartitions.Set(float64(len(in.paused)))
	}
}

// minInFlightBytes is the bound on fetched records not yet taken in when
// none is configured (window.max_buffered_bytes 0), and its least.
const minInFlightBytes = 1 << 20

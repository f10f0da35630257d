package daemon

import (
	"context"

	"github.com/motifwatch/motifwatch/kafka"
)

// The intake runs ahead of the pipeline goroutine: the source fetches
// whole record batches per partition and decodes each in its partition's
// goroutine (kafka.Fetcher), and the intake goroutine hands the decoded
// chunks to the pipeline. So fetching and decoding of the next batch
// overlap the mining, alert writing and committing of this one, the
// partitions decode in parallel, and the pipeline pays one channel
// operation per fetch, not per record.
//
// Memory: the source bounds the bytes of fetched records not yet taken
// in (kafka.FetcherOptions.InFlightBytes: a quarter of
// window.max_buffered_bytes); a chunk's bytes count from its fetch until
// the pipeline has taken it in.

// intake forwards the source's chunks to out until ctx ends. A failed
// fetch is a broker outage to ride out, not the end: the source retries
// by itself (and rejoins its group), so intake marks the daemon not
// ready, backs off, waits until the brokers answer again and goes on.
func (p *pipeline) intake(ctx context.Context, out chan<- *kafka.Chunk) {
	for {
		c, err := p.src.Next(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			if !p.reconnect(ctx, err) {
				return
			}
			continue
		}
		select {
		case out <- c:
		case <-ctx.Done():
			p.src.Done(c)
			return
		}
	}
}

// minInFlightBytes is the bound on fetched records not yet taken in when
// none is configured (window.max_buffered_bytes 0), and its least.
const minInFlightBytes = 1 << 20

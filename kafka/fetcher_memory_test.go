package kafka

import (
	"maps"
	"runtime"
	"runtime/metrics"
	"slices"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"
)

// liveHeap collects garbage twice (kafka-go's buffer pools keep their
// pages through one collection) and returns the bytes still reachable.
func liveHeap() int64 {
	runtime.GC()
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// memorySlack is what a heap measurement here may differ by besides the
// chunks: the client's connections and the broker's own work (it runs in
// the test's process) while the fetchers poll.
const memorySlack = 2 << 20

// fetchAll produces perPart small edge records to each of parts
// partitions and starts a fetcher on them with opts; it returns the
// fetcher and the heap live before it started.
func fetchAll(t *testing.T, parts, perPart int, opts FetcherOptions) (*Fetcher, int64) {
	t.Helper()
	brokers := newCluster(t, int32(parts), "edges")
	var msgs []kafkago.Message
	for i := range parts * perPart {
		msgs = append(msgs, edgeRecord(i%parts, i/parts))
	}
	produce(t, brokers, "edges", msgs...)
	msgs = nil
	from := map[int]int64{}
	for p := range parts {
		from[p] = 0
	}
	opts.Brokers, opts.Topic, opts.Decoder, opts.MaxWait = brokers, "edges", jsonDecoder(t), 50*time.Millisecond
	base := liveHeap()
	f, err := NewFetcher(opts, from)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f, base
}

// TestFetcherCountsWhatItHolds: the bytes a fetcher counts for the chunks
// it holds (InFlight, what window.max_buffered_bytes' fetch share
// bounds) are the memory they hold: small edge records (~40 bytes) in
// four partitions, fetched 512 KiB at a time, and a reader that holds
// every chunk until each partition has all its chunks out (its fetcher
// then waits for one back, with nothing reserved): the heap they take is
// within the count. Before, a record counted its key and value and 160
// bytes, under half of the message, edge, error and value copy it holds.
func TestFetcherCountsWhatItHolds(t *testing.T) {
	const parts, perPart = 4, 25_000
	f, base := fetchAll(t, parts, perPart, FetcherOptions{InFlightBytes: 256 << 20, FetchBytes: parts * 512 << 10})
	var held []*Chunk
	records, out := 0, map[int]int{}
	for len(out) < parts || slices.ContainsFunc(slices.Collect(maps.Values(out)), func(n int) bool { return n < chunksPerPartition }) {
		c := nextChunk(t, f.Next, time.Minute)
		held = append(held, c)
		out[c.Partition]++
		records += len(c.Recs)
	}
	live := liveHeap() - base
	counted, _ := f.InFlight()
	// 5% for what the count cannot see: the allocator's rounding of
	// small strings, finer under the race detector.
	if limit := counted + counted/20 + memorySlack; live > limit {
		t.Errorf("%d records in %d chunks held: %d bytes live on the heap, %d counted in flight; want at most %d (the count + 5%% + %d)",
			records, len(held), live, counted, limit, memorySlack)
	}
	t.Logf("%d records in %d chunks held: %d bytes live, %d counted (%.0f / %.0f B/record)", records, len(held), live, counted,
		float64(live)/float64(records), float64(counted)/float64(records))
	for _, c := range held {
		f.Done(c)
	}
}

// TestFetcherIdleBuffersWithinBound: a chunk handed back keeps its
// arrays for the partition's next fetch only while they cost at most its
// share of InFlightBytes, so that the chunks waiting for a fetch hold no
// more than the bound either: a reader that hands each chunk back at once,
// and after the last record the heap holds at most InFlightBytes more
// than before. Before, each of the eight chunks kept its largest fetch's
// arrays, several times the bound.
func TestFetcherIdleBuffersWithinBound(t *testing.T) {
	const parts, perPart, bound = 4, 25_000, 8 << 20
	f, base := fetchAll(t, parts, perPart, FetcherOptions{InFlightBytes: bound})
	for n := 0; n < parts*perPart; {
		c := nextChunk(t, f.Next, time.Minute)
		n += len(c.Recs)
		f.Done(c)
	}
	if live := liveHeap() - base; live > bound+memorySlack {
		t.Errorf("every chunk handed back: %d bytes live on the heap; want at most InFlightBytes %d + %d", live, bound, memorySlack)
	} else {
		t.Logf("every chunk handed back: %d bytes live (bound %d)", live, bound)
	}
}

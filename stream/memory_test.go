package stream

import (
	"fmt"
	"runtime"
	rtmetrics "runtime/metrics"
	"testing"

	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/window"
)

// liveHeap collects garbage and returns the bytes of the objects still
// reachable: what the process would keep at a perfect collector.
func liveHeap() int64 {
	runtime.GC()
	s := []rtmetrics.Sample{{Name: "/gc/heap/live:bytes"}}
	rtmetrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// TestMemoryCapHoldsTheHeap: 300,000 distinct node ids, decoded from
// JSON records by a decoder that keys them in a node dictionary as the
// daemon's do, into a window whose span would keep every edge: the
// memory the processor reports (motifwatch_window_bytes) stays within
// window.max_bytes, and it is honest: the heap that the processor, the
// window and the decoders' node dictionary keep (live objects after a
// collection) is never more than the cap plus the batch in hand. Before
// the node dictionary and the edges' metadata were counted, the heap held
// 2.5 times the cap (10.5 MB).
func TestMemoryCapHoldsTheHeap(t *testing.T) {
	const (
		maxBytes = 4 << 20
		edges    = 300_000
		batchLen = 2000
		// slack is what the bound allows besides the cap: the batch in
		// hand and the engine's and processor's scratch, sized to a batch.
		slack = 512 << 10
	)
	keys := window.NewKeys()
	dec, err := ingest.NewDecoder(ingest.DecodeOptions{Time: "t", NodeKeys: keys})
	if err != nil {
		t.Fatal(err)
	}
	p, log := capProcessor(t, Options{MaxBytes: maxBytes, NodeKeys: keys}, pathQuery(1<<40, false))
	base := liveHeap()
	var rec []byte
	peakLive, peakCounted := int64(0), int64(0)
	for b := range edges / batchLen {
		batch := make([]ingest.Edge, batchLen)
		for i := range batch {
			n := b*batchLen + i
			// Each edge brings a new source id; its destination is an id
			// that comes as a source up to 5,000 edges later.
			rec = fmt.Appendf(rec[:0], `{"src":"acct-%d","dst":"acct-%d","t":%d}`, n, n+1+n*7919%5000, n/10)
			if batch[i], err = dec.Decode(rec, ingest.Origin{Offset: int64(n)}); err != nil {
				t.Fatal(err)
			}
		}
		out := process(t, p, batch)
		peakCounted = max(peakCounted, out.WindowBytes)
		if out.WindowBytes > maxBytes {
			t.Log(log)
			t.Fatalf("batch %d: the processor counts %d bytes; want at most window.max_bytes %d", b, out.WindowBytes, maxBytes)
		}
		if b%10 != 9 {
			continue
		}
		batch = nil
		live := liveHeap() - base
		peakLive = max(peakLive, live)
		if live > maxBytes+slack {
			t.Fatalf("batch %d: %d bytes live on the heap, the processor counts %d (window %d, %d node ids, %d names keyed); want at most window.max_bytes %d + %d",
				b, live, out.WindowBytes, p.Window().Bytes(), p.Window().IDs().Len(), keys.Len(), maxBytes, slack)
		}
	}
	t.Logf("peak: %d bytes live, %d counted (window.max_bytes %d); %d edges in the window at the end", peakLive, peakCounted, maxBytes, p.Window().Len())
}

package window

import (
	"fmt"
	"runtime"
	"runtime/metrics"
	"testing"
	"time"
)

// liveHeap collects garbage and returns the bytes of the objects still
// reachable.
func liveHeap() int64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// measureSlack is what a heap measurement may differ by besides the
// structure measured (the runtime's and the race detector's own small
// allocations).
const measureSlack = 16 << 10

// TestMapBytesBound: mapBytes bounds what the runtime holds for a
// map[string]uint32 of short names, growing or churning (a sliding set
// of live names, the dictionary's life), at sizes just above powers of
// two, where a table has just doubled.
func TestMapBytesBound(t *testing.T) {
	for _, live := range []int{900, 7000, 50_000, 100_000} {
		base := liveHeap()
		m := map[string]uint32{}
		peak, worst := 0, 0.0
		for i := range 4 * live {
			m[fmt.Sprint("acct-", i)] = uint32(i)
			if i >= live {
				delete(m, fmt.Sprint("acct-", i-live))
			}
			peak = max(peak, len(m))
			if i%(live/2) != live/2-1 {
				continue
			}
			got := liveHeap() - base
			want := mapBytes(peak, nameSlot) + int64(len(m))*stringBytes(len("acct-")+6)
			worst = max(worst, float64(got)/float64(want))
			if got > want+measureSlack {
				t.Errorf("%d live of %d names: the map holds %d bytes; mapBytes and the names count %d", len(m), i+1, got, want)
			}
		}
		runtime.KeepAlive(m)
		t.Logf("%d live: at most %.2f of the bound", live, worst)
	}
}

// TestKeysBytesBoundTheHeap: Keys.Bytes bounds the heap of the current
// generation, whose names the dictionary copies.
func TestKeysBytesBoundTheHeap(t *testing.T) {
	for _, n := range []int{1000, 60_000, 200_000} {
		base := liveHeap()
		k := NewKeys()
		k.SetLimit(1 << 30)
		for i := range n {
			k.OfBytes(fmt.Appendf(nil, "acct-%d", i))
		}
		got, counted := liveHeap()-base, k.Bytes()
		if got > counted+measureSlack {
			t.Errorf("%d names: the dictionary holds %d bytes; Bytes says %d", n, got, counted)
		}
		t.Logf("%d names: %d bytes held, %d counted (%.2f)", n, got, counted, float64(got)/float64(counted))
		runtime.KeepAlive(k)
	}
}

// TestBytesBoundTheHeap: a window sliding over never-repeating node ids
// (each edge brings a new one and meets one from up to 5,000 edges
// before), in batches, with the pair index on: Bytes, what the window's
// memory cap and motifwatch_window_bytes go by, bounds the live heap the
// window keeps, after every batch and after a Shrink.
func TestBytesBoundTheHeap(t *testing.T) {
	const batch, span = 5000, 60_000
	base := liveHeap()
	w, err := New(Schema{TimeUnit: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	w.SetWorkers(2)
	w.IndexPairs()
	ids := w.IDs()
	var c Columns
	worst := 0.0
	for b := range 60 {
		c.Src, c.Dst, c.T = c.Src[:0], c.Dst[:0], c.T[:0]
		for i := range batch {
			n := b*batch + i
			src, _ := ids.Intern(fmt.Sprint("acct-", n))
			dst, _ := ids.Intern(fmt.Sprint("acct-", n-1-n*7919%5000))
			c.Src, c.Dst, c.T = append(c.Src, src), append(c.Dst, dst), append(c.T, int64(n))
		}
		if _, err := w.AppendBatch(c); err != nil {
			t.Fatal(err)
		}
		w.EvictBefore(int64((b+1)*batch - span))
		if b%20 == 19 {
			w.Shrink()
		}
		scratch := int64(cap(c.Src)+cap(c.Dst))*4 + int64(cap(c.T))*8
		got, counted := liveHeap()-base-scratch, w.Bytes()
		worst = max(worst, float64(got)/float64(counted))
		if got > counted+measureSlack {
			t.Errorf("batch %d: %d edges, %d nodes: the window holds %d bytes; Bytes says %d", b, w.Len(), ids.Len(), got, counted)
		}
	}
	t.Logf("at most %.2f of Bytes held (%.0f B/edge counted)", worst, w.BytesPerEdge())
}

package ingest

import (
	"testing"
	"time"
)

// TestReorderCapBoundsABurst: a burst of edges at one timestamp on a
// partition that stays busy is never released by the watermark alone
// (lateness holds it); the cap releases it early and counts what it
// forced, and the rest of the burst at that time is late (the caller
// dead-letters it): every edge is released, late or buffered.
func TestReorderCapBoundsABurst(t *testing.T) {
	now := time.Unix(0, 0)
	r := NewReorder(10, time.Hour, func() time.Time { return now })
	r.SetMaxBuffered(100)
	edge := func(tm, off int64) Edge { return Edge{T: tm, Origin: Origin{Partition: 0, Offset: off}} }
	var late, released int
	for i := int64(0); i < 1000; i++ {
		if r.Add(edge(50, i)) {
			late++
		}
		if i%50 == 49 {
			r.SetPending(0, true)
			out, _ := r.Release()
			released += len(out)
			if r.Len() > 100 {
				t.Fatalf("after %d edges: %d buffered, cap 100 (released %d)", i+1, r.Len(), len(out))
			}
		}
	}
	if r.Forced() == 0 || int64(released) != r.Forced() {
		t.Fatalf("forced %d, released %d", r.Forced(), released)
	}
	if late+released+r.Len() != 1000 {
		t.Fatalf("late %d + released %d + buffered %d != 1000", late, released, r.Len())
	}
	if !r.Add(edge(50, 1000)) {
		t.Fatal("an edge at the forced watermark must be late")
	}
	t.Logf("forced %d, buffered %d, watermark %d", r.Forced(), r.Len(), r.Watermark())

	// Without the cap the same burst is all held.
	u := NewReorder(10, time.Hour, func() time.Time { return now })
	for i := int64(0); i < 1000; i++ {
		u.Add(edge(50, i))
	}
	u.SetPending(0, true)
	if out, _ := u.Release(); len(out) != 0 || u.Len() != 1000 {
		t.Fatalf("uncapped: released %d, buffered %d", len(out), u.Len())
	}
}

// TestReorderByteCapBoundsLargeEdges: edges that hold large values (here
// 400 KB raw values, as a record's would be) are capped by their bytes,
// whatever their number: with a cap of 16 MiB and no count cap that
// acts, 2,500 of them at one timestamp never leave more than the cap
// (plus the one edge added last) buffered, the bytes are released with
// the edges, and the count of forced releases covers them.
func TestReorderByteCapBoundsLargeEdges(t *testing.T) {
	now := time.Unix(0, 0)
	r := NewReorder(0, time.Hour, func() time.Time { return now })
	r.SetMaxBuffered(50_000)
	const capBytes = 16 << 20
	r.SetMaxBytes(capBytes)
	raw := make([]byte, 400_000)
	var late, released int
	for i := int64(0); i < 2500; i++ {
		if r.Add(Edge{Src: "a", Dst: "b", T: 50, Raw: raw, Origin: Origin{Offset: i}}) {
			late++
		}
		if r.OverCap() {
			r.SetPending(0, true)
			out, _ := r.Release()
			released += len(out)
		}
		if r.Bytes() > capBytes+int64(len(raw))+edgeOverhead+2 {
			t.Fatalf("after %d edges: %d bytes buffered, cap %d", i+1, r.Bytes(), capBytes)
		}
	}
	if late+released+r.Len() != 2500 || r.Forced() != int64(released) || released == 0 {
		t.Fatalf("late %d + released %d (forced %d) + buffered %d; want 2500 with forced releases", late, released, r.Forced(), r.Len())
	}
	if want := int64(r.Len()) * int64(edgeOverhead+2+len(raw)); r.Bytes() != want {
		t.Fatalf("Bytes() = %d with %d buffered; want %d", r.Bytes(), r.Len(), want)
	}
	r.Flush()
	if r.Bytes() != 0 || r.Len() != 0 {
		t.Fatalf("after Flush: %d bytes, %d edges buffered; want 0", r.Bytes(), r.Len())
	}
}

package ingest

import (
	"slices"
	"testing"
	"time"
)

// skewedBacklog is a backlog whose partitions run apart in event time
// when read at equal records per fetch: partition 0 is dense (10 edges
// per tick), partitions 1-3 sparse (one per tick), over the same 2,000
// ticks.
func skewedBacklog() [][]Edge {
	parts := make([][]Edge, 4)
	for i := range 20_000 {
		parts[0] = append(parts[0], Edge{Src: "hub", Dst: "x", T: int64(i / 10), Origin: Origin{Partition: 0, Offset: int64(i)}})
	}
	for p := 1; p < 4; p++ {
		for i := range 2_000 {
			parts[p] = append(parts[p], Edge{Src: "s", Dst: "y", T: int64(i), Origin: Origin{Partition: p, Offset: int64(i)}})
		}
	}
	return parts
}

// readSkewed reads the backlog 50 records per partition per round, from
// the partitions not paused (align: AppendAhead after every round's
// release; else none), into a buffer capped at capEdges. It returns the
// edges released (late ones excluded), the late count and the most
// edges buffered after a release.
func readSkewed(t *testing.T, align bool, capEdges int) (released []Edge, late, most int) {
	t.Helper()
	now := time.Unix(0, 0)
	r := NewReorder(0, time.Minute, func() time.Time { return now })
	r.SetMaxBuffered(capEdges)
	parts := skewedBacklog()
	pos := make([]int, len(parts))
	for p := range parts {
		r.SetPending(p, true)
	}
	var paused []int
	for rounds := 0; ; rounds++ {
		if rounds > 100_000 {
			t.Fatal("no progress: reading stalled")
		}
		more := false
		for p, es := range parts {
			if slices.Contains(paused, p) {
				more = true
				continue
			}
			for k := 0; k < 50 && pos[p] < len(es); k++ {
				if r.Add(es[pos[p]]) {
					late++
				}
				pos[p]++
			}
			r.SetPending(p, pos[p] < len(es))
			more = more || pos[p] < len(es)
		}
		out, _ := r.Release()
		released = append(released, out...)
		most = max(most, r.Len())
		if align {
			paused = r.AppendAhead(paused[:0])
		}
		if !more {
			break
		}
	}
	out, _ := r.Flush()
	return append(released, out...), late, most
}

// TestReorderAheadKeepsSkewWithinCap: read at equal rates, the sparse
// partitions run ahead of the dense one and fill the buffer's cap, which
// releases early and makes the dense partition's records late; pausing
// the partitions AppendAhead names keeps the buffer within its cap with
// nothing released early or late, and the edges come out in time order.
func TestReorderAheadKeepsSkewWithinCap(t *testing.T) {
	const capEdges = 1_000
	total := 0
	for _, es := range skewedBacklog() {
		total += len(es)
	}
	_, late, _ := readSkewed(t, false, capEdges)
	if late == 0 {
		t.Fatal("without pausing nothing was late: the backlog is not skewed enough to test anything")
	}
	out, late, most := readSkewed(t, true, capEdges)
	if late != 0 || len(out) != total {
		t.Errorf("paused reading: %d late, %d of %d released; want none late, all released", late, len(out), total)
	}
	if most > capEdges {
		t.Errorf("buffered up to %d edges; cap %d", most, capEdges)
	}
	for i := 1; i < len(out); i++ {
		if out[i].T < out[i-1].T {
			t.Fatalf("released out of order at %d: t %d after %d", i, out[i].T, out[i-1].T)
		}
	}
	t.Logf("aligned: at most %d buffered (cap %d)", most, capEdges)
}

// TestReorderAheadNeverPausesTheLaggard: the partition furthest behind
// (or one not heard from yet, whose records are known to come) is never
// paused, whatever it holds; no caps, no pausing.
func TestReorderAheadNeverPausesTheLaggard(t *testing.T) {
	now := time.Unix(0, 0)
	r := NewReorder(0, time.Minute, func() time.Time { return now })
	for i := range 100 {
		r.Add(Edge{T: 5, Origin: Origin{Partition: 0, Offset: int64(i)}})
		r.Add(Edge{T: int64(10 + i), Origin: Origin{Partition: 1, Offset: int64(i)}})
	}
	if got := r.AppendAhead(nil); len(got) != 0 {
		t.Errorf("without caps: paused %v", got)
	}
	r.SetMaxBuffered(40) // a share of 10 per partition
	if got := r.AppendAhead(nil); !slices.Equal(got, []int{1}) {
		t.Errorf("paused %v; want [1] (partition 0 holds the watermark at t=5)", got)
	}
	r.SetPending(2, true) // known to have records, none taken yet
	got := r.AppendAhead(nil)
	slices.Sort(got)
	if !slices.Equal(got, []int{0, 1}) {
		t.Errorf("paused %v; want [0 1] while partition 2's records are awaited", got)
	}
}

// TestReorderAnyIdle: a partition silent for the idle duration counts as
// idle, unless records of it are known to be unread (pending).
func TestReorderAnyIdle(t *testing.T) {
	now := time.Unix(0, 0)
	r := NewReorder(0, time.Second, func() time.Time { return now })
	r.Add(Edge{T: 1, Origin: Origin{Partition: 0}})
	r.Add(Edge{T: 1, Origin: Origin{Partition: 1}})
	r.Release()
	if r.AnyIdle() {
		t.Fatal("idle right after both partitions sent")
	}
	now = now.Add(2 * time.Second)
	r.Add(Edge{T: 2, Origin: Origin{Partition: 0, Offset: 1}})
	if !r.AnyIdle() {
		t.Fatal("partition 1, silent for 2s with an idle duration of 1s, does not count as idle")
	}
	r.SetPending(1, true)
	if r.AnyIdle() {
		t.Fatal("partition 1 has unread records: not idle")
	}
}

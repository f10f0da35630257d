package ingest

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"testing"
	"time"
)

// TestAddRunEqualsAdd feeds the same chunks of records to two buffers,
// one edge at a time (Add) and as runs (AddRun, with Add for the edge it
// stops at), with releases, caps and random run limits in between: what
// they release, in what order, and what they hold must be equal.
func TestAddRunEqualsAdd(t *testing.T) {
	for seed := range uint64(60) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { addRunEqualsAdd(t, seed) })
	}
}

func addRunEqualsAdd(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	parts := 1 + rng.IntN(6)
	lateness := int64(rng.IntN(4))
	jitter := rng.IntN(3)  // 0: every partition in order
	withSeq := rng.IntN(3) // 0: none, 1: all, 2: some
	one, runs := NewReorder(lateness, 0, nil), NewReorder(lateness, 0, nil)
	if rng.IntN(3) == 0 {
		n := 5 + rng.IntN(60)
		one.SetMaxBuffered(n)
		runs.SetMaxBuffered(n)
	}
	if rng.IntN(3) == 0 {
		b := int64(3000 + rng.IntN(20000))
		one.SetMaxBytes(b)
		runs.SetMaxBytes(b)
	}
	// Half the seeds under the jump rule, with outliers and bursts far
	// ahead: AddRun leaves every edge of a partition with held edges to
	// Add, and must still agree.
	jumps := rng.IntN(2) == 0
	if jumps {
		rule := JumpRule{MaxJump: lateness + 1 + rng.Int64N(30), Confirmations: 2 + rng.IntN(3), Tick: time.Second}
		one.SetJumpRule(rule)
		runs.SetJumpRule(rule)
	}
	clock := make([]int64, parts)
	offset := make([]int64, parts)
	var gotOne, gotRuns []*Edge
	for step := range 300 {
		// A chunk of one partition's next records, as a fetch brings them.
		p := rng.IntN(parts)
		n := 1 + rng.IntN(40)
		chunk := make([]Edge, n)
		for i := range chunk {
			clock[p] += int64(rng.IntN(3))
			tm := clock[p]
			if jitter > 0 && rng.IntN(8) == 0 {
				tm -= int64(rng.IntN(5 * jitter))
			}
			if jumps && rng.IntN(40) == 0 {
				tm += 100 + int64(rng.IntN(1000)) // an outlier
			}
			e := Edge{Src: fmt.Sprint("n", rng.IntN(9)), Dst: "d", T: tm,
				Origin: Origin{Topic: "edges", Partition: p, Offset: offset[p]}}
			if withSeq == 1 || (withSeq == 2 && rng.IntN(2) == 0) {
				e.HasSeq, e.Seq = true, int64(rng.IntN(4))
			}
			if rng.IntN(10) == 0 {
				e.Raw = make([]byte, rng.IntN(300))
			}
			offset[p]++
			chunk[i] = e
		}
		copied := make([]Edge, n)
		copy(copied, chunk)
		var lateOne, lateRuns []int64
		for i := range copied {
			if one.Add(copied[i]) {
				lateOne = append(lateOne, copied[i].Origin.Offset)
			}
		}
		for i := 0; i < n; {
			lim := NoRunLimits
			if rng.IntN(4) == 0 {
				lim.MaxLen = runs.Len() + rng.IntN(10)
			}
			if rng.IntN(4) == 0 {
				lim.MaxBytes = runs.Bytes() + int64(rng.IntN(2000))
			}
			if rng.IntN(4) == 0 {
				lim.MaxT = clock[p] - int64(rng.IntN(10))
			}
			if k := runs.AddRun(chunk[i:], lim); k > 0 {
				i += k
				continue
			}
			if runs.AddFrom(&chunk[i]) {
				lateRuns = append(lateRuns, chunk[i].Origin.Offset)
			}
			i++
		}
		if d1, d2 := discardedNames(one.AppendDiscarded(nil)), discardedNames(runs.AppendDiscarded(nil)); d1 != d2 {
			t.Fatalf("step %d: discarded %q by Add, %q by AddRun", step, d1, d2)
		}
		if fmt.Sprint(lateOne) != fmt.Sprint(lateRuns) {
			t.Fatalf("step %d: late %v by Add, %v by AddRun", step, lateOne, lateRuns)
		}
		same(t, step, one, runs)
		switch rng.IntN(4) {
		case 0:
			var w1, w2 int64
			gotOne, w1 = one.AppendReleaseRefs(gotOne)
			gotRuns, w2 = runs.AppendReleaseRefs(gotRuns)
			if w1 != w2 {
				t.Fatalf("step %d: watermark %d by Add, %d by AddRun", step, w1, w2)
			}
			sameEdges(t, step, gotOne, gotRuns)
			if k := rng.IntN(len(gotOne) + 1); k > 0 && rng.IntN(2) == 0 {
				one.Recycle(k)
				runs.Recycle(k)
				gotOne, gotRuns = gotOne[k:], gotRuns[k:]
			}
		case 1:
			e1, w1 := one.Release()
			e2, w2 := runs.Release()
			if w1 != w2 {
				t.Fatalf("step %d: watermark %d by Add, %d by AddRun", step, w1, w2)
			}
			sameEdges(t, step, refs(e1), refs(e2))
		}
		same(t, step, one, runs)
	}
	e1, w1 := one.Flush()
	e2, w2 := runs.Flush()
	if w1 != w2 {
		t.Fatalf("flush: watermark %d by Add, %d by AddRun", w1, w2)
	}
	sameEdges(t, -1, refs(e1), refs(e2))
}

func refs(es []Edge) []*Edge {
	out := make([]*Edge, len(es))
	for i := range es {
		out[i] = &es[i]
	}
	return out
}

func sameEdges(t *testing.T, step int, a, b []*Edge) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("step %d: %d edges released by Add, %d by AddRun", step, len(a), len(b))
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.T != y.T || x.Seq != y.Seq || x.Origin != y.Origin || x.Src != y.Src || x.HasSeq != y.HasSeq {
			t.Fatalf("step %d: edge %d released is %+v by Add, %+v by AddRun", step, i, *x, *y)
		}
	}
}

func same(t *testing.T, step int, a, b *Reorder) {
	t.Helper()
	if a.Held() != b.Held() || a.StreamTime() != b.StreamTime() {
		t.Fatalf("step %d: Add holds %d (stream time %d), AddRun %d (%d)", step, a.Held(), a.StreamTime(), b.Held(), b.StreamTime())
	}
	if a.Len() != b.Len() || a.Bytes() != b.Bytes() || a.Watermark() != b.Watermark() || a.MaxT() != b.MaxT() ||
		a.Forced() != b.Forced() || a.OverCap() != b.OverCap() || a.Retired() != b.Retired() {
		t.Fatalf("step %d: Add holds %d edges (%d bytes, watermark %d, max t %d, forced %d, over cap %v, retired %d), AddRun %d (%d, %d, %d, %d, %v, %d)",
			step, a.Len(), a.Bytes(), a.Watermark(), a.MaxT(), a.Forced(), a.OverCap(), a.Retired(),
			b.Len(), b.Bytes(), b.Watermark(), b.MaxT(), b.Forced(), b.OverCap(), b.Retired())
	}
	if ma, mb := a.MinOffsets(), b.MinOffsets(); !maps.Equal(ma, mb) {
		t.Fatalf("step %d: min offsets %v by Add, %v by AddRun", step, ma, mb)
	}
	for id, pa := range a.parts {
		if pb := b.parts[id]; pb == nil || pa.n != pb.n || pa.bytes != pb.bytes || pa.maxT != pb.maxT {
			t.Fatalf("step %d: partition %d holds %d edges (%d bytes, max t %d) by Add, %+v by AddRun", step, id, pa.n, pa.bytes, pa.maxT, pb)
		}
	}
}

// TestAddRunStops checks where AddRun stops: at an edge out of order, a
// late one, one above MaxT, and at a cap.
func TestAddRunStops(t *testing.T) {
	mk := func(ts ...int64) []Edge {
		es := make([]Edge, len(ts))
		for i, tm := range ts {
			es[i] = Edge{Src: "a", Dst: "b", T: tm, Origin: Origin{Partition: 0, Offset: int64(i)}}
		}
		return es
	}
	r := NewReorder(0, 0, nil)
	if n := r.AddRun(mk(1, 2, 2, 5, 4, 6), NoRunLimits); n != 4 {
		t.Fatalf("AddRun(1 2 2 5 4 6) = %d; want 4 (stops at 4, out of order)", n)
	}
	lim := NoRunLimits
	lim.MaxT = 7
	if n := r.AddRun(mk(6, 7, 8), lim); n != 2 {
		t.Fatalf("AddRun(6 7 8) with MaxT 7 = %d; want 2", n)
	}
	r.Release() // watermark 6
	if w := r.Watermark(); w != 6 {
		t.Fatalf("watermark %d; want 6", w)
	}
	if n := r.AddRun(mk(6, 9), NoRunLimits); n != 0 {
		t.Fatalf("AddRun(6 9) after watermark 6 = %d; want 0 (late)", n)
	}
	r.SetMaxBuffered(r.Len() + 1)
	if n := r.AddRun(mk(9, 10, 11), NoRunLimits); n != 1 || r.OverCap() {
		t.Fatalf("AddRun(9 10 11) with room for one = %d (over cap %v); want 1", n, r.OverCap())
	}
	if n := r.AddRun(nil, NoRunLimits); n != 0 {
		t.Fatalf("AddRun(nil) = %d", n)
	}
}

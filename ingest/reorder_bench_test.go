package ingest

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// benchReorderInput is n edges over parts partitions, in arrival order:
// times advance by 0–2 ticks per edge (so ties are common) and each edge
// arrives up to jitter ticks late (0: in order).
func benchReorderInput(n, parts int, jitter int64) []Edge {
	rng := rand.New(rand.NewPCG(7, 8))
	type arrival struct {
		at int64
		e  Edge
	}
	arr := make([]arrival, n)
	var t int64
	for i := range arr {
		t += int64(rng.IntN(3))
		at := t
		if jitter > 0 {
			at += rng.Int64N(jitter)
		}
		arr[i] = arrival{at, Edge{Src: "s", Dst: "d", T: t}}
	}
	slices.SortStableFunc(arr, func(a, b arrival) int { return cmp.Compare(a.at, b.at) })
	out := make([]Edge, n)
	offs := make([]int64, parts)
	for i, a := range arr {
		p := i % parts
		a.e.Origin = Origin{Topic: "edges", Partition: p, Offset: offs[p]}
		offs[p]++
		out[i] = a.e
	}
	return out
}

// BenchmarkReorder adds 1M edges and releases every 1024 (a batch), with
// an allowed lateness of 10,000 ticks (about 10,000 edges buffered).
// edges/s is the throughput of Add + Release per edge. refs: the daemon's
// way, edges added by pointer (AddFrom), handed out in place
// (AppendReleaseRefs) and recycled after the batch. jump: under the
// JumpRule (max_jump 60,000 ticks: nothing is held; its cost on a
// well-behaved stream).
func BenchmarkReorder(b *testing.B) {
	const n = 1 << 20
	for _, bc := range []struct {
		parts  int
		jitter int64
		refs   bool
		jump   bool
	}{{1, 0, false, false}, {4, 0, false, false}, {4, 1000, false, false}, {16, 10000, false, false},
		{4, 0, true, false}, {16, 10000, true, false}, {4, 0, true, true}, {16, 10000, true, true}} {
		name := fmt.Sprintf("parts=%d/jitter=%d", bc.parts, bc.jitter)
		if bc.refs {
			name += "/refs"
		}
		if bc.jump {
			name += "/jump"
		}
		b.Run(name, func(b *testing.B) {
			in := benchReorderInput(n, bc.parts, bc.jitter)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				r := NewReorder(10_000, time.Minute, nil)
				if bc.jump {
					r.SetJumpRule(JumpRule{MaxJump: 60_000, Confirmations: 3})
				}
				released := 0
				var buf []Edge
				var refs []*Edge
				for j := range in {
					if r.AddFrom(&in[j]) {
						b.Fatal("late edge")
					}
					if j%1024 != 1023 {
						continue
					}
					if bc.refs {
						refs, _ = r.AppendReleaseRefs(refs[:0])
						released += len(refs)
						r.Recycle(len(refs))
					} else {
						buf, _ = r.AppendRelease(buf[:0])
						released += len(buf)
					}
				}
				out, _ := r.Flush()
				if released+len(out) != n {
					b.Fatalf("released %d; want %d", released+len(out), n)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "edges/s")
		})
	}
}

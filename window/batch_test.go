package window

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// TestAppendBatchEqualsAppend appends and evicts the same stream on two
// windows, edge by edge on one (Append, one goroutine) and by batches
// with workers on the other (AppendBatch, SetWorkers): ids, columns and
// every adjacency list (entries, and the room they hold) must be equal.
func TestAppendBatchEqualsAppend(t *testing.T) {
	for _, tc := range []struct {
		workers int
		pairs   bool
		attrs   bool
	}{{4, false, false}, {2, true, false}, {8, false, true}, {3, true, true}} {
		t.Run(fmt.Sprintf("workers=%d/pairs=%v/attrs=%v", tc.workers, tc.pairs, tc.attrs), func(t *testing.T) {
			s := Schema{TimeUnit: time.Second}
			if tc.attrs {
				s.EdgeAttrs = []Attr{{Name: "amount", Kind: Number}, {Name: "kind", Kind: String}}
			}
			one, batch := mustNew(t, s), mustNew(t, s)
			batch.SetWorkers(tc.workers)
			if tc.pairs {
				one.IndexPairs()
				batch.IndexPairs()
			}
			rng := rand.New(rand.NewPCG(uint64(tc.workers), 1))
			var now int64
			for round := range 12 {
				n := parallelMin + rng.IntN(3*parallelMin)
				if round%4 == 3 {
					n = rng.IntN(100) // small: one goroutine
				}
				nodes := 500 + rng.IntN(4000)
				var c Columns
				if tc.attrs {
					c.Attrs = make([][]float64, 2)
				}
				for range n {
					now += int64(rng.IntN(3))
					src, dst := fmt.Sprint(rng.IntN(nodes)), fmt.Sprint(rng.IntN(nodes))
					s1, _ := one.IDs().Intern(src)
					d1, _ := one.IDs().Intern(dst)
					s2, _ := batch.IDs().Intern(src)
					d2, _ := batch.IDs().Intern(dst)
					e := Edge{Src: s1, Dst: d1, T: now}
					if tc.attrs {
						code := float64(one.Strings().Intern(fmt.Sprint("k", rng.IntN(5))))
						batch.Strings().Intern(one.Strings().Value(uint32(code)))
						e.Attrs = []float64{float64(rng.IntN(100)), code}
						c.Attrs[0] = append(c.Attrs[0], e.Attrs[0])
						c.Attrs[1] = append(c.Attrs[1], code)
					}
					if _, err := one.Append(e); err != nil {
						t.Fatal(err)
					}
					c.Src, c.Dst, c.T = append(c.Src, s2), append(c.Dst, d2), append(c.T, now)
				}
				if _, err := batch.AppendBatch(c); err != nil {
					t.Fatal(err)
				}
				sameWindows(t, round, "append", one, batch)
				cut := now - int64(rng.IntN(int(n)+1))
				if rng.IntN(2) == 0 {
					one.EvictBefore(cut)
					batch.EvictBefore(cut)
				} else {
					p := one.First() + int64(rng.IntN(one.Len()+1))
					one.EvictTo(p)
					batch.EvictTo(p)
				}
				sameWindows(t, round, "evict", one, batch)
			}
		})
	}
}

func mustNew(t *testing.T, s Schema) *Window {
	t.Helper()
	w, err := New(s)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func sameWindows(t *testing.T, round int, what string, a, b *Window) {
	t.Helper()
	if a.First() != b.First() || a.End() != b.End() || a.AdjBase() != b.AdjBase() || a.IDs().Len() != b.IDs().Len() || a.IDs().Cap() != b.IDs().Cap() {
		t.Fatalf("round %d, %s: window [%d, %d) base %d ids %d/%d one by one, [%d, %d) base %d ids %d/%d by batch", round, what,
			a.First(), a.End(), a.AdjBase(), a.IDs().Len(), a.IDs().Cap(), b.First(), b.End(), b.AdjBase(), b.IDs().Len(), b.IDs().Cap())
	}
	for p := a.First(); p < a.End(); p++ {
		if a.Src(p) != b.Src(p) || a.Dst(p) != b.Dst(p) || a.T(p) != b.T(p) {
			t.Fatalf("round %d, %s: edge %d differs", round, what, p)
		}
		for c := range a.attrs {
			if a.EdgeAttr(c, p) != b.EdgeAttr(c, p) {
				t.Fatalf("round %d, %s: edge %d attribute %d differs", round, what, p, c)
			}
		}
	}
	for id := range uint32(a.IDs().Cap()) {
		if a.IDs().Name(id) != b.IDs().Name(id) {
			t.Fatalf("round %d, %s: id %d is %q one by one, %q by batch", round, what, id, a.IDs().Name(id), b.IDs().Name(id))
		}
		for _, l := range [][2][]adjList{{a.out, b.out}, {a.in, b.in}} {
			var la, lb adjList
			if int(id) < len(l[0]) {
				la = l[0][id]
			}
			if int(id) < len(l[1]) {
				lb = l[1][id]
			}
			if fmt.Sprint(la.live()) != fmt.Sprint(lb.live()) || la.head != lb.head || cap(la.ents) != cap(lb.ents) {
				t.Fatalf("round %d, %s: node %d's list is %v (head %d, cap %d) one by one, %v (head %d, cap %d) by batch",
					round, what, id, la.live(), la.head, cap(la.ents), lb.live(), lb.head, cap(lb.ents))
			}
		}
	}
	if a.pairsOn.Load() && a.Pairs() != b.Pairs() {
		t.Fatalf("round %d, %s: %d pairs one by one, %d by batch", round, what, a.Pairs(), b.Pairs())
	}
	if a.strings != nil && a.Strings().Len() != b.Strings().Len() {
		t.Fatalf("round %d, %s: %d strings one by one, %d by batch", round, what, a.Strings().Len(), b.Strings().Len())
	}
}

package window

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

func newTestWindow(t *testing.T, s Schema) *Window {
	t.Helper()
	if s.TimeUnit == 0 {
		s.TimeUnit = time.Second
	}
	w, err := New(s)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func add(t *testing.T, w *Window, src, dst string, ts int64, attrs ...float64) int64 {
	t.Helper()
	s, _ := w.IDs().Intern(src)
	d, _ := w.IDs().Intern(dst)
	p, err := w.Append(Edge{Src: s, Dst: d, T: ts, Attrs: attrs})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestAppendKeepsAdjacencyInTimeOrder(t *testing.T) {
	w := newTestWindow(t, Schema{})
	add(t, w, "a", "b", 1)
	add(t, w, "a", "c", 1)
	add(t, w, "b", "a", 2)
	add(t, w, "a", "b", 5)
	a, _ := w.IDs().Lookup("a")
	b, _ := w.IDs().Lookup("b")
	var got []string
	for _, e := range w.Out(a) {
		got = append(got, fmt.Sprintf("%s@%d#%d", w.IDs().Name(e.Other), e.T, w.Pos(e)))
	}
	want := "[b@1#0 c@1#1 b@5#3]"
	if fmt.Sprint(got) != want {
		t.Errorf("Out(a) = %v; want %v", got, want)
	}
	if in := w.In(a); len(in) != 1 || in[0].Other != b || w.Pos(in[0]) != 2 {
		t.Errorf("In(a) = %+v; want one edge from b at position 2", in)
	}
	if w.First() != 0 || w.End() != 4 || w.Len() != 4 {
		t.Errorf("First, End, Len = %d, %d, %d; want 0, 4, 4", w.First(), w.End(), w.Len())
	}
}

func TestAppendRejectsOutOfOrderAndBadInput(t *testing.T) {
	w := newTestWindow(t, Schema{EdgeAttrs: []Attr{{Name: "amount"}}})
	add(t, w, "a", "b", 10, 1)
	s, _ := w.IDs().Lookup("a")
	if _, err := w.Append(Edge{Src: s, Dst: s, T: 9, Attrs: []float64{1}}); !errors.Is(err, ErrOutOfOrder) {
		t.Errorf("Append(t=9 after t=10) = %v; want ErrOutOfOrder", err)
	}
	if _, err := w.Append(Edge{Src: s, Dst: s, T: 11}); err == nil {
		t.Errorf("Append with missing attributes succeeded; want error")
	}
	if _, err := w.Append(Edge{Src: 99, Dst: s, T: 11, Attrs: []float64{1}}); err == nil {
		t.Errorf("Append with an id never interned succeeded; want error")
	}
	if w.Len() != 1 {
		t.Errorf("Len = %d after rejected appends; want 1", w.Len())
	}
}

func TestEvictReleasesIDsAndKeepsPositions(t *testing.T) {
	w := newTestWindow(t, Schema{EdgeAttrs: []Attr{{Name: "amount"}}, NodeAttrs: []Attr{{Name: LabelAttr, Kind: String}}})
	add(t, w, "a", "b", 1, 10)
	add(t, w, "b", "c", 2, 20)
	p := add(t, w, "c", "d", 3, 30)
	a, _ := w.IDs().Lookup("a")
	w.SetNodeAttr(0, a, float64(w.Strings().Intern("bank")))
	if n := w.EvictBefore(2); n != 1 {
		t.Fatalf("EvictBefore(2) = %d; want 1", n)
	}
	if _, ok := w.IDs().Lookup("a"); ok {
		t.Errorf("id a still live after its only edge left")
	}
	if _, ok := w.IDs().Lookup("b"); !ok {
		t.Errorf("id b released while it still has an edge")
	}
	if w.First() != 1 || w.T(p) != 3 || w.EdgeAttr(0, p) != 30 {
		t.Errorf("after eviction: First=%d T(%d)=%d attr=%v; want 1, 3, 30", w.First(), p, w.T(p), w.EdgeAttr(0, p))
	}
	// A new node reuses a's dense id and must not inherit its label.
	e, _ := w.IDs().Intern("e")
	if e != a {
		t.Errorf("new id %d; want reused id %d", e, a)
	}
	if got := w.Strings().Value(uint32(w.NodeAttr(0, e))); got != "" {
		t.Errorf("reused id has label %q; want none", got)
	}
	if n := w.EvictTo(w.End()); n != 2 || w.Len() != 0 || w.IDs().Len() != 1 {
		t.Errorf("EvictTo(End) = %d, Len %d, live ids %d; want 2, 0, 1 (only e)", n, w.Len(), w.IDs().Len())
	}
}

// TestSlidingMatchesRebuild slides a window over a random stream and
// checks, after every step, that it equals a window built from scratch
// from the live edges: adjacency, positions, attributes and dictionaries.
func TestSlidingMatchesRebuild(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	w := newTestWindow(t, Schema{EdgeAttrs: []Attr{{Name: "x"}}})
	type rec struct {
		src, dst string
		t        int64
		x        float64
	}
	var all []rec
	var ts int64
	for step := 0; step < 3000; step++ {
		ts += int64(rng.IntN(3))
		r := rec{fmt.Sprint(rng.IntN(40)), fmt.Sprint(rng.IntN(40)), ts, float64(step)}
		all = append(all, r)
		add(t, w, r.src, r.dst, r.t, r.x)
		if step%7 == 0 {
			w.EvictBefore(ts - 25)
		}
		if step%53 == 0 {
			w.Shrink() // must change no contents
		}
		if step%97 != 0 {
			continue
		}
		first := w.First()
		for p := first; p < w.End(); p++ {
			r := all[p]
			if w.IDs().Name(w.Src(p)) != r.src || w.IDs().Name(w.Dst(p)) != r.dst || w.T(p) != r.t || w.EdgeAttr(0, p) != r.x {
				t.Fatalf("step %d: edge %d differs from the stream", step, p)
			}
		}
		deg := map[string]int{}
		for p := first; p < w.End(); p++ {
			deg[all[p].src]++
			deg[all[p].dst]++
		}
		if w.IDs().Len() != len(deg) {
			t.Fatalf("step %d: %d live ids; want %d", step, w.IDs().Len(), len(deg))
		}
		for name := range deg {
			id, ok := w.IDs().Lookup(name)
			if !ok {
				t.Fatalf("step %d: id %s missing", step, name)
			}
			var last int64 = math.MinInt64
			n := 0
			for _, lst := range [][]Adj{w.Out(id), w.In(id)} {
				last = math.MinInt64
				for _, e := range lst {
					if w.Pos(e) <= last || w.Pos(e) < first || e.T != all[w.Pos(e)].t {
						t.Fatalf("step %d: adjacency of %s out of order or stale: %+v", step, name, e)
					}
					last = w.Pos(e)
					n++
				}
			}
			if n != deg[name] {
				t.Fatalf("step %d: degree of %s = %d; want %d", step, name, n, deg[name])
			}
		}
	}
}

func TestSearchTime(t *testing.T) {
	w := newTestWindow(t, Schema{})
	for i, ts := range []int64{1, 3, 3, 7} {
		add(t, w, "a", fmt.Sprint(i), ts)
	}
	for _, c := range []struct {
		t    int64
		want int64
	}{{0, 0}, {1, 0}, {2, 1}, {3, 1}, {4, 3}, {8, 4}} {
		if got := w.SearchTime(c.t); got != c.want {
			t.Errorf("SearchTime(%d) = %d; want %d", c.t, got, c.want)
		}
	}
}

func TestBytesCountsAllocations(t *testing.T) {
	w := newTestWindow(t, Schema{})
	if w.BytesPerEdge() != 0 {
		t.Errorf("BytesPerEdge of empty window = %v; want 0", w.BytesPerEdge())
	}
	for i := 0; i < 1000; i++ {
		add(t, w, fmt.Sprint(i%50), fmt.Sprint(i%51), int64(i))
	}
	// src+dst+t = 16 bytes, two 24-byte adjacency entries: at least 64.
	if b := w.BytesPerEdge(); b < 64 || b > 400 {
		t.Errorf("BytesPerEdge = %.1f; want between 64 and 400", b)
	}
}

func TestBetweenFollowsAppendAndEvict(t *testing.T) {
	w := newTestWindow(t, Schema{})
	add(t, w, "a", "b", 1)
	add(t, w, "b", "a", 2)
	add(t, w, "a", "b", 3)
	add(t, w, "a", "c", 4)
	a, _ := w.IDs().Lookup("a")
	b, _ := w.IDs().Lookup("b")
	if got := w.Between(a, b); len(got) != 2 || w.Pos(got[0]) != 0 || w.Pos(got[1]) != 2 {
		t.Errorf("Between(a, b) = %+v; want positions 0 and 2", got)
	}
	w.EvictBefore(2)
	if got := w.Between(a, b); len(got) != 1 || w.Pos(got[0]) != 2 {
		t.Errorf("after eviction Between(a, b) = %+v; want position 2", got)
	}
	w.EvictBefore(4)
	if got := w.Between(a, b); len(got) != 0 || w.Pairs() != 1 {
		t.Errorf("after eviction Between(a, b) = %+v, Pairs = %d; want none, 1", got, w.Pairs())
	}
}

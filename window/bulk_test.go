package window

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// dump renders everything a reader of w can see: columns, adjacency and
// the pair lists of every pair with an edge, node by dense id.
func dump(w *Window) string {
	var b strings.Builder
	fmt.Fprintf(&b, "first %d end %d ids %d/%d strings %d\n", w.First(), w.End(), w.IDs().Len(), w.IDs().Cap(), w.Strings().Len())
	for p := w.First(); p < w.End(); p++ {
		fmt.Fprintf(&b, "%d: %d>%d @%d", p, w.Src(p), w.Dst(p), w.T(p))
		for c := range w.Schema().EdgeAttrs {
			fmt.Fprintf(&b, " %v", w.EdgeAttr(c, p))
		}
		b.WriteByte('\n')
	}
	list := func(l []Adj) string { // positions, not Rel: the base may differ
		var s strings.Builder
		for _, a := range l {
			fmt.Fprintf(&s, " %d/%d/%d", a.T, w.Pos(a), a.Other)
		}
		return s.String()
	}
	for v := range uint32(w.IDs().Cap()) {
		fmt.Fprintf(&b, "out %d%s\nin %d%s\n", v, list(w.Out(v)), v, list(w.In(v)))
		seen := map[uint32]bool{}
		for _, a := range w.Out(v) {
			if !seen[a.Other] {
				seen[a.Other] = true
				fmt.Fprintf(&b, "pair %d>%d%s\n", v, a.Other, list(w.Between(v, a.Other)))
			}
		}
	}
	fmt.Fprintf(&b, "pairs %d\n", w.Pairs())
	return b.String()
}

// randomRun returns n edges over k nodes (interned in w) with times that
// never decrease and many ties, with a number and a string attribute.
func randomRun(w *Window, r *rand.Rand, n, k int, t0 int64) Columns {
	c := Columns{Attrs: make([][]float64, 2)}
	t := t0
	for range n {
		s, _ := w.IDs().Intern(fmt.Sprint("n", r.IntN(k)))
		d, _ := w.IDs().Intern(fmt.Sprint("n", r.IntN(k)))
		t += int64(r.IntN(3))
		c.Src, c.Dst, c.T = append(c.Src, s), append(c.Dst, d), append(c.T, t)
		c.Attrs[0] = append(c.Attrs[0], float64(r.IntN(100)))
		c.Attrs[1] = append(c.Attrs[1], float64(w.Strings().Code(fmt.Sprint("s", r.IntN(5)))))
	}
	return c
}

// TestAppendColumnsEqualsAppend: bulk appends (to an empty window, then to
// a non-empty one, with 1 and 3 workers, before and after the pair index
// exists, with evictions between) leave the window exactly as appending
// the same edges one by one does.
//
// With maxRel lowered, both windows move their adjacency base (at
// different moments) and must still read the same.
func TestAppendColumnsEqualsAppend(t *testing.T) {
	s := Schema{EdgeAttrs: []Attr{{Name: "x", Kind: Number}, {Name: "s", Kind: String}}}
	defer func(m int64, d int) { maxRel, directFill = m, d }(maxRel, directFill)
	for _, workers := range []int{1, 3} {
		for _, pairsFirst := range []bool{false, true} {
			maxRel = math.MaxUint32
			if (workers == 1) == pairsFirst {
				maxRel = 250_000
			}
			// The first (fresh) append is filled straight or partitioned.
			directFill = 1 << 16
			if pairsFirst {
				directFill = 1 << 20
			}
			t.Run(fmt.Sprintf("workers=%d/pairsFirst=%v/maxRel=%d/directFill=%d", workers, pairsFirst, maxRel, directFill), func(t *testing.T) {
				r1, r2 := rand.New(rand.NewPCG(7, 8)), rand.New(rand.NewPCG(7, 8))
				bulk, one := newTestWindow(t, s), newTestWindow(t, s)
				var t0 int64
				for round := range 4 {
					n := []int{200_000, 3000, 1, 70_000}[round]
					c := randomRun(bulk, r1, n, 500, t0)
					c2 := randomRun(one, r2, n, 500, t0)
					t0 = c.T[len(c.T)-1]
					if pairsFirst {
						bulk.IndexPairs()
					}
					p, err := bulk.AppendColumns(c, workers)
					if err != nil {
						t.Fatal(err)
					}
					for i := range c2.T {
						q, err := one.Append(Edge{Src: c2.Src[i], Dst: c2.Dst[i], T: c2.T[i], Attrs: []float64{c2.Attrs[0][i], c2.Attrs[1][i]}})
						if err != nil {
							t.Fatal(err)
						}
						if i == 0 && q != p {
							t.Fatalf("round %d: AppendColumns put the first edge at %d; Append at %d", round, p, q)
						}
					}
					if got, want := dump(bulk), dump(one); got != want {
						t.Fatalf("round %d: bulk window differs from one-by-one:\n%s", round, firstDiff(got, want))
					}
					cut := t0 - 50
					if bulk.EvictBefore(cut) != one.EvictBefore(cut) {
						t.Fatalf("round %d: evictions differ", round)
					}
				}
				if got, want := dump(bulk), dump(one); got != want {
					t.Fatalf("after eviction: bulk window differs:\n%s", firstDiff(got, want))
				}
			})
		}
	}
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d:\n got  %.300s\n want %.300s", i, al[i], bl[i])
		}
	}
	return fmt.Sprintf("lengths %d, %d lines", len(al), len(bl))
}

func TestAppendColumnsRejectsBadRuns(t *testing.T) {
	w := newTestWindow(t, Schema{})
	a, _ := w.IDs().Intern("a")
	b, _ := w.IDs().Intern("b")
	add(t, w, "a", "b", 5)
	for _, tc := range []struct {
		name string
		c    Columns
		want string
	}{
		{"older than window", Columns{Src: []uint32{a}, Dst: []uint32{b}, T: []int64{4}}, "append t=4 after t=5"},
		{"out of order", Columns{Src: []uint32{a, a}, Dst: []uint32{b, b}, T: []int64{7, 6}}, "append t=6 after t=7"},
		{"lengths", Columns{Src: []uint32{a}, Dst: nil, T: []int64{6}}, "1 sources, 0 destinations, 1 times"},
		{"unknown id", Columns{Src: []uint32{a}, Dst: []uint32{9}, T: []int64{6}}, "node id 0/9 was not interned"},
		{"attrs", Columns{Src: []uint32{a}, Dst: []uint32{b}, T: []int64{6}, Attrs: [][]float64{{1}}}, "1 attribute columns for 0"},
	} {
		before := dump(w)
		_, err := w.AppendColumns(tc.c, 2)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: AppendColumns error = %v; want it to contain %q", tc.name, err, tc.want)
		}
		if got := dump(w); got != before {
			t.Errorf("%s: a refused run changed the window", tc.name)
		}
	}
	if _, err := w.AppendColumns(Columns{Src: []uint32{a}, Dst: []uint32{b}, T: []int64{4}}, 1); !errors.Is(err, ErrOutOfOrder) {
		t.Errorf("AppendColumns of an older edge: %v; want ErrOutOfOrder", err)
	}
}

// TestPairIndexIsLazy: a window's pair index costs nothing until the first
// Between, which builds it to the same lists as incremental maintenance.
func TestPairIndexIsLazy(t *testing.T) {
	w := newTestWindow(t, Schema{})
	r := rand.New(rand.NewPCG(1, 1))
	var t0 int64
	for range 3 {
		c := Columns{}
		for range 1000 {
			s, _ := w.IDs().Intern(fmt.Sprint(r.IntN(30)))
			d, _ := w.IDs().Intern(fmt.Sprint(r.IntN(30)))
			t0 += int64(r.IntN(2))
			c.Src, c.Dst, c.T = append(c.Src, s), append(c.Dst, d), append(c.T, t0)
			if _, err := w.Append(Edge{Src: s, Dst: d, T: t0}); err != nil {
				t.Fatal(err)
			}
		}
		w.EvictBefore(t0 - 300)
	}
	if w.pairBytes() != 0 || w.pairsOn.Load() {
		t.Fatalf("pair index holds %d bytes before any Between", w.pairBytes())
	}
	before := w.Bytes()
	w.Between(0, 1) // builds it
	if w.Bytes() <= before {
		t.Errorf("Bytes = %d after building the pair index; want more than %d", w.Bytes(), before)
	}
	eager := newTestWindow(t, Schema{})
	eager.IndexPairs()
	for p := w.First(); p < w.End(); p++ {
		s, _ := eager.IDs().Intern(w.IDs().Name(w.Src(p)))
		d, _ := eager.IDs().Intern(w.IDs().Name(w.Dst(p)))
		eager.Append(Edge{Src: s, Dst: d, T: w.T(p)})
	}
	// Positions differ by the evicted prefix; compare pair lists by time
	// and endpoints names.
	if got, want := pairSummary(w), pairSummary(eager); got != want {
		t.Errorf("lazily built pair index differs from incremental:\n%s", firstDiff(got, want))
	}
}

func pairSummary(w *Window) string {
	var b strings.Builder
	for p := w.First(); p < w.End(); p++ {
		s, d := w.Src(p), w.Dst(p)
		fmt.Fprintf(&b, "%s>%s:", w.IDs().Name(s), w.IDs().Name(d))
		for _, a := range w.Between(s, d) {
			fmt.Fprintf(&b, " %d/%d", a.T, w.Pos(a)-w.First())
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "pairs %d\n", w.Pairs())
	return b.String()
}

func TestAppendPastMaxRel(t *testing.T) {
	defer func(m int64) { maxRel = m }(maxRel)
	maxRel = 10
	w := newTestWindow(t, Schema{})
	a, _ := w.IDs().Intern("a")
	b, _ := w.IDs().Intern("b")
	c := Columns{}
	for i := range 12 {
		c.Src, c.Dst, c.T = append(c.Src, a), append(c.Dst, b), append(c.T, int64(i))
	}
	if _, err := w.AppendColumns(c, 1); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("AppendColumns of 12 edges with maxRel 10: %v; want ErrTooLarge", err)
	}
	for i := range 11 {
		if _, err := w.Append(Edge{Src: a, Dst: b, T: int64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Append(Edge{Src: a, Dst: b, T: 11}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Append of a 12th live edge with maxRel 10: %v; want ErrTooLarge", err)
	}
	w.EvictTo(5)
	for i := 11; i < 16; i++ {
		if _, err := w.Append(Edge{Src: a, Dst: b, T: int64(i)}); err != nil {
			t.Fatalf("Append after eviction: %v", err)
		}
	}
	if out := w.Out(a); w.AdjBase() != 5 || len(out) != 11 || w.Pos(out[0]) != 5 || w.Pos(out[10]) != 15 || out[10].Rel != 10 {
		t.Errorf("after a rebase: base %d, out-list %v; want base 5, positions 5..15", w.AdjBase(), out)
	}
}

// TestAppendColumnsRejectsBadRunsInParallel: a long run checked in ranges
// by several goroutines reports the first offending edge, as the check
// edge by edge does, and leaves the window as it was.
func TestAppendColumnsRejectsBadRunsInParallel(t *testing.T) {
	n := 4 * bulkParallelMin
	run := func() Columns {
		c := Columns{Src: make([]uint32, n), Dst: make([]uint32, n), T: make([]int64, n)}
		for i := range n {
			c.Src[i], c.Dst[i], c.T[i] = uint32(i%2), uint32((i+1)%2), int64(10+i/3)
		}
		return c
	}
	for _, tc := range []struct {
		name  string
		spoil func(c Columns)
		want  string
	}{
		{"out of order, twice", func(c Columns) {
			c.T[3*n/4+5] = 11
			c.T[n/2+1] = 12
		}, fmt.Sprintf("append t=12 after t=%d", 10+(n/2)/3)},
		{"unknown id after disorder", func(c Columns) {
			c.Dst[n-2] = 7
			c.T[n/4] = 9
		}, fmt.Sprintf("append t=9 after t=%d", 10+(n/4-1)/3)},
		{"unknown id", func(c Columns) { c.Src[n/3] = 5 }, "node id 5/"},
		{"older than window", func(c Columns) {}, "append t=10 after t=1000"},
	} {
		w := newTestWindow(t, Schema{})
		w.IDs().Intern("a")
		w.IDs().Intern("b")
		if tc.name == "older than window" {
			add(t, w, "a", "b", 1000)
		}
		before := dump(w)
		c := run()
		tc.spoil(c)
		_, err := w.AppendColumns(c, 4)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: AppendColumns error = %v; want it to contain %q", tc.name, err, tc.want)
		}
		if got := dump(w); got != before {
			t.Errorf("%s: a refused run changed the window", tc.name)
		}
	}
}

// TestAdoptEqualsIntern: a dictionary that adopts names reads as one that
// interned them in order, and interns, looks up and releases the same
// once its index is built; a non-empty one refuses.
func TestAdoptEqualsIntern(t *testing.T) {
	names := []string{"7", "a", "", "x y", "3"}
	a, b := NewIDs(), NewIDs()
	wait, err := a.Adopt(slices.Clone(names))
	if err != nil {
		t.Fatal(err)
	}
	if a.Cap() != len(names) || a.Len() != len(names) || a.Name(3) != "x y" {
		t.Fatalf("before the index: Cap %d Len %d Name(3) %q", a.Cap(), a.Len(), a.Name(3))
	}
	if err := wait(); err != nil {
		t.Fatal(err)
	}
	if err := wait(); err != nil { // twice is fine
		t.Fatal(err)
	}
	for _, s := range names {
		b.Intern(s)
	}
	a.Release(1)
	b.Release(1)
	for _, s := range []string{"new", "a", "7", "3", "b"} {
		ga, na := a.Intern(s)
		gb, nb := b.Intern(s)
		if ga != gb || na != nb {
			t.Fatalf("Intern(%q): adopted %d,%v; interned %d,%v", s, ga, na, gb, nb)
		}
	}
	for id := range uint32(b.Cap()) {
		if a.Name(id) != b.Name(id) {
			t.Fatalf("Name(%d): %q, %q", id, a.Name(id), b.Name(id))
		}
		ia, oka := a.Lookup(b.Name(id))
		ib, okb := b.Lookup(b.Name(id))
		if ia != ib || oka != okb {
			t.Fatalf("Lookup(%q): %d,%v; %d,%v", b.Name(id), ia, oka, ib, okb)
		}
	}
	if a.Len() != b.Len() || a.Cap() != b.Cap() {
		t.Fatalf("Len/Cap %d/%d; want %d/%d", a.Len(), a.Cap(), b.Len(), b.Cap())
	}
	if _, err := b.Adopt([]string{"q"}); err == nil {
		t.Fatal("a non-empty dictionary adopted names")
	}
	wait, err = NewIDs().Adopt([]string{"p", "q", "p"})
	if err != nil {
		t.Fatal(err)
	}
	if err := wait(); err == nil || !strings.Contains(err.Error(), `"p" given twice`) {
		t.Fatalf("adopting a repeated name: %v; want an error", err)
	}
}

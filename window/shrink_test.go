package window

import (
	"fmt"
	"testing"
)

// TestShrinkGivesMemoryBack: after most of a hub's edges are evicted, Bytes keeps
// its peak until Shrink, then falls to about what the live edges need;
// ids, positions and adjacency are unchanged and appends go on.
func TestShrinkGivesMemoryBack(t *testing.T) {
	w := newTestWindow(t, Schema{EdgeAttrs: []Attr{{Name: "x"}}})
	for i := 0; i < 100_000; i++ {
		add(t, w, "hub", fmt.Sprint("n", i%100), int64(i), float64(i))
	}
	peak := w.Bytes()
	w.EvictBefore(95_000)
	if got := w.Bytes(); got < peak*3/4 {
		t.Fatalf("Bytes after eviction = %d; want near the peak %d before Shrink (capacities stay)", got, peak)
	}
	w.Shrink()
	after := w.Bytes()
	if after > peak/10 {
		t.Errorf("Bytes after Shrink = %d; want at most a tenth of the peak %d for 5%% of the edges", after, peak)
	}
	hub, _ := w.IDs().Lookup("hub")
	if out := w.Out(hub); len(out) != 5000 || w.Pos(out[0]) != 95_000 || w.T(w.Pos(out[0])) != 95_000 || w.EdgeAttr(0, 99_999) != 99_999 {
		t.Fatalf("after Shrink: hub has %d out-edges from position %d; want 5000 from 95000", len(out), w.Pos(out[0]))
	}
	if w.IDs().Len() != 101 || w.IDs().Cap() != 101 {
		t.Errorf("after Shrink: %d live ids, Cap %d; want 101, 101", w.IDs().Len(), w.IDs().Cap())
	}
	p := add(t, w, "hub", "new", 100_000, 1)
	if p != 100_000 || len(w.Between(hub, must(w.IDs().Lookup("new")))) != 1 {
		t.Errorf("append after Shrink at position %d; want 100000, indexed", p)
	}
	t.Logf("bytes: peak %d (%.0f B/edge), after evicting 95%% and Shrink %d (%.0f B/edge)",
		peak, float64(peak)/100_000, after, float64(after)/5000)
}

// TestShrinkDropsTrailingIDs: dense ids above the largest live one are
// dropped, so arrays indexed by id shrink too; lower free ids are reused.
func TestShrinkDropsTrailingIDs(t *testing.T) {
	w := newTestWindow(t, Schema{NodeAttrs: []Attr{{Name: LabelAttr, Kind: String}}})
	add(t, w, "a", "b", 1)
	for i := 0; i < 1000; i++ {
		add(t, w, fmt.Sprint("x", i), fmt.Sprint("y", i), 2)
	}
	add(t, w, "a", "c", 3)
	w.EvictBefore(3) // only a->c stays: ids 0 (a) and 2002 (c)
	w.Shrink()
	if w.IDs().Cap() != 2003 {
		t.Errorf("Cap = %d; want 2003 (c is the largest live id)", w.IDs().Cap())
	}
	w.EvictBefore(4)
	w.Shrink()
	if w.IDs().Cap() != 0 || w.IDs().Len() != 0 || w.Bytes() > 200 {
		t.Errorf("empty window after Shrink: Cap %d, Len %d, Bytes %d; want 0, 0, ~0", w.IDs().Cap(), w.IDs().Len(), w.Bytes())
	}
	add(t, w, "d", "e", 5)
	if d, _ := w.IDs().Lookup("d"); d != 0 {
		t.Errorf("first id after an emptying Shrink = %d; want 0", d)
	}
}

func must[T any](v T, ok bool) T {
	if !ok {
		panic("lookup failed")
	}
	return v
}

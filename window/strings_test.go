package window

import (
	"fmt"
	"testing"
	"time"
)

// TestStringsLeaveWithTheirLastEdge: edge values that never repeat (a
// nonce in an attribute) are released with their last edge, so the
// dictionary stays as small as the window; pinned values (query literals)
// survive; a released code is reused without aliasing a live value.
func TestStringsLeaveWithTheirLastEdge(t *testing.T) {
	w, err := New(Schema{TimeUnit: time.Second, EdgeAttrs: []Attr{{Name: "nonce", Kind: String}, {Name: "amount", Kind: Number}}})
	if err != nil {
		t.Fatal(err)
	}
	lit := w.Strings().Intern("v3") // a query literal equal to an edge value
	a, _ := w.IDs().Intern("a")
	b, _ := w.IDs().Intern("b")
	const span = 100
	maxLen := 0
	for i := 0; i < 100000; i++ {
		v := fmt.Sprint("v", i)
		code := w.Strings().Code(v)
		if _, err := w.Append(Edge{Src: a, Dst: b, T: int64(i), Attrs: []float64{float64(code), 1}}); err != nil {
			t.Fatal(err)
		}
		w.EvictBefore(int64(i) - span)
		maxLen = max(maxLen, w.Strings().Len())
		// Every live edge still reads its own value.
		if i%997 == 0 {
			for p := w.First(); p < w.End(); p++ {
				want := fmt.Sprint("v", w.T(p))
				if got := w.Strings().Value(uint32(w.EdgeAttr(0, p))); got != want {
					t.Fatalf("edge at t=%d reads %q, want %q", w.T(p), got, want)
				}
			}
		}
	}
	if maxLen > span+10 {
		t.Fatalf("dictionary grew to %d values for a window of %d edges", maxLen, span+1)
	}
	if got := w.Strings().Value(lit); got != "v3" {
		t.Fatalf("pinned literal reads %q", got)
	}
	if c := w.Strings().Code("v3"); c != lit {
		t.Fatalf("the literal's value has code %d, pinned code %d", c, lit)
	}
	t.Logf("100000 distinct values, at most %d held at once", maxLen)
}

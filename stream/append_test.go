package stream

import (
	"context"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/alerts"
	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/motif/cpu"
	"github.com/motifwatch/motifwatch/window"
)

// TestAppendWorkersAgree: large batches of edges with number and string
// attributes (some missing, some never repeating), node labels,
// self-loops, keys for some names only, and a node cap that refuses
// edges, appended by one goroutine and by eight workers: the same
// outputs (alerts with their attributes and labels, counts, refused
// edges, appended, self-loops, held, evicted), the same window (ids,
// times, attribute values and string codes, labels), batch after batch;
// then a batch with an edge out of order fails alike on both and leaves
// the same window behind.
func TestAppendWorkersAgree(t *testing.T) {
	schema := window.Schema{TimeUnit: time.Second,
		EdgeAttrs: []window.Attr{{Name: "amount", Kind: window.Number}, {Name: "ref", Kind: window.String}, {Name: "currency", Kind: window.String}},
		NodeAttrs: []window.Attr{{Name: window.LabelAttr, Kind: window.String}}}
	rng := rand.New(rand.NewPCG(7, 8))
	keys := window.NewKeys()
	const nodes, perTick = 3000, 3
	var edges []ingest.Edge
	for i := range 40_000 {
		u, v := rng.IntN(nodes), rng.IntN(nodes)
		if i%101 == 0 {
			v = u // a self-loop
		}
		e := ingest.Edge{Src: fmt.Sprint("n", u), Dst: fmt.Sprint("n", v), T: int64(i / perTick),
			Seq: int64(i), HasSeq: true, Origin: ingest.Origin{Partition: i % 2, Offset: int64(i / 2)}}
		if u%3 != 0 { // the other names come without a key
			e.SrcKey, e.Src = keys.Of(e.Src)
		}
		if v%3 != 0 {
			e.DstKey, e.Dst = keys.Of(e.Dst)
		}
		e.Attrs = []ingest.Value{{Kind: window.Number}, {Kind: window.String}, {Kind: window.String}}
		if i%7 != 0 {
			e.Attrs[0] = ingest.Value{Num: float64(rng.IntN(5000)), Kind: window.Number, Set: true}
		}
		if i%5 != 0 {
			e.Attrs[1] = ingest.Value{Str: fmt.Sprint("ref-", i), Kind: window.String, Set: true} // never repeats
		}
		e.Attrs[2] = ingest.Value{Str: []string{"EUR", "USD", "CHF", "GBP"}[rng.IntN(4)], Kind: window.String, Set: true}
		if i%11 == 0 {
			e.SrcLabel = []string{"account", "mule", "merchant"}[u%3]
		}
		if i%13 == 0 {
			e.DstLabel = []string{"account", "mule", "merchant", "EUR"}[v%4]
		}
		edges = append(edges, e)
	}
	relay := &motif.Query{Name: "relay", Delta: motif.TicksSpan(40),
		Nodes: []motif.Node{{Name: "A"}, {Name: "B"}, {Name: "C"}},
		Edges: []motif.Edge{{From: 0, To: 1}, {From: 1, To: 2}}}
	back := &motif.Query{Name: "back-and-forth", Delta: motif.TicksSpan(2000),
		Nodes: []motif.Node{{Name: "A"}, {Name: "B"}},
		Edges: []motif.Edge{{From: 0, To: 1}, {From: 1, To: 0}}}
	procs := make([]*Processor, 2)
	for k, workers := range []int{1, 8} {
		p, err := New(Options{Engine: cpu.New(2), Schema: schema, NodeKeys: keys, AppendWorkers: workers, MaxNodes: 2000})
		if err != nil {
			t.Fatal(err)
		}
		if err := p.SetQueries([]Query{{Query: relay, Enumerate: true}, {Query: back}}); err != nil {
			t.Fatal(err)
		}
		procs[k] = p
	}
	sameWindow := func(when string) {
		t.Helper()
		a, b := procs[0].Window(), procs[1].Window()
		if a.First() != b.First() || a.End() != b.End() || a.IDs().Len() != b.IDs().Len() || a.Strings().Len() != b.Strings().Len() {
			t.Fatalf("%s: window [%d, %d) of %d ids and %d strings by one goroutine, [%d, %d) of %d and %d by workers", when,
				a.First(), a.End(), a.IDs().Len(), a.Strings().Len(), b.First(), b.End(), b.IDs().Len(), b.Strings().Len())
		}
		for p := a.First(); p < a.End(); p++ {
			if a.Src(p) != b.Src(p) || a.Dst(p) != b.Dst(p) || a.T(p) != b.T(p) {
				t.Fatalf("%s: window edge %d differs", when, p)
			}
			for col := range schema.EdgeAttrs {
				if x, y := a.EdgeAttr(col, p), b.EdgeAttr(col, p); math.Float64bits(x) != math.Float64bits(y) {
					t.Fatalf("%s: window edge %d attribute %d: %v by one goroutine, %v by workers", when, p, col, x, y)
				}
			}
			for _, v := range []uint32{a.Src(p), a.Dst(p)} {
				if x, y := a.NodeAttr(0, v), b.NodeAttr(0, v); x != y || a.IDs().Name(v) != b.IDs().Name(v) {
					t.Fatalf("%s: node %d (%s) label code %v by one goroutine, %v by workers", when, v, a.IDs().Name(v), x, y)
				}
			}
		}
	}
	// The window holds exactly the edges taken (no self-loop, none
	// refused), in order, position p the p-th: their nodes, times,
	// attributes and metadata.
	var taken []*ingest.Edge
	takenAlike := func(when string, batch []ingest.Edge, out *Output) {
		t.Helper()
		no := map[int64]bool{}
		for _, r := range out.Refused {
			no[r.Edge.Seq] = true
		}
		for i := range batch {
			if e := &batch[i]; e.Src != e.Dst && !no[e.Seq] {
				taken = append(taken, e)
			}
		}
		p := procs[0]
		w := p.Window()
		if w.End() != int64(len(taken)) {
			t.Fatalf("%s: window ends at %d; %d edges taken", when, w.End(), len(taken))
		}
		for pos := w.First(); pos < w.End(); pos++ {
			e := taken[pos]
			if w.IDs().Name(w.Src(pos)) != e.Src || w.IDs().Name(w.Dst(pos)) != e.Dst || w.T(pos) != e.T || p.meta.at(pos).seq != e.Seq {
				t.Fatalf("%s: window edge %d is %s->%s at %d (seq %d); edge taken %s->%s at %d (seq %d)", when, pos,
					w.IDs().Name(w.Src(pos)), w.IDs().Name(w.Dst(pos)), w.T(pos), p.meta.at(pos).seq, e.Src, e.Dst, e.T, e.Seq)
			}
			if x, want := w.EdgeAttr(0, pos), number(e, 0); math.Float64bits(x) != math.Float64bits(want) {
				t.Fatalf("%s: window edge %d amount %v; want %v", when, pos, x, want)
			}
			for col := 1; col < 3; col++ {
				if got := w.Strings().Value(uint32(w.EdgeAttr(col, pos))); got != e.Attrs[col].Str {
					t.Fatalf("%s: window edge %d attribute %d %q; want %q", when, pos, col, got, e.Attrs[col].Str)
				}
			}
		}
	}
	const n = 5000
	alerted, refused := 0, 0
	for i := 0; i < len(edges); i += n {
		j := min(i+n, len(edges))
		wm := batchWatermark(edges, j)
		var outs [2]*Output
		for k, p := range procs {
			out, err := p.Process(context.Background(), edges[i:j], wm)
			if err != nil {
				t.Fatal(err)
			}
			outs[k] = out
		}
		a, b := outs[0], outs[1]
		// The engine's workers find matches in any order.
		for _, out := range outs {
			slices.SortFunc(out.Alerts, func(x, y alerts.Alert) int { return strings.Compare(x.Query+x.MatchID, y.Query+y.MatchID) })
		}
		if !reflect.DeepEqual(a.Alerts, b.Alerts) {
			t.Fatalf("batch at %d: %d alerts by one goroutine, %d by workers, or their records differ", i, len(a.Alerts), len(b.Alerts))
		}
		if !reflect.DeepEqual(a.Refused, b.Refused) {
			t.Fatalf("batch at %d: %d edges refused by one goroutine, %d by workers, or the reasons differ", i, len(a.Refused), len(b.Refused))
		}
		if !maps.Equal(a.Counts, b.Counts) || a.Appended != b.Appended || a.SelfLoops != b.SelfLoops || a.Held != b.Held || a.Evicted != b.Evicted {
			t.Fatalf("batch at %d: counts %v, appended/self-loops/held/evicted %d/%d/%d/%d by one goroutine; %v, %d/%d/%d/%d by workers", i,
				a.Counts, a.Appended, a.SelfLoops, a.Held, a.Evicted, b.Counts, b.Appended, b.SelfLoops, b.Held, b.Evicted)
		}
		alerted += len(a.Alerts)
		refused += len(a.Refused)
		sameWindow(fmt.Sprint("batch at ", i))
		takenAlike(fmt.Sprint("batch at ", i), edges[i:j], a)
	}
	if alerted == 0 || refused == 0 {
		t.Fatalf("%d alerts, %d edges refused: the test tests too little", alerted, refused)
	}

	// Out of order: the edges before it go in, and both say why. The
	// batch's nodes are live ones, so that the node cap lets it in.
	last := edges[len(edges)-1].T
	w := procs[0].Window()
	var late []ingest.Edge
	for i := range 6000 {
		pos := w.End() - 1 - int64(i%500)
		late = append(late, ingest.Edge{Src: w.IDs().Name(w.Src(pos)), Dst: w.IDs().Name(w.Dst(pos)), T: last + 1 + int64(i/perTick),
			Attrs: []ingest.Value{{Kind: window.Number}, {Kind: window.String}, {Kind: window.String}}})
	}
	late[4500].T = last
	var errs [2]error
	var appended [2]int
	for k, p := range procs {
		out, err := p.Process(context.Background(), late, last+2000)
		errs[k], appended[k] = err, out.Appended
	}
	if errs[0] == nil || errs[1] == nil || errs[0].Error() != errs[1].Error() || appended[0] != appended[1] {
		t.Fatalf("out of order: %v, %d appended by one goroutine; %v, %d by workers", errs[0], appended[0], errs[1], appended[1])
	}
	sameWindow("out of order")
	t.Logf("%d alerts, %d edges refused; out of order: %v after %d edges", alerted, refused, errs[0], appended[0])
}

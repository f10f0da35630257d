package stream

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/motif/count3"
	"github.com/motifwatch/motifwatch/motif/cpu"
	"github.com/motifwatch/motifwatch/motif/oracle"
	"github.com/motifwatch/motifwatch/window"
)

// Count-mode queries of counted shapes (a star, a triangle, a two-node
// motif, a four-node star, two-edge and two-node four-edge motifs), mined per batch by count3.Engine over an
// evicting window: the sums over batches equal one batch run of the
// general engine, for two batch sizes (a batch below 1/8 of the window
// is handed to the general engine instead), each batch one counting run.
func TestStreamingCountedShapes(t *testing.T) {
	w := loadGraph(t)
	var qs []Query
	for _, name := range []string{"snap-1-1", "snap-1-3", "snap-6-2", "snap-3-5"} {
		q, err := motif.Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		q.Delta = motif.DurationSpan(time.Hour)
		qs = append(qs, Query{Query: q})
	}
	qs = append(qs, Query{Query: &motif.Query{Name: "star4", Delta: motif.DurationSpan(time.Hour),
		Nodes: []motif.Node{{Name: "c"}, {Name: "x"}, {Name: "y"}, {Name: "z"}},
		Edges: []motif.Edge{{From: 0, To: 1}, {From: 2, To: 0}, {From: 0, To: 3}}}})
	for _, q := range []*motif.Query{ // the Small family
		{Name: "reply", Nodes: []motif.Node{{Name: "a"}, {Name: "b"}}, Edges: []motif.Edge{{From: 0, To: 1}, {From: 1, To: 0}}},
		{Name: "relay", Nodes: []motif.Node{{Name: "x"}, {Name: "hub"}, {Name: "y"}}, Edges: []motif.Edge{{From: 0, To: 1}, {From: 1, To: 2}}},
		{Name: "round-trip-twice", Nodes: []motif.Node{{Name: "a"}, {Name: "b"}},
			Edges: []motif.Edge{{From: 0, To: 1}, {From: 1, To: 0}, {From: 0, To: 1}, {From: 1, To: 0}}},
	} {
		q.Delta = motif.DurationSpan(time.Hour)
		qs = append(qs, Query{Query: q})
	}
	_, want := batchTruth(t, w, qs)
	for _, n := range []int{997, 10000} {
		e := count3.NewEngine(cpu.New(2), count3.Options{Workers: 2})
		p, err := New(Options{Engine: e, Schema: *w.Schema()})
		if err != nil {
			t.Fatal(err)
		}
		if err := p.SetQueries(qs); err != nil {
			t.Fatal(err)
		}
		ids, counts := map[string]int{}, map[string]int64{}
		edges := edgesOf(w)
		streamRun(t, p, edges, n, ids, counts)
		// The queries' families (stars, pairs, triangles, small) are announced
		// by SetQueries, so a batch is at most one counting run.
		if batches := (len(edges) + n - 1) / n; e.Runs() > batches {
			t.Errorf("batches of %d: %d counting runs for %d batches", n, e.Runs(), batches)
		}
		for name, c := range want {
			if counts[name] != c {
				t.Errorf("batches of %d: %s counted %d, batch run %d", n, name, counts[name], c)
			}
		}
		if len(want) != len(qs) {
			t.Errorf("batch run counted %d queries, want %d: %v", len(want), len(qs), fmt.Sprint(want))
		}
	}
}

// The daemon's count-mode batches of a four-node path, four-cycle or paw go through
// count3.Engine's choice between counting and enumerating: on a dense
// stream a batch that covers the window is counted (its sampled
// enumeration projects more than a counting run), on a sparse one it is
// enumerated (no counting run). The sums over batches equal one batch run
// of the general engine.
func TestStreamingFourNodeShapesChooseCounting(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 28))
	graph := func(nodes, edges int, step int64) *window.Window {
		lines := make([]string, edges)
		for i := range lines {
			u := rng.IntN(nodes)
			v := (u + 1 + rng.IntN(nodes-1)) % nodes
			lines[i] = fmt.Sprintf("n%d n%d %d", u, v, int64(i)*step)
		}
		w, err := oracle.LineWindow(lines...)
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	for _, c := range []struct {
		name    string
		motif   string
		w       *window.Window
		delta   int64
		batches []int
		counted bool
	}{
		{"dense", "M1", graph(5, 1500, 1), 1000, []int{1500, 500}, true},
		{"sparse", "M1", graph(40, 1500, 10), 50, []int{1500, 500}, false},
		// A four-cycle (M4) and a paw (M3) follow the same choice (a
		// counting run reads the whole window: a batch of a third of it
		// is enumerated, as its enumeration projects less).
		{"dense", "M4", graph(6, 1500, 1), 400, []int{1500}, true},
		{"sparse", "M4", graph(12, 1500, 10), 100, []int{1500, 500}, false},
		{"dense", "M3", graph(6, 1500, 1), 400, []int{1500}, true},
		{"sparse", "M3", graph(12, 1500, 10), 100, []int{1500, 500}, false},
	} {
		q, err := motif.Builtin(c.motif)
		if err != nil {
			t.Fatal(err)
		}
		q.Delta = motif.TicksSpan(c.delta)
		qs := []Query{{Query: q}}
		_, want := batchTruth(t, c.w, qs)
		for _, n := range c.batches {
			e := count3.NewEngine(cpu.New(2), count3.Options{Workers: 2})
			p, err := New(Options{Engine: e, Schema: *c.w.Schema()})
			if err != nil {
				t.Fatal(err)
			}
			if err := p.SetQueries(qs); err != nil {
				t.Fatal(err)
			}
			ids, counts := map[string]int{}, map[string]int64{}
			streamRun(t, p, edgesOf(c.w), n, ids, counts)
			if counted := e.Runs() > 0; counted != c.counted {
				t.Errorf("%s %s, batches of %d: %d counting runs; want counted = %v", c.name, c.motif, n, e.Runs(), c.counted)
			}
			if counts[c.motif] != want[c.motif] || want[c.motif] == 0 {
				t.Errorf("%s %s, batches of %d: counted %d, batch run %d", c.name, c.motif, n, counts[c.motif], want[c.motif])
			}
		}
	}
}

package stream

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/motif/cpu"
	"github.com/motifwatch/motifwatch/window"
)

// TestMissingAttributeWarnedOnce: a query reading an edge attribute that
// no edge carries is said once (log, gauge) after MissingAttrAfter
// edges, not before; an edge that carries it takes the gauge back.
func TestMissingAttributeWarnedOnce(t *testing.T) {
	var log bytes.Buffer
	reg := prometheus.NewRegistry()
	schema := window.Schema{TimeUnit: time.Second, EdgeAttrs: []window.Attr{{Name: "amount", Kind: window.Number}}}
	p, err := New(Options{Engine: cpu.New(1), Schema: schema, Registerer: reg, Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	qs, err := motif.ParseQueries([]byte("name: big\ndelta: 10\nedges: [A -> B]\nwhere: amount > 1000\n"), "q.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := p.SetQueries([]Query{{Query: qs[0], Enumerate: true}}); err != nil {
		t.Fatal(err)
	}
	gauge := func() (float64, bool) {
		mfs, _ := reg.Gather()
		for _, mf := range mfs {
			if mf.GetName() == "motifwatch_query_attribute_missing" {
				for _, m := range mf.GetMetric() {
					return m.GetGauge().GetValue(), true
				}
			}
		}
		return 0, false
	}
	const warn = `msg="query needs an edge attribute that no record has carried" query=big attribute=amount`
	tt := int64(0)
	batch := func(n int, carry bool) {
		edges := make([]ingest.Edge, n)
		for i := range edges {
			tt++
			edges[i] = ingest.Edge{Src: fmt.Sprint("n", tt%7), Dst: fmt.Sprint("n", (tt+1)%7), T: tt, Attrs: []ingest.Value{{Kind: window.Number}}}
		}
		if carry {
			edges[n-1].Attrs[0] = ingest.Value{Num: 5, Kind: window.Number, Set: true}
		}
		if _, err := p.Process(context.Background(), edges, tt); err != nil {
			t.Fatal(err)
		}
	}
	batch(MissingAttrAfter-1, false)
	if strings.Contains(log.String(), warn) {
		t.Fatalf("warned after %d edges; want only after %d", MissingAttrAfter-1, MissingAttrAfter)
	}
	batch(1, false)
	batch(500, false)
	if n := strings.Count(log.String(), warn); n != 1 {
		t.Errorf("warned %d times after %d edges; want once:\n%s", n, MissingAttrAfter+500, log.String())
	}
	if v, ok := gauge(); !ok || v != 1 {
		t.Errorf("gauge = %v (present %v); want 1", v, ok)
	}
	batch(10, true)
	if _, ok := gauge(); ok {
		t.Error("the gauge stays after an edge carried the attribute")
	}
	if !strings.Contains(log.String(), `msg="a record carries the edge attribute a query needs" query=big attribute=amount`) {
		t.Errorf("no line says the attribute came:\n%s", log.String())
	}
}

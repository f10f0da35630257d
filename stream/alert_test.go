package stream

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/alerts"
	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/motif/cpu"
	"github.com/motifwatch/motifwatch/window"
)

// TestAlertRecordCarriesContext checks that a match record says what a
// person needs to act on it without looking anything up: the query's
// description, each edge's attributes and ISO time, each motif node's
// graph node and label, and first/last even for an edge at t = 0 (which
// omitempty used to drop).
func TestAlertRecordCarriesContext(t *testing.T) {
	schema := window.Schema{TimeUnit: time.Millisecond,
		EdgeAttrs: []window.Attr{{Name: "amount", Kind: window.Number}, {Name: "currency", Kind: window.String}},
		NodeAttrs: []window.Attr{{Name: window.LabelAttr, Kind: window.String}}}
	p, err := New(Options{Engine: cpu.New(1), Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	q := &motif.Query{Name: "relay", Description: "money relayed A→B→C", Delta: motif.TicksSpan(5000),
		Nodes: []motif.Node{{Name: "A"}, {Name: "B"}, {Name: "C"}},
		Edges: []motif.Edge{{From: 0, To: 1}, {From: 1, To: 2}}}
	if err := p.SetQueries([]Query{{Query: q, Enumerate: true}}); err != nil {
		t.Fatal(err)
	}
	num := func(v float64) ingest.Value { return ingest.Value{Num: v, Kind: window.Number, Set: true} }
	str := func(v string) ingest.Value { return ingest.Value{Str: v, Kind: window.String, Set: true} }
	edges := []ingest.Edge{
		{Src: "acct-1", Dst: "acct-2", T: 0, Seq: 1, HasSeq: true, SrcLabel: "account", DstLabel: "mule",
			Attrs: []ingest.Value{num(1500), str("EUR")}, Origin: ingest.Origin{Partition: 0, Offset: 7}},
		{Src: "acct-2", Dst: "acct-3", T: 1500, Seq: 2, HasSeq: true,
			Attrs: []ingest.Value{num(1490), {Kind: window.String}}, Origin: ingest.Origin{Partition: 1, Offset: 9}},
	}
	out, err := p.Process(context.Background(), edges, motif.Batch)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Alerts) != 1 {
		t.Fatalf("got %d alerts; want 1", len(out.Alerts))
	}
	a := out.Alerts[0]
	if a.Description != q.Description {
		t.Errorf("Description = %q; want %q", a.Description, q.Description)
	}
	wantNodes := map[string]alerts.Node{"A": {ID: "acct-1", Label: "account"}, "B": {ID: "acct-2", Label: "mule"}, "C": {ID: "acct-3"}}
	if !reflect.DeepEqual(a.Nodes, wantNodes) {
		t.Errorf("Nodes = %v; want %v", a.Nodes, wantNodes)
	}
	if got, want := a.Edges[0].Attrs, map[string]any{"amount": 1500.0, "currency": "EUR"}; !reflect.DeepEqual(got, want) {
		t.Errorf("edge 0 attrs = %v; want %v", got, want)
	}
	if got, want := a.Edges[1].Attrs, map[string]any{"amount": 1490.0}; !reflect.DeepEqual(got, want) {
		t.Errorf("edge 1 attrs = %v; want %v (a missing string left out)", got, want)
	}
	if a.Edges[0].Time != "1970-01-01T00:00:00Z" || a.Edges[1].Time != "1970-01-01T00:00:01.5Z" {
		t.Errorf("edge times = %q, %q; want 1970-01-01T00:00:00Z, 1970-01-01T00:00:01.5Z", a.Edges[0].Time, a.Edges[1].Time)
	}
	if a.FirstTime != a.Edges[0].Time || a.LastTime != a.Edges[1].Time {
		t.Errorf("first_time, last_time = %q, %q; want the edges' times", a.FirstTime, a.LastTime)
	}

	raw, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{"first": "0", "last": "1500", "description": `"money relayed A→B→C"`,
		"first_time": `"1970-01-01T00:00:00Z"`} {
		if got, ok := fields[key]; !ok || string(got) != want {
			t.Errorf("JSON %s = %s (present %v); want %s in %s", key, got, ok, want, raw)
		}
	}
	var back alerts.Alert
	if err := json.Unmarshal(raw, &back); err != nil || back.Last != 1500 || back.Nodes["B"].Label != "mule" {
		t.Errorf("round trip: %+v, %v", back, err)
	}
}

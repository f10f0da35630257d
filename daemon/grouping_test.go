package daemon

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/alerts"
	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/motif/cpu"
	"github.com/motifwatch/motifwatch/stream"
	"github.com/motifwatch/motifwatch/window"
)

func TestGrouping(t *testing.T) {
	q := &motif.Query{Name: "fan", Delta: motif.TicksSpan(600), Nodes: []motif.Node{{Name: "A"}, {Name: "X"}},
		Edges: []motif.Edge{{From: 0, To: 1}}, GroupBy: []int{1}}
	g := grouping(q, time.Second)
	if !slices.Equal(g.By, []string{"X"}) || g.Within != 10*time.Minute {
		t.Errorf("grouping(delta 600 ticks of 1s) = %+v; want By [X], Within 10m (the delta)", g)
	}
	w := motif.DurationSpan(time.Hour)
	q.GroupWithin = &w
	if g := grouping(q, time.Second); g.Within != time.Hour {
		t.Errorf("grouping(group_within 1h).Within = %v; want 1h", g.Within)
	}
	q.GroupBy = nil
	if g := grouping(q, time.Second); len(g.By) != 0 {
		t.Errorf("grouping(no group_by) = %+v; want none", g)
	}
}

// TestCommitWaitsForIncidents: the offsets of a batch whose match opened
// an incident are committed only once the incident record is written (a
// crash before would lose the incident, whose record comes only at its
// close); the batches before it commit at once.
func TestCommitWaitsForIncidents(t *testing.T) {
	clock := time.Date(2026, 1, 1, 0, 0, 10, 0, time.UTC)
	sink := &memSink{}
	router, err := alerts.NewRouter(alerts.RouterOptions{Interval: time.Hour}, sink, nil, func() time.Time { return clock })
	if err != nil {
		t.Fatal(err)
	}
	if err := router.SetQueries(map[string]alerts.QueryOptions{"fan": {Group: alerts.Grouping{By: []string{"T"}, Within: time.Minute}}}); err != nil {
		t.Fatal(err)
	}
	proc, err := stream.New(stream.Options{Engine: cpu.New(1), Schema: window.Schema{TimeUnit: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	src := &fakeSource{}
	p := barePipeline(proc, router, ingest.NewReorder(0, 0, nil), src)
	batch := func(next int64, ms ...alerts.Alert) {
		t.Helper()
		p.admit.pos.next[0] = next
		router.Add(ms)
		if err := router.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
		if err := commitNow(context.Background(), p); err != nil {
			t.Fatal(err)
		}
	}
	batch(5) // nothing grouped yet: commits
	match := alerts.Alert{Query: "fan", MatchID: "m1", Nodes: map[string]alerts.Node{"T": {ID: "acct-9"}}}
	batch(10, match)
	clock = clock.Add(30 * time.Second)
	batch(20)
	if len(src.commits) != 1 || src.commits[0][0] != 5 {
		t.Fatalf("commits %v while the incident is open; want only offset 5", src.commits)
	}
	clock = clock.Add(30 * time.Second) // the incident closes: this flush writes it
	batch(30)
	if sink.n != 2 || len(src.commits) != 2 || src.commits[1][0] != 30 {
		t.Fatalf("after the incident record (%d records written): commits %v; want offset 30 committed", sink.n, src.commits)
	}
}

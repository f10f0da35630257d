package alerts

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"
)

func groupedMatch(id, x string, first, last int64) Alert {
	return Alert{Query: "fan", Description: "fan-in", MatchID: id, First: first, Last: last,
		Nodes: map[string]Node{"A": {ID: "a-" + id}, "X": {ID: x}}}
}

// TestRouterIncidents checks that the matches of a grouped query that
// share the group node's graph node inside the group window become one
// incident record (count, ids, time span), written when it closes; that
// match records are still written; and that input offsets wait for the
// incident record (Settled).
func TestRouterIncidents(t *testing.T) {
	clk := &clock{t: t0}
	sink := &memSink{}
	r, err := NewRouter(RouterOptions{Interval: time.Hour}, sink, nil, clk.now)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.SetQueries(map[string]QueryOptions{"fan": {Group: Grouping{By: []string{"X"}, Within: 10 * time.Minute}}}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	flush := func(at time.Duration, ms ...Alert) {
		t.Helper()
		clk.t = t0.Add(at)
		r.Add(ms)
		if err := r.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	flush(0, groupedMatch("m1", "x1", 100, 160), groupedMatch("m2", "x2", 0, 50), groupedMatch("m3", "x1", 90, 170))
	if r.Settled() != 0 {
		t.Errorf("Settled() = %d with incidents open since flush 1; want 0", r.Settled())
	}
	if got, want := r.Due(), t0.Add(10*time.Minute); !got.Equal(want) {
		t.Errorf("Due() = %v; want the first incident's close %v", got, want)
	}
	flush(5*time.Minute, groupedMatch("m4", "x1", 200, 210))
	flush(10 * time.Minute) // both incidents close
	flush(11*time.Minute, groupedMatch("m5", "x1", 300, 300))

	var matchIDs []string
	var incidents []Alert
	for _, a := range sink.got {
		switch a.Kind {
		case KindMatch:
			matchIDs = append(matchIDs, a.MatchID)
		case KindIncident:
			incidents = append(incidents, a)
		default:
			t.Errorf("unexpected %s record", a.Kind)
		}
	}
	if want := []string{"m1", "m2", "m3", "m4", "m5"}; !slices.Equal(matchIDs, want) {
		t.Errorf("match records %v; want %v (grouping keeps them)", matchIDs, want)
	}
	if len(incidents) != 2 {
		t.Fatalf("%d incident records; want 2: %+v", len(incidents), incidents)
	}
	x1, x2 := incidents[0], incidents[1]
	if x1.Nodes["X"].ID != "x1" {
		x1, x2 = x2, x1
	}
	if x1.Count != 3 || !slices.Equal(x1.MatchIDs, []string{"m1", "m3", "m4"}) || x1.First != 90 || x1.Last != 210 ||
		!x1.From.Equal(t0) || !x1.To.Equal(t0.Add(10*time.Minute)) || x1.Description != "fan-in" || len(x1.Nodes) != 1 {
		t.Errorf("incident x1 = %+v; want count 3, ids m1 m3 m4, first 90, last 210, [t0, t0+10m), nodes X only", x1)
	}
	if x2.Count != 1 || !slices.Equal(x2.MatchIDs, []string{"m2"}) || x2.First != 0 || x2.Last != 50 {
		t.Errorf("incident x2 = %+v; want count 1, id m2, first 0, last 50", x2)
	}
	if x1.IncidentID == "" || x1.IncidentID == x2.IncidentID {
		t.Errorf("incident ids %q, %q; want distinct and set", x1.IncidentID, x2.IncidentID)
	}
	// Flush 3 wrote both incidents; flush 4 opened a new one (m5).
	if r.Settled() != 3 {
		t.Errorf("Settled() = %d; want 3 (flush 4's match is in an open incident)", r.Settled())
	}
	if err := r.Close(ctx); err != nil {
		t.Fatal(err)
	}
	last := sink.got[len(sink.got)-1]
	if last.Kind != KindIncident || last.Count != 1 || !last.To.Equal(t0.Add(11*time.Minute)) {
		t.Errorf("Close wrote %+v; want the open incident, cut short at close", last)
	}
	if r.Settled() != 5 {
		t.Errorf("Settled() after Close = %d; want 5", r.Settled())
	}
}

// TestRouterIncidentsRateLimited checks that matches a rate limit holds
// back still count in their incident: the incident is exact.
func TestRouterIncidentsRateLimited(t *testing.T) {
	clk := &clock{t: t0}
	sink := &memSink{}
	r, _ := NewRouter(RouterOptions{Interval: time.Hour}, sink, nil, clk.now)
	if err := r.SetQueries(map[string]QueryOptions{"fan": {RateLimit: 1, Burst: 1, Group: Grouping{By: []string{"X"}, Within: time.Minute}}}); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		r.Add([]Alert{groupedMatch(string(rune('a'+i)), "x1", 1, 2)})
	}
	if err := r.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, a := range sink.got {
		kinds = append(kinds, string(a.Kind))
		if a.Kind == KindIncident && a.Count != 5 {
			t.Errorf("incident count %d; want 5", a.Count)
		}
	}
	if got := strings.Join(kinds, " "); got != "match rate_limited incident" {
		t.Errorf("records %q; want match rate_limited incident", got)
	}
}

func TestGroupingValidate(t *testing.T) {
	for _, c := range []struct {
		o    QueryOptions
		want string
	}{
		{QueryOptions{Mode: ModeCount, Group: Grouping{By: []string{"B"}, Within: time.Minute}}, "count mode writes none"},
		{QueryOptions{Group: Grouping{By: []string{"B"}}}, "group window 0s: want > 0"},
	} {
		if err := c.o.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v.Validate() = %v; want %q", c.o, err, c.want)
		}
	}
}

// TestRouterIncidentsOnReload: removing a grouped query, or changing its
// grouping, writes its open incidents at once, cut short at that moment.
func TestRouterIncidentsOnReload(t *testing.T) {
	clk := &clock{t: t0}
	sink := &memSink{}
	r, _ := NewRouter(RouterOptions{Interval: time.Hour}, sink, nil, clk.now)
	grouped := QueryOptions{Group: Grouping{By: []string{"X"}, Within: 10 * time.Minute}}
	if err := r.SetQueries(map[string]QueryOptions{"fan": grouped}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	r.Add([]Alert{groupedMatch("m1", "x1", 1, 2)})
	if err := r.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	clk.t = t0.Add(time.Minute)
	regrouped := QueryOptions{Group: Grouping{By: []string{"A", "X"}, Within: 10 * time.Minute}}
	if err := r.SetQueries(map[string]QueryOptions{"fan": regrouped}); err != nil {
		t.Fatal(err)
	}
	r.Add([]Alert{groupedMatch("m2", "x1", 3, 4)})
	if err := r.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	clk.t = t0.Add(2 * time.Minute)
	if err := r.SetQueries(map[string]QueryOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := r.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range sink.got {
		if a.Kind == KindIncident {
			got = append(got, fmt.Sprintf("%s %v-%v %d", strings.Join(slices.Sorted(maps.Keys(a.Nodes)), ","), a.From.Sub(t0), a.To.Sub(t0), a.Count))
		}
	}
	want := []string{"X 0s-1m0s 1", "A,X 1m0s-2m0s 1"}
	if !slices.Equal(got, want) {
		t.Errorf("incidents %q; want %q", got, want)
	}
	if r.Settled() != 3 {
		t.Errorf("Settled() = %d; want 3 once no incident is open", r.Settled())
	}
}

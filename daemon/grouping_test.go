package daemon

import (
	"slices"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/motif"
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

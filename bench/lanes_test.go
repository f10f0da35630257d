package bench

import (
	"math"
	"testing"

	"github.com/motifwatch/motifwatch/daemon"
)

// TestEveryStageHasOneLane: a stage the daemon adds must be placed in a
// lane, or its share would be read as serial time.
func TestEveryStageHasOneLane(t *testing.T) {
	seen := map[string]int{}
	for _, l := range Lanes {
		for _, s := range l.Stages {
			seen[s]++
		}
	}
	for _, s := range daemon.StageNames {
		if seen[s] != 1 {
			t.Errorf("stage %s is in %d lanes; want 1", s, seen[s])
		}
		delete(seen, s)
	}
	for s := range seen {
		t.Errorf("lane stage %s is no stage of the daemon's", s)
	}
}

// TestLaneTimes: concurrent stages sum into busy time per wall time and
// per partition; serial ones into a lane's share of the wall time.
func TestLaneTimes(t *testing.T) {
	stages := []Stage{{"fetch", 3.2, 0}, {"decode", 0.74, 0}, {"reorder", 0.3, 0}, {"mine_wait", 0.2, 0},
		{"window", 0.1, 0}, {"device_sync", 0, 0}, {"mine", 0.5, 0}, {"alert_write", 0.1, 0}, {"commit", 0.05, 0}}
	got := LaneTimes(stages, 4, 1)
	want := []LaneTime{
		{Lane: "intake", Concurrent: true, Workers: 4, Seconds: 3.94, Share: 3.94, PerWorker: 0.985},
		{Lane: "pipeline", Seconds: 0.5, Share: 0.5},
		{Lane: "batch", Seconds: 0.75, Share: 0.75},
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Lane != w.Lane || g.Concurrent != w.Concurrent || g.Workers != w.Workers ||
			math.Abs(g.Seconds-w.Seconds) > 1e-9 || math.Abs(g.Share-w.Share) > 1e-9 || math.Abs(g.PerWorker-w.PerWorker) > 1e-9 {
			t.Errorf("lane %d = %+v; want %+v", i, g, w)
		}
	}
}

package bench

// A Lane is where stages run, and how their times add up. The stages of
// one serial lane run one at a time on one goroutine, so their sum is at
// most the wall time; a concurrent lane's stages run on every partition
// at once, so their time is busy time summed over the partitions, and
// its share of the wall time can pass 100% (fetch 394% with 8
// partitions: about four partitions fetching at any moment). The
// pipeline and batch lanes run side by side: their sums overlap.
type Lane struct {
	Name       string
	Concurrent bool
	Stages     []string
	Note       string
}

// Lanes are the daemon's stages by where they run (daemon/stages.go), in
// a record's order.
var Lanes = []Lane{
	{Name: "intake", Concurrent: true, Stages: []string{"fetch", "decode"},
		Note: "a goroutine per partition, all at once: busy time over wall time, summed over the partitions"},
	{Name: "pipeline", Stages: []string{"reorder", "mine_wait"},
		Note: "one goroutine, one stage at a time: takes a batch in while the batch lane works on the previous one"},
	{Name: "batch", Stages: []string{"window", "device_sync", "mine", "alert_write", "commit"},
		Note: "one goroutine, one stage at a time, alongside the pipeline lane"},
}

// LaneTime is a lane's time over a run: Seconds the sum of its stages',
// Share that over the wall time; for a concurrent lane, PerWorker is
// Share over its Workers (the partitions): how busy one was on average.
type LaneTime struct {
	Lane       string  `json:"lane"`
	Concurrent bool    `json:"concurrent,omitempty"`
	Workers    int     `json:"workers,omitempty"`
	Seconds    float64 `json:"seconds"`
	Share      float64 `json:"share"`
	PerWorker  float64 `json:"per_worker_share,omitempty"`
}

// LaneTimes sums stages by lane over a run of wall seconds on partitions
// partitions. Stages of no lane are left out.
func LaneTimes(stages []Stage, partitions int, wall float64) []LaneTime {
	out := make([]LaneTime, len(Lanes))
	for i, l := range Lanes {
		lt := LaneTime{Lane: l.Name, Concurrent: l.Concurrent}
		for _, s := range stages {
			if LaneOf(s.Stage) == l.Name {
				lt.Seconds += s.Seconds
			}
		}
		if wall > 0 {
			lt.Share = lt.Seconds / wall
		}
		if l.Concurrent && partitions > 0 {
			lt.Workers, lt.PerWorker = partitions, lt.Share/float64(partitions)
		}
		out[i] = lt
	}
	return out
}

// LaneOf names the lane a stage runs in ("" for none).
func LaneOf(stage string) string {
	for _, l := range Lanes {
		for _, s := range l.Stages {
			if s == stage {
				return l.Name
			}
		}
	}
	return ""
}

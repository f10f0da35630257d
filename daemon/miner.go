package daemon

import (
	"context"
	"runtime/pprof"
	"time"

	"github.com/motifwatch/motifwatch/alerts"
	"github.com/motifwatch/motifwatch/gpm"
	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/stream"
)

// miner is the stage that mines the batches the batcher releases: each
// on a goroutine of its own that appends it to the window, mines it
// (stream.Processor), writes its dead letters and alerts (alerts.Router)
// and hands its offsets to the committer (mine). Up to
// maxBatchesInFlight batches are released and not yet collected: each
// one's goroutine waits for the one before to finish (the chain of done
// channels), so batches are mined one at a time and in release order,
// and the window, the processor and the router have one user at a time
// and need no lock. The pipeline goroutine collects the batches in
// release order (oldest) and touches the processor and the router only
// while none is in flight (setQueries, snapshot, the final flush).
type miner struct {
	proc   *stream.Processor
	router *alerts.Router
	// queries is the query set in force (for the next generation's
	// pipeline).
	queries querySet
	// flight is the batches released and not yet collected, oldest first
	// (at most maxBatchesInFlight).
	flight []*minedBatch

	dead       *deadLetters
	commits    *committer
	alertRetry *retrier
	pm         *pipelineMetrics
}

// maxBatchesInFlight is how many released batches may wait for their
// collection: one being mined, the next released behind it, so that the
// pipeline goroutine takes in (and the partitions fetch) the one after
// while the miner is busy, instead of both stages handing off and idling
// in turn. Their edges count towards the reorder buffer's caps
// (batcher.overCap).
const maxBatchesInFlight = 2

// minedBatch is one batch between its release and its collection.
type minedBatch struct {
	// Set at the release, on the pipeline goroutine.
	// edges lie in the reorder buffer until collect recycles them
	// (ingest.Reorder.AppendReleaseRefs): read, never written, meanwhile.
	edges []*ingest.Edge
	wm    int64
	// taken is the committable offsets as of the release (positions.taken);
	// mine lowers them to the held matches' once mined, within floor
	// and clamps (the pipeline's as of the release: miner.settled).
	taken  map[int]int64
	floor  map[int]int64
	clamps map[int]commitClamp
	// dead is the dead letters queued up to the release: written before
	// the batch's alerts and offsets.
	dead deadQueue
	// records were taken in since the previous batch, the first fetched
	// at firstFetch; start is when the release began.
	records           int
	firstFetch, start time.Time
	// stage is the batch's time per stage: taking its records in and
	// releasing it (pipeline goroutine), then mining it.
	stage [numStages]time.Duration
	// buffered is the reorder buffer's edges after the release;
	// inFlightBytes the released edges' bytes (the caps count them until
	// collected).
	buffered      int
	inFlightBytes int64
	releasedEarly int64

	// Set by mine; read once done is closed. skipped: the batch before it
	// failed, so it was not mined (the pipeline returns that batch's
	// error).
	out     *stream.Output
	skipped bool
	// stats holds what mining added: appended, self-loops and the dead
	// letters written (Alerts and RateLimited aside: alerted).
	stats                pipelineStats
	flushed              bool
	alerted, rateLimited int64
	windowEdges          int
	end                  time.Time
	err                  error
	done                 chan struct{}
}

// empty reports whether the batch had nothing to mine (no record taken
// in, no edge released): a timer's batch that only flushes and commits.
func (j *minedBatch) empty() bool { return len(j.edges) == 0 && j.records == 0 }

// start starts mining j on its own goroutine, after the batches in
// flight.
func (m *miner) start(ctx context.Context, j *minedBatch) {
	var prev *minedBatch
	if n := len(m.flight); n > 0 {
		prev = m.flight[n-1]
	}
	m.flight = append(m.flight, j)
	j.done = make(chan struct{})
	go func() {
		defer close(j.done)
		if prev != nil {
			// One batch at a time, in release order.
			<-prev.done
			if prev.err != nil || prev.skipped {
				j.skipped = true
				return
			}
		}
		pprof.Do(ctx, pprof.Labels(profileLabel, "mine"), func(ctx context.Context) { j.err = m.mine(ctx, j) })
	}()
}

// mine runs on the batch's own goroutine: it appends the batch to the
// window and mines it, writes its dead letters and alerts, and commits
// what is safe. It touches the processor, the router, the dead-letter
// writer, the committer and j, nothing the pipeline goroutine uses
// meanwhile.
func (m *miner) mine(ctx context.Context, j *minedBatch) error {
	if !j.empty() {
		out, err := m.proc.ProcessRefs(ctx, j.edges, j.wm)
		if err != nil {
			return err
		}
		j.out = out
		j.stage[stageWindow] += out.Stages.Window
		j.stage[stageDeviceSync] += out.Stages.DeviceSync
		j.stage[stageMine] += out.Stages.Mine
		if err := m.dead.refused(ctx, out.Refused, &j.dead, &j.stats); err != nil {
			return err
		}
		// The processor copied what it keeps: the slice is reused (see
		// batcher.earlyEdges), and the edges' room in the reorder buffer
		// (collect).
		clear(j.edges)
		j.stats.Appended += int64(out.Appended)
		j.stats.SelfLoops += int64(out.SelfLoops)
		m.pm.countRecords("appended", out.Appended)
		m.pm.countRecords("self_loop", out.SelfLoops)
		m.router.Add(out.Alerts)
		for q, n := range out.Counts {
			m.router.AddCount(q, n)
		}
		j.windowEdges = m.proc.Window().Len()
	}
	// Dead letters before alerts and commit: the offsets committed below
	// cover the dead-lettered records. Both count as alert_write.
	t := time.Now()
	if err := m.dead.flush(ctx, &j.dead, &j.stats); err != nil {
		return err
	}
	if err := m.flush(ctx); err != nil {
		return err
	}
	t2 := time.Now()
	j.stage[stageAlertWrite] += t2.Sub(t)
	j.alerted, j.rateLimited = m.router.Alerted()
	j.flushed = true
	if err := m.commits.commit(ctx, m.settled(j.taken, j.floor, j.clamps), m.router.Settled()); err != nil {
		return err
	}
	j.end = time.Now()
	j.stage[stageCommit] += j.end.Sub(t2)
	return nil
}

// flush writes the alerts, retrying until they are acknowledged or ctx
// ends: offsets must not move past unacknowledged alerts. (The Kafka sink
// retries transient failures inside Flush and reports each to alertRetry
// through its OnRetry hook; what comes back here is anything else.)
func (m *miner) flush(ctx context.Context) error {
	return m.alertRetry.do(ctx, 0, m.router.Flush)
}

// settled lowers the offsets positions.taken returned (modifying them)
// to the oldest last edge of a held match, after the batch's Process,
// and to the clamps of partitions reset (partitions.go); floor is the
// history start per partition (historyBefore as of the batch's release).
func (m *miner) settled(out, floor map[int]int64, clamps map[int]commitClamp) map[int]int64 {
	for part, off := range m.proc.HeldMinOffsets() {
		if cur, ok := out[part]; ok && off < cur {
			out[part] = off
		}
	}
	// History edges still buffered are below the commit this pipeline
	// started from: never move it back over them.
	for part, start := range floor {
		if cur, ok := out[part]; ok && cur < start {
			out[part] = start
		}
	}
	for part, c := range clamps {
		if cur, ok := out[part]; ok && cur > c.offset {
			out[part] = c.offset
		}
	}
	return out
}

// oldestDone is closed once the oldest batch in flight is done (nil:
// none is in flight).
func (m *miner) oldestDone() <-chan struct{} {
	if len(m.flight) == 0 {
		return nil
	}
	return m.flight[0].done
}

// oldest waits for the oldest batch in flight and hands it over for
// collection.
func (m *miner) oldest() *minedBatch {
	j := m.flight[0]
	<-j.done
	n := copy(m.flight, m.flight[1:])
	m.flight[n] = nil
	m.flight = m.flight[:n]
	return j
}

// inFlight is the number of batches in flight; full reports whether
// another must wait for the oldest.
func (m *miner) inFlight() int { return len(m.flight) }
func (m *miner) full() bool    { return len(m.flight) >= maxBatchesInFlight }

// flightSize returns the edges of the batches in flight, what they
// weighed in the reorder buffer, and how many there are.
func (m *miner) flightSize() (edges int, bytes int64, batches int) {
	for _, j := range m.flight {
		edges += len(j.edges)
		bytes += j.inFlightBytes
	}
	return edges, bytes, len(m.flight)
}

// noteCap counts a cap acting: a counter, safe beside the batch being
// mined.
func (m *miner) noteCap(cap string) { m.proc.NoteCap(cap) }

// setQueries applies a new query set; only while no batch is in flight.
func (m *miner) setQueries(qs querySet) error {
	if err := m.proc.SetQueries(qs.stream); err != nil {
		return err
	}
	if err := m.router.SetQueries(qs.alerts); err != nil {
		return err
	}
	m.queries = querySet{stream: qs.stream, alerts: qs.alerts}
	return nil
}

// snapshot answers a gpm snapshot request (gpm.go); only while no batch
// is in flight.
func (m *miner) snapshot(reply chan<- *gpm.Graph) { reply <- gpm.FromWindow(m.proc.Window()) }

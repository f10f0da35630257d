package daemon

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/motifwatch/motifwatch/config"
	"github.com/motifwatch/motifwatch/internal/testenv"
	"github.com/motifwatch/motifwatch/kafka"
	"github.com/motifwatch/motifwatch/kafka/kafkatest"
	"github.com/motifwatch/motifwatch/stream"
)

// fakeReader is a pipeline's source as the topic watch sees it.
type fakeReader struct{ read, failing []int }

func (r fakeReader) Partitions() []int { return r.read }
func (r fakeReader) Failing() []int    { return r.failing }

// testTopicWatch returns a topic watch over an embedded broker whose edge
// topic has partitions partitions, with its health, metrics and log.
func testTopicWatch(t *testing.T, partitions int) (*topicWatch, *health, *pipelineMetrics, *testenv.SyncBuffer) {
	t.Helper()
	brokers := kafkatest.StartBroker(t, kafka.TopicSpec{Name: "edges", Partitions: partitions})
	admin, err := kafka.NewWatchAdmin(brokers, nil, 50*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(admin.Close)
	reg := prometheus.NewRegistry()
	pm, err := newPipelineMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	h := newHealth()
	h.setRunning(true)
	logs := &testenv.SyncBuffer{}
	log := slog.New(slog.NewTextHandler(logs, nil))
	l, err := newLookout(h, log, reg, 0.5, 0)
	if err != nil {
		t.Fatal(err)
	}
	return newTopicWatch("edges", time.Second, admin, log, pm, l), h, pm, logs
}

// TestTopicWatchUnreadPartitions: a partition of the topic that the
// running pipeline's source does not fetch is counted at once, and puts
// partition_unread in force once it stays unread over two looks (not
// during the moment a rebalance takes), when the member is also made to
// rejoin its group (its reader is made again); a source that fetches
// nothing stands by and counts nothing; reading every partition lifts
// it.
func TestTopicWatchUnreadPartitions(t *testing.T) {
	w, h, pm, logs := testTopicWatch(t, 4)
	rejoins := 0
	w.setGroup("no-such-group", func() { rejoins++ })
	ctx := context.Background()
	w.refresh(ctx)
	if got := gaugeValue(pm.topicPartitions); got != 4 {
		t.Fatalf("motifwatch_edge_topic_partitions = %v; want 4", got)
	}
	w.setReader(fakeReader{read: []int{0, 1, 2}})
	w.refresh(ctx)
	if got, st := gaugeValue(pm.unreadPartitions), state(h); got != 1 || st != stateReady || rejoins != 0 {
		t.Fatalf("after one look: unread %v, state %q, %d rejoins; want 1, still ready and none (a rebalance may be under way)", got, st, rejoins)
	}
	w.refresh(ctx)
	st, why := h.state()
	if st != stateDegraded || !strings.Contains(why, "partition_unread: partitions [3] of topic edges (of 4) have no reader") {
		t.Fatalf("after two looks: state %q %q; want degraded, partition_unread naming partition 3", st, why)
	}
	if rejoins != 1 {
		t.Errorf("%d rejoins after two looks with partition 3 not fetched; want 1", rejoins)
	}
	if !strings.Contains(logs.String(), `msg="degraded: partition_unread"`) {
		t.Errorf("no log line for the unread partition:\n%s", logs)
	}
	w.setReader(fakeReader{}) // standing by
	w.refresh(ctx)
	if got, st := gaugeValue(pm.unreadPartitions), state(h); got != 0 || st != stateReady {
		t.Errorf("a source standing by: unread %v, state %q; want 0, ready", got, st)
	}
	w.setReader(fakeReader{read: []int{0, 1, 2}})
	w.refresh(ctx)
	w.refresh(ctx)
	w.setReader(fakeReader{read: []int{0, 1, 2, 3}})
	w.refresh(ctx)
	if got, st := gaugeValue(pm.unreadPartitions), state(h); got != 0 || st != stateReady {
		t.Errorf("every partition read: unread %v, state %q; want 0, ready", got, st)
	}
}

// TestTopicWatchFetchFailing: a failed fetch is counted by partition and
// in the gauge at once; a partition still failing at a look puts
// partition_fetch_failing in force with the error; recovery lifts it.
func TestTopicWatchFetchFailing(t *testing.T) {
	w, h, pm, _ := testTopicWatch(t, 4)
	ctx := context.Background()
	w.setReader(fakeReader{read: []int{0, 1, 2, 3}, failing: []int{2}})
	w.fetchFailed(2, errors.New("kafka fetcher: edges partition 2 at offset 7: [56] Kafka Storage Error"))
	if got := gaugeValue(pm.failingPartitions); got != 1 {
		t.Fatalf("motifwatch_edge_partitions_fetch_failing = %v after a failed fetch; want 1", got)
	}
	if got := counterValue(pm.fetchErrors.WithLabelValues("2")); got != 1 {
		t.Fatalf(`motifwatch_kafka_fetch_errors_total{partition="2"} = %v; want 1`, got)
	}
	w.refresh(ctx)
	st, why := h.state()
	if st != stateDegraded || !strings.Contains(why, "partition_fetch_failing: fetches of partitions [2] of topic edges fail") || !strings.Contains(why, "Kafka Storage Error") {
		t.Fatalf("state %q %q; want degraded, partition_fetch_failing with partition 2 and the error", st, why)
	}
	w.fetchRecovered(2)
	if got, st := gaugeValue(pm.failingPartitions), state(h); got != 0 || st != stateReady {
		t.Errorf("after the recovery: failing %v, state %q; want 0, ready", got, st)
	}
}

func state(h *health) string {
	s, _ := h.state()
	return s
}

// TestCommitKnownDropsGonePartitions (committer.known): a commit the coordinator refuses
// for partitions it does not know is committed again at once without
// those the topic's metadata shows gone (an ERROR line, counted, the
// pipeline told to forget them); a partition the topic still has is no
// reason to drop anything (the refusal is returned: retried).
func TestCommitKnownDropsGonePartitions(t *testing.T) {
	w, _, pm, logs := testTopicWatch(t, 2)
	cfg := config.DefaultConfig()
	c := &committer{topic: w, log: w.log, pm: pm, edgeTopic: cfg.Kafka.EdgeTopic}
	unknown := func(parts ...int) error {
		e := &kafka.CommitError{Group: "g", Topic: "edges", Partitions: map[int]error{}}
		for _, part := range parts {
			e.Partitions[part] = kafkatest.ErrUnknownTopicOrPartition
		}
		return e
	}
	var calls []map[int]int64
	commit := func(refuse error) func(context.Context, map[int]int64) error {
		return func(_ context.Context, offsets map[int]int64) error {
			calls = append(calls, maps.Clone(offsets))
			if len(calls) == 1 {
				return refuse
			}
			return nil
		}
	}
	ctx := context.Background()
	if err := c.known(ctx, map[int]int64{0: 5, 1: 6, 2: 7, 3: 8}, commit(unknown(2, 3))); err != nil {
		t.Fatalf("known: %v; want the gone partitions dropped and the rest committed", err)
	}
	if len(calls) != 2 || !maps.Equal(calls[1], map[int]int64{0: 5, 1: 6}) {
		t.Fatalf("commits %v; want the refused one, then partitions 0 and 1 alone", calls)
	}
	if !strings.Contains(logs.String(), `level=ERROR msg="kafka: committing offsets: partitions of the edge topic are gone; their offsets are dropped, not committed" topic=edges partitions="[2 3]" dropped_offsets="map[2:7 3:8]"`) {
		t.Errorf("no ERROR line naming the partitions dropped:\n%s", logs)
	}
	if got := counterValue(pm.commitsDropped.WithLabelValues("3")); got != 1 {
		t.Errorf(`motifwatch_kafka_commits_dropped_total{partition="3"} = %v; want 1`, got)
	}
	if got := c.gone.take(); !slices.Equal(got, []int{2, 3}) {
		t.Errorf("partitions for the pipeline to forget: %v; want [2 3]", got)
	}

	calls = nil
	refused := unknown(1)
	if err := c.known(ctx, map[int]int64{0: 5, 1: 6}, commit(refused)); err != refused {
		t.Errorf("known with partition 1 refused but in the topic: %v; want the refusal back (retried)", err)
	}
	if len(calls) != 1 {
		t.Errorf("commits %v; want the refused one alone", calls)
	}
}

// TestResetPartitionHoldsCommits: a partition whose offset was reset
// (its topic created again) still has edges of its old log in the
// reorder buffer, ahead of the new log's in the partition's order: the
// commits of the new log's records must not pass those still buffered,
// which the buffer's lowest offset (its earliest-added edge's, an old
// one) does not show. They are held at the reset position until the old
// edges are released; the reset is logged at ERROR and counted.
func TestResetPartitionHoldsCommits(t *testing.T) {
	clock := time.Unix(1_800_000_000, 0)
	p, _, logs := capPipeline(t, stream.Options{}, time.Hour, clock)
	p.parts.cfg = config.DefaultConfig()
	p.admit.pos.readFrom, p.admit.pos.resetAtStart, p.partitions.lost = map[int]int64{0: 0}, map[int]int64{}, map[int]int64{}
	ctx := context.Background()
	take := func(off, ts int64) {
		m := record(off, "a", "b", ts)
		m.HighWaterMark = off + 1
		if err := takeRecord(ctx, p, m); err != nil {
			t.Fatal(err)
		}
	}
	for i := range int64(5) {
		take(i, 100+i)
	}
	if err := p.batch(ctx); err != nil {
		t.Fatal(err)
	}
	if got := p.committable()[0]; got != 4 {
		t.Fatalf("committable %d before the reset; want 4 (the edge at t=104 is buffered)", got)
	}
	// The topic is created again: three records, read from its start.
	pos := &kafka.Position{Offset: 0, LogStart: 0, LogEnd: 3, Reset: &kafka.OffsetReset{Asked: 5, Reason: kafka.ResetPastEnd, Policy: kafka.ResetEarliest}}
	if err := p.partitions.takePosition(ctx, 0, pos); err != nil {
		t.Fatal(err)
	}
	for i := range int64(3) {
		take(i, 104+i)
	}
	if got := p.committable()[0]; got != 0 {
		t.Fatalf("committable %d with the new log's offsets 0-2 buffered behind the old log's 4; want 0", got)
	}
	if err := p.batch(ctx); err != nil {
		t.Fatal(err)
	}
	// Released up to t=105 (106 is its partition's newest): the old edge,
	// and the new log's offsets 0 and 1; offset 2 is buffered.
	if got := p.committable()[0]; got != 2 {
		t.Errorf("committable %d once the old log's edge was released; want 2", got)
	}
	if !strings.Contains(logs.String(), `level=ERROR msg="kafka: offset out of range: reading resumes as kafka.offset_reset says; records between are not read" topic=edges partition=0 offset=5 log_start=0 log_end=3 reading_from=0 offset_reset=earliest reason=past_end`) {
		t.Errorf("no ERROR line for the reset:\n%s", logs)
	}
	if got := counterValue(p.parts.pm.offsetResets.WithLabelValues("0", kafka.ResetPastEnd)); got != 1 {
		t.Errorf(`motifwatch_offset_resets_total{partition="0",reason="past_end"} = %v; want 1`, got)
	}
}

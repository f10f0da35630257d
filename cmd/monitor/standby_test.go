package main

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/daemon"
	"github.com/motifwatch/motifwatch/internal/kafka/kafkatest"
)

// TestStandbyTakeover: two instances without scale-out share a group. The
// first holds every partition and the second stands by, reading and
// committing nothing. When the first leaves, the second is handed the
// partitions past the window it built at start: it exits with
// ErrTookOver, committing nothing, and its restart rebuilds the window
// from the first one's commit. The alerts of all three equal `monitor
// mine`'s, match for match, with no duplicate.
func TestStandbyTakeover(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three daemons over Kafka")
	}
	w, graph := synthGraph(t, 12000)
	queries := writeQueries(t, e2eQueries)
	mine := mineExpectation(t, graph, queries)
	parts := thirds(w)
	brokers := kafkatest.StartBroker(t)
	cfg := singleConfig(brokers, "standby", queries)

	active := startInstance(t, cfg)
	produce(t, brokers, slices.Values(parts[0]))
	waitConsumed(t, active.info.MetricsAddr, int64(len(parts[0])))
	standby := startInstance(t, cfg)
	time.Sleep(4 * time.Second) // the standby's join: a rebalance the active one survives as leader
	produce(t, brokers, slices.Values(parts[1]))
	waitConsumed(t, active.info.MetricsAddr, int64(len(parts[0])+len(parts[1])))
	if n := standby.metric(t, "motifwatch_ingest_records_consumed_total"); n != 0 {
		t.Fatalf("the standby consumed %v records while the active instance held the group", n)
	}

	if err := active.stop(); err != nil {
		t.Fatalf("active instance stopped with %v", err)
	}
	// The standby is handed the partitions at the active one's commit,
	// past its window: the first record there ends it.
	produce(t, brokers, slices.Values(parts[2]))
	select {
	case <-standby.Done():
	case <-time.After(60 * time.Second):
		t.Fatalf("the standby was not handed the partitions, or mined on from its stale window, for 60s: consumed %v",
			standby.metric(t, "motifwatch_ingest_records_consumed_total"))
	}
	if err := standby.Err(); !errors.Is(err, daemon.ErrTookOver) {
		t.Fatalf("the standby ended with %v; want ErrTookOver", err)
	}
	t.Logf("standby: %v", standby.Err())

	restarted := startInstance(t, cfg)
	o := waitFor(t, brokers, mine)
	check(t, "active, then the standby's takeover and restart", mine, o)
	if err := restarted.stop(); err != nil {
		t.Errorf("restarted instance stopped with %v", err)
	}
}

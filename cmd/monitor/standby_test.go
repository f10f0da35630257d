package main

import (
	"slices"
	"testing"
	"time"
)

// TestStandbyTakeover: two instances without scale-out share a group. The
// first holds every partition and the second stands by, reading and
// committing nothing. When the first leaves, the second is handed the
// partitions past the window it built at start: it rebuilds the window
// from the history before the first one's commit (a fresh pipeline and
// consumer) and carries on. The alerts of both equal `monitor mine`'s,
// match for match, with no duplicate.
func TestStandbyTakeover(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two daemons over Kafka")
	}
	w, graph := synthGraph(t, 12000)
	queries := writeQueries(t, e2eQueries)
	mine := mineExpectation(t, graph, queries)
	parts := thirds(w)
	brokers := startBroker(t)
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
	// past its window: the first record there makes it rebuild.
	produce(t, brokers, slices.Values(parts[2]))
	o := waitFor(t, brokers, mine)
	check(t, "active, then the standby after its takeover", mine, o)
	if n := standby.metric(t, "motifwatch_group_takeovers_total"); n != 1 {
		t.Errorf("the standby counted %v takeovers; want 1", n)
	}
	select {
	case <-standby.finished:
		t.Fatalf("the standby ended after the takeover: %v", *standby.runErr)
	default:
	}
	if err := standby.stop(); err != nil {
		t.Errorf("standby stopped with %v", err)
	}
}

package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"

	"github.com/motifwatch/motifwatch/daemon"
	"github.com/motifwatch/motifwatch/internal/testenv"
	"github.com/motifwatch/motifwatch/kafka/kafkatest"
)

// TestStandbyTakeover: two instances without scale-out share a group. The
// first holds every partition and the second stands by, reading and
// committing nothing. When the first leaves, the second is handed the
// partitions past the window it built at start: it exits with
// ErrTookOver, committing nothing, and its restart rebuilds the window
// from the first one's commit. The alerts of all three equal `monitor
// mine`'s, match for match, with no duplicate.
//
// No partition ever goes idle here (singleConfig), so no edge can be
// late whatever the machine's load: `monitor mine` sees no late edges,
// and a partition idle while the producer or a fetch lags (seen on a
// loaded machine: 488 late edges, 159 alerts missing and 5 extra) would
// make the daemon's alerts differ for reasons this test is not about.
func TestStandbyTakeover(t *testing.T) {
	t.Parallel()
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
	waitTaken(t, active.info.MetricsAddr, int64(len(parts[0])))
	// The standby rebuilds its window from history before the active
	// one's commit in every partition.
	waitCommittedEverywhere(t, brokers, "standby", 3)
	standby := startInstance(t, cfg)
	// The standby's join is a rebalance the active one survives as
	// leader: the group is stable with both before the next records.
	waitGroupStable(t, brokers, "standby", 2)
	produce(t, brokers, slices.Values(parts[1]))
	waitTaken(t, active.info.MetricsAddr, int64(len(parts[0])+len(parts[1])))
	if n := standby.metric(t, "motifwatch_ingest_records_consumed_total"); n != 0 {
		t.Fatalf("the standby consumed %v records while the active instance held the group", n)
	}

	if err := active.stop(); err != nil {
		t.Fatalf("active instance stopped with %v", err)
	}
	// The standby is handed the partitions at the active one's commit,
	// past its window: the first record there ends it. (The limit only
	// guards against a hang.)
	produce(t, brokers, slices.Values(parts[2]))
	produceSentinels(t, brokers, w)
	select {
	case <-standby.Done():
	case <-time.After(5 * time.Minute):
		t.Fatalf("the standby was not handed the partitions, or mined on from its stale window, for 5 minutes: consumed %v",
			standby.metric(t, "motifwatch_ingest_records_consumed_total"))
	}
	if err := standby.Err(); !errors.Is(err, daemon.ErrTookOver) {
		t.Fatalf("the standby ended with %v; want ErrTookOver", err)
	}
	t.Logf("standby: %v", standby.Err())

	restarted := startInstance(t, cfg)
	check(t, "active, then the standby's takeover and restart", mine, stoppedAlerts(t, brokers, mine, restarted.runningDaemon))
}

// waitTaken waits until the daemon has taken in n records (they may still
// be buffered: nothing here waits for idleness to release them).
func waitTaken(t *testing.T, addr string, n int64) {
	t.Helper()
	testenv.WaitMetrics(t, addr, 5*time.Minute, 50*time.Millisecond, fmt.Sprintf("daemon took in %d records", n), func(m map[string]float64) bool {
		return m["motifwatch_ingest_records_consumed_total"] >= float64(n)
	})
}

// waitGroupStable waits until the consumer group has members members and
// has finished rebalancing (state Stable): every member has synced its
// assignment.
func waitGroupStable(t *testing.T, brokers []string, group string, members int) {
	t.Helper()
	tr := &kafkago.Transport{} // not kafka-go's default: that one is never closed
	defer tr.CloseIdleConnections()
	client := &kafkago.Client{Addr: kafkago.TCP(brokers...), Transport: tr}
	var last string
	ok := testenv.Poll(5*time.Minute, 50*time.Millisecond, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		resp, err := client.DescribeGroups(ctx, &kafkago.DescribeGroupsRequest{GroupIDs: []string{group}})
		if err != nil {
			last = err.Error()
			return false
		}
		if len(resp.Groups) != 1 {
			last = fmt.Sprintf("%d groups described", len(resp.Groups))
			return false
		}
		g := resp.Groups[0]
		last = fmt.Sprintf("state %q, %d members (error %v)", g.GroupState, len(g.Members), g.Error)
		return g.Error == nil && g.GroupState == "Stable" && len(g.Members) == members
	})
	if !ok {
		t.Fatalf("consumer group %q did not become stable with %d members within 5 minutes: %s", group, members, last)
	}
}

// waitCommittedEverywhere waits until group has committed an offset past
// the start of each of the topic's partitions partitions.
func waitCommittedEverywhere(t *testing.T, brokers []string, group string, partitions int) {
	t.Helper()
	var last map[int]int64
	ok := testenv.Poll(5*time.Minute, 50*time.Millisecond, func() bool {
		c, err := tryCommitted(brokers, group)
		if err != nil {
			return false
		}
		last = c
		for p := range partitions {
			if c[p] <= 0 {
				return false
			}
		}
		return true
	})
	if !ok {
		t.Fatalf("group %q did not commit past the start of all %d partitions within 5 minutes: committed %v", group, partitions, last)
	}
}

package main

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/motifwatch/motifwatch/daemon"
	"github.com/motifwatch/motifwatch/internal/kafka"
	"github.com/motifwatch/motifwatch/internal/kafka/kafkatest"
	"github.com/motifwatch/motifwatch/internal/testenv"
	"github.com/motifwatch/motifwatch/window"
)

// Operators change the edge topic under a running daemon: they add
// partitions (a routine scaling step), or delete and create it again (a
// restored or re-provisioned cluster). The daemon must keep seeing every
// record, and say what happened.

// startLoggedInstance is startInstance with the daemon's log kept in logs.
func startLoggedInstance(t *testing.T, yaml string, logs io.Writer) *instance {
	t.Helper()
	reg := prometheus.NewRegistry()
	return &instance{runningDaemon: runDaemon(t, yaml, daemon.Options{Registry: reg, Logger: newTestLogger(logs)}), reg: reg}
}

// withMetadataRefresh sets kafka.metadata_refresh in an e2e config.
func withMetadataRefresh(cfg, d string) string {
	if !strings.Contains(cfg, "kafka:\n") {
		panic("e2e config: no kafka section")
	}
	return strings.Replace(cfg, "kafka:\n", "kafka:\n  metadata_refresh: "+d+"\n", 1)
}

// sentinelsFor returns one edge a day after the graph's last for each of
// n partitions, between nodes of their own, numbered so that
// inPartition(n) sends sentinel i to partition i: with no partition
// idle, they move the watermark past every anti-edge interval.
func sentinelsFor(w *window.Window, n int) []kafka.Record {
	base := int64((w.Len() + n - 1) / n * n)
	var recs []kafka.Record
	for i := range n {
		recs = append(recs, kafka.Record{Src: fmt.Sprintf("sentinel-%d-a", i), Dst: fmt.Sprintf("sentinel-%d-b", i),
			T: w.LastT() + 86400, Seq: base + int64(i)})
	}
	return recs
}

// inPartition returns the partition of a record when records are spread
// by seq over n partitions.
func inPartition(n int) func(kafka.Record) int {
	return func(r kafka.Record) int { return int(r.Seq % int64(n)) }
}

// consumedFrom sums an instance's records taken in from partitions
// [from, to).
func (in *instance) consumedFrom(t *testing.T, from, to int) float64 {
	var n float64
	for p := from; p < to; p++ {
		n += in.metric(t, "motifwatch_ingest_records_consumed_total", "partition", strconv.Itoa(p))
	}
	return n
}

// labelled reports whether an instance has a sample of name with the
// label set to value.
func (in *instance) labelled(t *testing.T, name, label, value string) bool {
	t.Helper()
	mfs, err := in.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, lp := range m.GetLabel() {
				if lp.GetName() == label && lp.GetValue() == value {
					return true
				}
			}
		}
	}
	return false
}

// TestEdgeTopicGrows grows the edge topic from 4 to 8 partitions under a
// running daemon, alone and scaled out over two instances. Records go to
// the new partitions right after the growth (before the daemon can have
// noticed it) and later, and to the old ones; matches span partitions
// old and new. Within one kafka.metadata_refresh the daemon reads the new
// partitions from their earliest offset, logs the growth, and shows them
// in its lag metric and no partition unread; its alerts equal `monitor
// mine`'s on the whole graph.
func TestEdgeTopicGrows(t *testing.T) {
	if testing.Short() {
		t.Skip("runs daemons over Kafka while the topic grows")
	}
	w, graph := synthGraph(t, 6000)
	queries := writeQueries(t, e2eQueries)
	mine := mineExpectation(t, graph, queries)
	if len(mine.ids) < 20 || mine.counts["path-count"] == 0 {
		t.Fatalf("the synthetic stream has too little to compare: %d ids, counts %v", len(mine.ids), mine.counts)
	}
	recs := slices.Collect(kafka.WindowRecords(w))
	half := len(recs) / 2
	var toNew, toOld []kafka.Record // the second half, by where it goes
	for _, r := range recs[half:] {
		if inPartition(8)(r) >= 4 {
			toNew = append(toNew, r)
		} else {
			toOld = append(toOld, r)
		}
	}
	for _, c := range []struct {
		name      string
		config    func(brokers []string, group, queries string) string
		instances int
	}{
		{"standalone", singleConfig, 1},
		{"scale-out", scaleOutConfig, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			brokers := kafkatest.StartBroker(t, kafka.TopicSpec{Name: "edges", Partitions: 4})
			logs := &testenv.SyncBuffer{}
			cfg := withMetadataRefresh(c.config(brokers, "grow", queries), "1s")
			var ins []*instance
			for range c.instances {
				ins = append(ins, startLoggedInstance(t, cfg, logs))
			}
			if c.instances > 1 {
				waitSplit(t, ins)
			}
			kafkatest.SendRecords(t, brokers, "edges", inPartition(4), recs[:half])
			for i, in := range ins {
				if !testenv.Poll(2*time.Minute, 50*time.Millisecond, func() bool { return in.consumedFrom(t, 0, 4) >= float64(half) }) {
					t.Fatalf("instance %d took in %v of the first %d records in 2 minutes", i, in.consumedFrom(t, 0, 4), half)
				}
			}

			kafkatest.AddPartitions(t, brokers, "edges", 8)
			kafkatest.SendRecords(t, brokers, "edges", inPartition(8), toNew)
			// Each instance reads the new partitions from their start:
			// what was written there before it noticed them too.
			for i, in := range ins {
				if !testenv.Poll(time.Minute, 50*time.Millisecond, func() bool { return in.consumedFrom(t, 4, 8) >= float64(len(toNew)) }) {
					t.Fatalf("instance %d took in %v of the %d records of the new partitions 4-7 within a minute of the growth (metadata_refresh 1s); log:\n%s",
						i, in.consumedFrom(t, 4, 8), len(toNew), testenv.Tail(logs.String(), 30))
				}
			}
			kafkatest.SendRecords(t, brokers, "edges", inPartition(8), toOld)
			kafkatest.SendRecords(t, brokers, "edges", inPartition(8), sentinelsFor(w, 8))

			o := waitFor(t, brokers, mine)
			fenced := 0.0
			if c.instances > 1 {
				fenced = fencedHandovers(t, ins)
			}
			checkUnion(t, c.name+": the topic grown from 4 to 8 partitions vs monitor mine", mine, o, fenced)

			grew := regexp.MustCompile(`level=INFO msg="kafka: the edge topic has new partitions[^"]*" topic=edges partitions_before=4 partitions=8`)
			if n := len(grew.FindAllString(logs.String(), -1)); n < c.instances {
				t.Errorf("%d INFO lines about the growth; want one per instance (%d):\n%s", n, c.instances, testenv.Tail(logs.String(), 40))
			}
			for i, in := range ins {
				for p := range 8 {
					if !in.labelled(t, "motifwatch_consumer_lag_records", "partition", strconv.Itoa(p)) {
						t.Errorf("instance %d: motifwatch_consumer_lag_records has no series for partition %d", i, p)
					}
				}
				if got := in.metric(t, "motifwatch_edge_topic_partitions"); got != 8 {
					t.Errorf("instance %d: motifwatch_edge_topic_partitions = %v; want 8", i, got)
				}
				if got := in.metric(t, "motifwatch_edge_partitions_unread"); got != 0 {
					t.Errorf("instance %d: motifwatch_edge_partitions_unread = %v at the end; want 0", i, got)
				}
				if late := in.metric(t, "motifwatch_pipeline_records_total", "outcome", "late"); late != 0 {
					t.Errorf("instance %d: %v records late; want none", i, late)
				}
			}
			for _, in := range ins {
				if err := in.stop(); err != nil {
					t.Errorf("daemon stopped with %v", err)
				}
			}
		})
	}
}

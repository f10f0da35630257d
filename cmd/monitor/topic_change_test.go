package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/motifwatch/motifwatch/daemon"
	"github.com/motifwatch/motifwatch/feed"
	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/internal/testenv"
	"github.com/motifwatch/motifwatch/kafka"
	"github.com/motifwatch/motifwatch/kafka/kafkatest"
	"github.com/motifwatch/motifwatch/synth"
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
	recs := slices.Collect(feed.Window(w))
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

			grown := time.Now()
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
			t.Logf("the records of the new partitions taken in %v after the growth (metadata_refresh 1s)", time.Since(grown).Round(time.Millisecond))
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
			if t.Failed() {
				t.Logf("the daemons' log:\n%s", testenv.Tail(logs.String(), 80))
			}
		})
	}
}

// laterGraph writes a synthetic graph of n edges (seed) whose times start
// two days after after, as an edge file for `monitor mine`, and loads it
// back: a second stream that shares no match with one ending at after.
func laterGraph(t *testing.T, n int, seed uint64, after int64) (*window.Window, string) {
	t.Helper()
	edges, err := synth.Generate(synth.Default(n, seed))
	if err != nil {
		t.Fatal(err)
	}
	shift := after + 2*86400 - edges[0].T
	var b strings.Builder
	for _, e := range edges {
		fmt.Fprintf(&b, "%d %d %d\n", e.Src, e.Dst, e.T+shift)
	}
	path := filepath.Join(t.TempDir(), fmt.Sprintf("later-%d.txt", seed))
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	w, _, err := ingest.LoadFile(path, ingest.FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return w, path
}

// union is what two streams' alerts together must be.
func union(a, b expectation) expectation {
	u := expectation{ids: maps.Clone(a.ids), counts: maps.Clone(a.counts)}
	maps.Copy(u.ids, b.ids)
	for q, n := range b.counts {
		u.counts[q] += n
	}
	return u
}

// streamOf returns a graph's records and its sentinels for n partitions.
func streamOf(w *window.Window, n int) []kafka.Record {
	return append(slices.Collect(feed.Window(w)), sentinelsFor(w, n)...)
}

// resetLogged matches the ERROR line of an offset reset, with the
// partition, the offset asked for and the log's bounds.
var resetLogged = regexp.MustCompile(`level=ERROR msg="kafka: [^"]*" topic=edges partition=\d+ offset=\d+ log_start=\d+ log_end=\d+ reading_from=\d+ offset_reset=\w+ reason=\w+`)

// waitCommitted waits until group has committed at least n records of
// the edge topic.
func waitCommitted(t *testing.T, brokers []string, group string, n int64) map[int]int64 {
	t.Helper()
	var c map[int]int64
	if !testenv.Poll(time.Minute, 50*time.Millisecond, func() bool {
		var err error
		c, err = tryCommitted(brokers, group)
		return err == nil && kafkatest.Sum(c) >= n
	}) {
		t.Fatalf("group %s committed %v within a minute; want %d records", group, c, n)
	}
	return c
}

// TestEdgeTopicRecreatedWhileRunning deletes the edge topic under a
// running daemon that has read and committed a stream, creates it again
// (with as many partitions, and with fewer) and writes a second stream to
// it: the daemon finds its offsets out of range (or the topic gone and
// back), says so (an ERROR line with the partition, its offset and the
// new log's bounds; the reset counted), reads the new log from its start
// and mines the second stream; offsets of partitions gone are dropped,
// not committed over and over (counted), and /readyz is ready again. Its
// alerts are those of `monitor mine` on both streams.
func TestEdgeTopicRecreatedWhileRunning(t *testing.T) {
	if testing.Short() {
		t.Skip("deletes and creates the edge topic under a running daemon")
	}
	wA, graphA := synthGraph(t, 3000)
	wB, graphB := laterGraph(t, 2000, 7, wA.LastT()+86400)
	queries := writeQueries(t, e2eQueries)
	expA, expB := mineExpectation(t, graphA, queries), mineExpectation(t, graphB, queries)
	for _, c := range []struct {
		name       string
		partitions int
	}{
		{"as many partitions", 4},
		{"fewer partitions", 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			brokers := kafkatest.StartBroker(t, kafka.TopicSpec{Name: "edges", Partitions: 4})
			logs := &testenv.SyncBuffer{}
			in := startLoggedInstance(t, withMetadataRefresh(singleConfig(brokers, "recreate", queries), "1s"), logs)

			kafkatest.SendRecords(t, brokers, "edges", inPartition(4), streamOf(wA, 4))
			check(t, "the first stream", expA, waitFor(t, brokers, expA))
			waitCommitted(t, brokers, "recreate", int64(wA.Len()))

			kafkatest.RecreateTopic(t, brokers, "edges", c.partitions)
			kafkatest.SendRecords(t, brokers, "edges", inPartition(c.partitions), streamOf(wB, c.partitions))
			check(t, "both streams, the topic created again between them", union(expA, expB), waitFor(t, brokers, union(expA, expB)))
			waitReadiness(t, in.info.MetricsAddr, true, "")
			if !resetLogged.MatchString(logs.String()) {
				t.Errorf("no ERROR line about the reset offsets:\n%s", testenv.Tail(logs.String(), 40))
			}
			for _, l := range strings.Split(logs.String(), "\n") {
				if strings.Contains(l, "level=ERROR") {
					t.Logf("logged: %s", l)
				}
			}
			if n := in.metric(t, "motifwatch_offset_resets_total"); n < float64(c.partitions) {
				t.Errorf("motifwatch_offset_resets_total = %v; want one per partition at least (%d)", n, c.partitions)
			}
			for p := c.partitions; p < 4; p++ {
				if !testenv.Poll(30*time.Second, 50*time.Millisecond, func() bool {
					return in.metric(t, "motifwatch_kafka_commits_dropped_total", "partition", strconv.Itoa(p)) >= 1
				}) {
					t.Errorf("partition %d is gone, and motifwatch_kafka_commits_dropped_total{partition=%q} stayed 0", p, strconv.Itoa(p))
				}
			}
			if !testenv.Poll(30*time.Second, 50*time.Millisecond, func() bool {
				return in.metric(t, "motifwatch_edge_topic_partitions") == float64(c.partitions) && in.metric(t, "motifwatch_edge_partitions_unread") == 0 &&
					in.metric(t, "motifwatch_edge_partitions_fetch_failing") == 0
			}) {
				t.Errorf("edge topic partitions %v, unread %v, fetch failing %v; want %d, 0, 0", in.metric(t, "motifwatch_edge_topic_partitions"),
					in.metric(t, "motifwatch_edge_partitions_unread"), in.metric(t, "motifwatch_edge_partitions_fetch_failing"), c.partitions)
			}
			if late := in.metric(t, "motifwatch_pipeline_records_total", "outcome", "late"); late != 0 {
				t.Errorf("%v records late; want none", late)
			}
			if err := in.stop(); err != nil {
				t.Errorf("daemon stopped with %v", err)
			}
		})
	}
}

// restoreCommits commits offsets for group as a broker restored from an
// older copy (or one that keeps the offsets of deleted topics) holds
// them: past the ends of a log that is shorter now.
func restoreCommits(t *testing.T, brokers []string, group string, offsets map[int]int64) {
	t.Helper()
	admin, err := kafka.NewAdmin(brokers, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	commits := map[int]kafka.Commit{}
	for p, o := range offsets {
		commits[p] = kafka.Commit{Offset: o}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := admin.CommitOutsideGroup(ctx, group, "edges", commits); err != nil {
		t.Fatal(err)
	}
}

// TestRestartPastTheLogEnd restarts a daemon whose group's committed
// offsets lie past the end of the edge topic's log: the topic deleted and
// created again while it was stopped (with the offsets kept, as a
// restored broker has them), or its log truncated. The start must not
// wait for records that will never come: it finds the offsets out of
// range, says so (ERROR, counted) and reads on as kafka.offset_reset
// says: earliest mines the new log from its start, latest skips what is
// there and mines what comes after.
func TestRestartPastTheLogEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("restarts daemons over a topic created again")
	}
	wA, graphA := synthGraph(t, 3000)
	wB, graphB := laterGraph(t, 1000, 7, wA.LastT()+86400)
	queries := writeQueries(t, e2eQueries)
	expA, expB := mineExpectation(t, graphA, queries), mineExpectation(t, graphB, queries)
	for _, c := range []struct {
		name, reset string
		recreate    bool
	}{
		{"topic created again, earliest", "earliest", true},
		{"offsets past the end, latest", "latest", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			brokers := kafkatest.StartBroker(t, kafka.TopicSpec{Name: "edges", Partitions: 4})
			cfg := withMetadataRefresh(singleConfig(brokers, "restart", queries), "1s")
			first := startDaemon(t, cfg)
			kafkatest.SendRecords(t, brokers, "edges", inPartition(4), streamOf(wA, 4))
			check(t, "the first stream", expA, waitFor(t, brokers, expA))
			waitCommitted(t, brokers, "restart", int64(wA.Len()))
			if err := first.stop(); err != nil {
				t.Fatalf("first daemon stopped with %v", err)
			}
			committed, err := tryCommitted(brokers, "restart")
			if err != nil {
				t.Fatal(err)
			}
			want := expA
			if c.recreate {
				kafkatest.RecreateTopic(t, brokers, "edges", 4)
				kafkatest.SendRecords(t, brokers, "edges", inPartition(4), streamOf(wB, 4))
				restoreCommits(t, brokers, "restart", committed)
				want = union(expA, expB)
			} else {
				past := map[int]int64{}
				for p, o := range committed {
					past[p] = o + 1000
				}
				restoreCommits(t, brokers, "restart", past)
			}

			logs := &testenv.SyncBuffer{}
			cfg = strings.Replace(cfg, "kafka:\n", "kafka:\n  offset_reset: "+c.reset+"\n", 1)
			start := time.Now()
			second := startLoggedInstance(t, cfg, logs) // fails the test if not started within 30s
			t.Logf("restarted in %v", time.Since(start).Round(time.Millisecond))
			if !c.recreate {
				// Latest: what the log holds is skipped; what comes once the
				// reader has placed itself at the end (it has fetched every
				// partition) is mined.
				if !testenv.Poll(time.Minute, 20*time.Millisecond, func() bool {
					for p := range 4 {
						if !second.labelled(t, "motifwatch_consumer_lag_records", "partition", strconv.Itoa(p)) {
							return false
						}
					}
					return true
				}) {
					t.Fatal("the restarted daemon did not fetch every partition within a minute")
				}
				kafkatest.SendRecords(t, brokers, "edges", inPartition(4), streamOf(wB, 4))
				want = union(expA, expB)
			}
			check(t, c.name, want, waitFor(t, brokers, want))
			waitReadiness(t, second.info.MetricsAddr, true, "")
			if n := len(resetLogged.FindAllString(logs.String(), -1)); n != 4 {
				t.Errorf("%d ERROR lines about offsets out of range; want one per partition (4):\n%s", n, testenv.Tail(logs.String(), 40))
			}
			if n := second.metric(t, "motifwatch_offset_resets_total", "reason", "past_end"); n != 4 {
				t.Errorf("motifwatch_offset_resets_total{reason=\"past_end\"} = %v; want 4", n)
			}
			if err := second.stop(); err != nil {
				t.Errorf("daemon stopped with %v", err)
			}
		})
	}
}

// TestPartitionFetchFailing makes every fetch of one partition of the
// edge topic fail (the broker answers KAFKA_STORAGE_ERROR) while the
// others flow: the daemon counts the failures by partition, shows the
// partition failing, says degraded (partition_fetch_failing, naming it)
// in /readyz, and recovers by itself once the fetches succeed again,
// its alerts then equal to `monitor mine`'s.
func TestPartitionFetchFailing(t *testing.T) {
	if testing.Short() {
		t.Skip("injects fetch failures into a broker under a running daemon")
	}
	w, graph := synthGraph(t, 2000)
	queries := writeQueries(t, e2eQueries)
	exp := mineExpectation(t, graph, queries)
	b := startTestBroker(t, false)
	brokers := b.Addrs()
	logs := &testenv.SyncBuffer{}
	in := startLoggedInstance(t, withMetadataRefresh(singleConfig(brokers, "failing", queries), "200ms"), logs)
	fault := b.Cluster().Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Fetch}, Topic: "edges", Partitions: []int32{1}, Err: kerr.KafkaStorageError, Count: -1})
	kafkatest.SendRecords(t, brokers, "edges", inPartition(3), streamOf(w, 3))
	if !testenv.Poll(time.Minute, 20*time.Millisecond, func() bool {
		code, body := readyz(in.info.MetricsAddr)
		return code == http.StatusOK && strings.Contains(body, "partition_fetch_failing: fetches of partitions [1] of topic edges fail")
	}) {
		code, body := readyz(in.info.MetricsAddr)
		t.Fatalf("/readyz %d %q within a minute of failing fetches of partition 1; want 200 degraded naming partition_fetch_failing and partition 1", code, body)
	}
	if n := in.metric(t, "motifwatch_kafka_fetch_errors_total", "partition", "1"); n < 1 {
		t.Errorf(`motifwatch_kafka_fetch_errors_total{partition="1"} = %v; want > 0`, n)
	}
	if n := in.metric(t, "motifwatch_kafka_fetch_errors_total", "partition", "0") + in.metric(t, "motifwatch_kafka_fetch_errors_total", "partition", "2"); n != 0 {
		t.Errorf("fetch errors counted for partitions 0 and 2 (%v); only partition 1's fail", n)
	}
	if got := in.metric(t, "motifwatch_edge_partitions_fetch_failing"); got != 1 {
		t.Errorf("motifwatch_edge_partitions_fetch_failing = %v; want 1", got)
	}
	fault.Remove()
	check(t, "after partition 1's fetches failed for a while", exp, waitFor(t, brokers, exp))
	waitReadiness(t, in.info.MetricsAddr, true, "")
	if !testenv.Poll(30*time.Second, 20*time.Millisecond, func() bool {
		_, body := readyz(in.info.MetricsAddr)
		return !strings.Contains(body, "partition_fetch_failing") && in.metric(t, "motifwatch_edge_partitions_fetch_failing") == 0
	}) {
		_, body := readyz(in.info.MetricsAddr)
		t.Errorf("/readyz %q, fetch failing %v after the fetches recovered; want partition_fetch_failing lifted and 0", body, in.metric(t, "motifwatch_edge_partitions_fetch_failing"))
	}
	if !strings.Contains(logs.String(), `msg="degraded: partition_fetch_failing"`) || !strings.Contains(logs.String(), `msg="recovered: partition_fetch_failing"`) {
		t.Errorf("the log does not say when partition 1's fetches began and ceased to fail:\n%s", testenv.Tail(logs.String(), 30))
	}
	if err := in.stop(); err != nil {
		t.Errorf("daemon stopped with %v", err)
	}
}

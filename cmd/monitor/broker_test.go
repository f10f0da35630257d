package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"

	"github.com/motifwatch/motifwatch/alerts"
	"github.com/motifwatch/motifwatch/config"
	"github.com/motifwatch/motifwatch/daemon"
	"github.com/motifwatch/motifwatch/internal/testenv"
	"github.com/motifwatch/motifwatch/kafka"
	"github.com/motifwatch/motifwatch/kafka/kafkatest"
)

// brokerProcess is `monitor broker` running as a child process.
type brokerProcess struct {
	cmd    *exec.Cmd
	addr   string
	out    *testenv.SyncBuffer // stdout after the address line
	errOut *testenv.SyncBuffer // stderr: the log
	done   chan error
	exited bool
}

// startBrokerProcess runs `monitor broker args...` and waits for the
// address it prints.
func startBrokerProcess(t *testing.T, args ...string) *brokerProcess {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "MONITOR_TEST_MAIN=1", "MONITOR_TEST_ARGS="+strings.Join(append([]string{"broker"}, args...), " "))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &testenv.SyncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	b := &brokerProcess{cmd: cmd, out: &testenv.SyncBuffer{}, errOut: stderr, done: make(chan error, 1)}
	t.Cleanup(func() {
		if !b.exited {
			cmd.Process.Kill()
			<-b.done
		}
	})
	lines := bufio.NewScanner(stdout)
	addr := make(chan string, 1)
	go func() {
		for lines.Scan() {
			if a, ok := strings.CutPrefix(lines.Text(), "broker listening on "); ok {
				addr <- a
				continue
			}
			fmt.Fprintln(b.out, lines.Text())
		}
		io.Copy(io.Discard, stdout)
		b.done <- cmd.Wait()
	}()
	select {
	case b.addr = <-addr:
	case err := <-b.done:
		b.exited = true
		t.Fatalf("monitor broker %v exited: %v; stderr %q", args, err, stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("monitor broker %v printed no address within 30s; stderr %q", args, stderr.String())
	}
	return b
}

// interrupt sends SIGINT (Ctrl-C) and waits for a clean exit.
func (b *brokerProcess) interrupt(t *testing.T) {
	t.Helper()
	b.cmd.Process.Signal(syscall.SIGINT)
	select {
	case err := <-b.done:
		b.exited = true
		if err != nil {
			t.Fatalf("monitor broker after Ctrl-C: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("monitor broker did not stop within 30s of Ctrl-C")
	}
	if !testenv.Poll(time.Minute, 10*time.Millisecond, func() bool { return strings.Contains(b.out.String(), "broker stopped") }) {
		t.Errorf("no \"broker stopped\" line; stdout %q", b.out.String())
	}
}

// TestBrokerCommand runs `monitor broker` with a data directory: a
// kafka-go client produces to and consumes from the topic it created,
// Ctrl-C stops it with status 0, and a restart on the same port with the
// same --dir serves the same records; without --dir it says that
// everything is lost at exit.
func TestBrokerCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	b := startBrokerProcess(t, "--port", "0", "--dir", dir, "--topics", "trial,other", "--partitions", "3")
	if !strings.HasPrefix(b.addr, "127.0.0.1:") {
		t.Fatalf("address %q; want 127.0.0.1:port", b.addr)
	}
	if !testenv.Poll(time.Minute, 10*time.Millisecond, func() bool {
		return strings.Contains(b.out.String(), "data in "+dir) && strings.Contains(b.out.String(), "topics trial, other (new ones with 3 partitions)") &&
			strings.Contains(b.out.String(), "retention 8MiB per partition")
	}) {
		t.Errorf("stdout %q; want the data directory, topics and default retention named", b.out.String())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if n := topicPartitions(t, ctx, b.addr, "trial"); n != 3 {
		t.Errorf("topic trial has %d partitions; want 3", n)
	}
	tr := &kafka.Transport{}
	w := &kafkago.Writer{Addr: kafkago.TCP(b.addr), Topic: "trial", Transport: tr, RequiredAcks: kafkago.RequireAll, BatchTimeout: time.Millisecond, Balancer: &kafkago.Hash{}}
	var want []string
	var msgs []kafka.Message
	for i := range 20 {
		v := fmt.Sprintf("record-%02d", i)
		want = append(want, v)
		msgs = append(msgs, kafka.Message{Key: []byte(v), Value: []byte(v)})
	}
	if err := w.WriteMessages(ctx, msgs...); err != nil {
		t.Fatal(err)
	}
	w.Close()
	tr.CloseIdleConnections()
	if got := values(kafkatest.ReadTopic(t, []string{b.addr}, "trial")); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("read back %v; want %v", got, want)
	}
	b.interrupt(t)

	// Same port, same directory: the records are still there.
	port := b.addr[strings.LastIndexByte(b.addr, ':')+1:]
	b2 := startBrokerProcess(t, "--port", port, "--dir", dir, "--topics", "trial")
	if b2.addr != b.addr {
		t.Errorf("restart on --port %s listens on %s", port, b2.addr)
	}
	if got := values(kafkatest.ReadTopic(t, []string{b2.addr}, "trial")); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("after a restart with --dir read %v; want %v", got, want)
	}
	if n := topicPartitions(t, ctx, b2.addr, "trial"); n != 3 {
		t.Errorf("after a restart topic trial has %d partitions; want 3", n)
	}
	b2.interrupt(t)

	// No --dir: memory only, and it says so; so does unlimited retention.
	b3 := startBrokerProcess(t, "--port", "0", "--retention-bytes", "0")
	if !testenv.Poll(time.Minute, 10*time.Millisecond, func() bool {
		return strings.Contains(b3.out.String(), "data in memory only: everything is lost when it stops") &&
			strings.Contains(b3.out.String(), "retention unlimited: it keeps every record")
	}) {
		t.Errorf("stdout %q; want the memory-only and unlimited-retention notices", b3.out.String())
	}
	b3.interrupt(t)
}

func TestBrokerCommandBadFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"broker", "--partitions", "0"}, 2, "broker: --partitions 0 must be at least 1"},
		{[]string{"broker", "--port", "70000"}, 2, "broker: --port 70000 (want 1 to 65535, or 0 for a free port)"},
		{[]string{"broker", "--retention-bytes", "lots"}, 2, `broker: --retention-bytes "lots": "lots" is not a size`},
		{[]string{"broker", "--retention-bytes", "-1MiB"}, 2, `broker: --retention-bytes "-1MiB": must not be negative (0: keep everything)`},
		{[]string{"broker", "--port", "0", "--topics", "bad/name"}, 1, `topic "bad/name": character '/' at 4 is not one of [a-zA-Z0-9._-]`},
	} {
		_, errOut, code := monitor(t, c.args...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("monitor %v: exit %d, stderr %q; want exit %d and %q", c.args, code, errOut, c.code, c.want)
		}
	}
}

// topicPartitions returns topic's partition count (0 if absent).
func topicPartitions(t *testing.T, ctx context.Context, addr, topic string) int {
	t.Helper()
	tr := &kafka.Transport{}
	defer tr.CloseIdleConnections()
	meta, err := (&kafkago.Client{Addr: kafkago.TCP(addr), Transport: tr}).Metadata(ctx, &kafkago.MetadataRequest{Topics: []string{topic}})
	if err != nil || len(meta.Topics) != 1 || meta.Topics[0].Error != nil {
		return 0
	}
	return len(meta.Topics[0].Partitions)
}

// values returns the records' values, sorted (partitions interleave).
func values(ms []kafka.Message) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = string(m.Value)
	}
	slices.Sort(out)
	return out
}

// TestBrokerCommandDiskFull: `monitor broker --dir` on a full disk used
// to answer producers with "Unknown: an unexpected server error" and say
// nothing. Now it logs an ERROR naming the directory, the file and the
// error on stderr, and keeps serving.
func TestBrokerCommandDiskFull(t *testing.T) {
	dir := t.TempDir()
	b := startBrokerProcess(t, "--port", "0", "--dir", dir, "--topics", "edges", "--partitions", "1")
	want := kafkatest.FillDisk(t, dir, "edges")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tr := &kafka.Transport{}
	defer tr.CloseIdleConnections()
	w := &kafkago.Writer{Addr: kafkago.TCP(b.addr), Topic: "edges", Transport: tr, RequiredAcks: kafkago.RequireAll, BatchTimeout: time.Millisecond, MaxAttempts: 1}
	defer w.Close()
	if err := w.WriteMessages(ctx, kafka.Message{Value: []byte("x")}); err == nil {
		t.Fatal("a produce to a full disk succeeded")
	}
	line := `level=ERROR msg="embedded broker cannot write its data directory; producers get an unexpected server error (code -1) until it can" dir=` + dir
	if !testenv.Poll(time.Minute, 10*time.Millisecond, func() bool {
		return strings.Contains(b.errOut.String(), line) && strings.Contains(b.errOut.String(), want)
	}) {
		t.Errorf("stderr lacks %s … %s:\n%s", line, want, b.errOut.String())
	}
	b.interrupt(t)
}

// TestDaemonEmbeddedBrokerDiskFull: the daemon's embedded broker on a
// full kafka.embedded.dir counts each failed write in
// motifwatch_embedded_broker_storage_errors_total and logs it as an
// ERROR (before: a warning per batch and no metric).
func TestDaemonEmbeddedBrokerDiskFull(t *testing.T) {
	dir := t.TempDir()
	queries := writeQueries(t, "queries:\n  - {name: pair, delta: 60, edges: [A -> B, B -> A]}\n")
	cfg := fmt.Sprintf(`kafka:
  brokers: embedded
  embedded: {dir: %s}
  partitions: 1
demo: false
queries:
  files: [%s]
metrics:
  listen: 127.0.0.1:0
`, dir, queries)
	logs := &testenv.SyncBuffer{}
	d := startLoggedDaemon(t, cfg, logs)
	want := kafkatest.FillDisk(t, dir, "edges")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tr := &kafka.Transport{}
	defer tr.CloseIdleConnections()
	w := &kafkago.Writer{Addr: kafkago.TCP(d.info.Brokers...), Topic: "edges", Transport: tr, RequiredAcks: kafkago.RequireAll, BatchTimeout: time.Millisecond, MaxAttempts: 1}
	defer w.Close()
	if err := w.WriteMessages(ctx, kafka.Message{Value: []byte(`{"src":"a","dst":"b","t":1}`)}); err == nil {
		t.Fatal("a produce to a full disk succeeded")
	}
	testenv.WaitMetrics(t, d.info.MetricsAddr, time.Minute, 20*time.Millisecond, "motifwatch_embedded_broker_storage_errors_total counts the failed write",
		func(m map[string]float64) bool { return m["motifwatch_embedded_broker_storage_errors_total"] >= 1 })
	if !strings.Contains(logs.String(), `level=ERROR msg="embedded broker cannot write its data directory`) || !strings.Contains(logs.String(), want) {
		t.Errorf("no ERROR line for the full disk; log:\n%s", testenv.Tail(logs.String(), 20))
	}
	if err := d.stop(); err != nil {
		t.Errorf("stop: %v", err)
	}
}

// TestDaemonEmbeddedBrokerDir runs the daemon twice on its embedded
// broker with kafka.embedded {dir, port}: the second run listens on the
// same port and finds the first one's edges, alert and committed offsets
// (before, the embedded broker kept everything in memory on a new port
// each start).
func TestDaemonEmbeddedBrokerDir(t *testing.T) {
	dir := t.TempDir()
	port := testenv.FreePort(t)
	queries := writeQueries(t, "queries:\n  - {name: pair, delta: 60, edges: [A -> B, B -> A]}\n")
	cfg := fmt.Sprintf(`kafka:
  brokers: embedded
  embedded: {dir: %s, port: %d}
  partitions: 2
demo: false
input:
  fields: {src: src, dst: dst, time: t, seq: seq}
window:
  allowed_lateness: 0s
  batch_max_wait: 50ms
  idle_timeout: 200ms
queries:
  files: [%s]
metrics:
  listen: 127.0.0.1:0
`, dir, port, queries)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	logs := &testenv.SyncBuffer{}
	d := startLoggedDaemon(t, cfg, logs)
	if len(d.info.Brokers) != 1 || d.info.Brokers[0] != addr {
		t.Fatalf("embedded broker at %v; want [%s]", d.info.Brokers, addr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	recs := []kafka.Record{{Src: "x", Dst: "y", T: 10, Seq: 0}, {Src: "y", Dst: "x", T: 20, Seq: 1}}
	if _, err := kafka.Produce(ctx, slices.Values(recs), kafka.ProduceOptions{Brokers: d.info.Brokers, Topic: "edges", TimeUnit: time.Second}); err != nil {
		t.Fatal(err)
	}
	var first []alerts.Alert
	if !testenv.Poll(30*time.Second, 50*time.Millisecond, func() bool { first = readAlerts(t, d.info.Brokers); return len(first) > 0 }) {
		t.Fatalf("no alert within 30s; log:\n%s", testenv.Tail(logs.String(), 20))
	}
	if err := d.stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	if !strings.Contains(logs.String(), `msg="embedded Kafka broker started" addrs=[`+addr+`] dir=`+dir) {
		t.Errorf("no start line naming the address and directory; log:\n%s", testenv.Tail(logs.String(), 30))
	}

	d2 := startDaemon(t, cfg)
	if len(d2.info.Brokers) != 1 || d2.info.Brokers[0] != addr {
		t.Fatalf("restart: embedded broker at %v; want [%s]", d2.info.Brokers, addr)
	}
	if got := kafkatest.ReadTopic(t, d2.info.Brokers, "edges"); len(got) != len(recs) {
		t.Errorf("restart: edge topic holds %d records; want %d", len(got), len(recs))
	}
	committed, err := tryCommitted(d2.info.Brokers, "motifwatch")
	if err != nil || kafkatest.Sum(committed) != int64(len(recs)) {
		t.Errorf("restart: committed %v (%v); want %d records in all", committed, err, len(recs))
	}
	if got := readAlerts(t, d2.info.Brokers); len(got) != 1 || len(first) != 1 || got[0].MatchID != first[0].MatchID {
		t.Errorf("restart: alerts %+v; want the first run's one alert %+v", got, first)
	}
}

// TestDaemonEmbeddedPortBusy: a kafka.embedded.port in use stops the
// start with an error naming the setting.
func TestDaemonEmbeddedPortBusy(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	cfg, err := config.Parse([]byte(fmt.Sprintf("kafka:\n  embedded: {port: %d}\ndemo: false\nqueries:\n  inline: [{name: q, delta: 1m, edges: [A -> B]}]\nmetrics:\n  listen: 127.0.0.1:0\n", port)), "busy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = daemon.Run(ctx, daemon.Options{Config: cfg})
	if want := fmt.Sprintf(`kafka.embedded {dir: "", port: %d, retention_bytes: 8MiB}: starting the embedded broker: `, port); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Run with kafka.embedded.port busy = %v; want an error with %q", err, want)
	}
}

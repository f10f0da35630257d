package kafkatest

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/motifwatch/motifwatch/kafka"
)

// StartBroker starts an embedded broker (kafka.StartEmbedded) with topics
// for one test or benchmark and returns its addresses; it closes when the
// test ends.
func StartBroker(t testing.TB, topics ...kafka.TopicSpec) []string {
	t.Helper()
	return StartEmbedded(t, kafka.EmbeddedOptions{Topics: topics}).Addrs()
}

// StartEmbedded starts an embedded broker with opts, within 20 s, and
// closes it when the test ends.
func StartEmbedded(t testing.TB, opts kafka.EmbeddedOptions) *kafka.Embedded {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	e, err := kafka.StartEmbedded(ctx, opts)
	if err != nil {
		t.Fatalf("starting an embedded broker (%+v): %v", opts, err)
	}
	t.Cleanup(e.Close)
	return e
}

// SessionMin is the group session timeout a Broker accepts at least: a
// daemon restarted after SIGKILL gets its partitions back in seconds (a
// real broker's minimum is 6 s).
const SessionMin = 500 * time.Millisecond

// BrokerOptions configure StartRestartable.
type BrokerOptions struct {
	// Persistent keeps the broker's topics, records and committed offsets
	// in a directory of the test, so that Stop and Start are a broker
	// restart; without it Start begins empty.
	Persistent bool
	// Topics are created once the broker first answers.
	Topics []kafka.TopicSpec
	// DefaultPartitions is the partition count of auto-created topics
	// (default 3).
	DefaultPartitions int
}

// Broker is a kfake cluster in the test process, reached over TCP by
// daemons in this process or in child processes; it outlives them. Unlike
// kafka.Embedded it stops and starts again on the same port, and it
// accepts short group session timeouts (SessionMin).
type Broker struct {
	t     testing.TB
	opts  []kfake.Opt
	port  int
	addrs []string
	c     *kfake.Cluster
}

// StartRestartable starts a Broker and creates opts.Topics; it stops when
// the test ends.
func StartRestartable(t testing.TB, opts BrokerOptions) *Broker {
	t.Helper()
	parts := opts.DefaultPartitions
	if parts == 0 {
		parts = 3
	}
	b := &Broker{t: t, opts: []kfake.Opt{kfake.NumBrokers(1), kfake.DefaultNumPartitions(parts),
		kfake.ClusterID("motifwatch-test"), kfake.GroupMinSessionTimeout(SessionMin)}}
	if opts.Persistent {
		b.opts = append(b.opts, kfake.DataDir(t.TempDir()))
	}
	b.Start()
	t.Cleanup(b.Stop)
	if err := kafka.EnsureTopics(context.Background(), b.addrs, nil, opts.Topics); err != nil {
		t.Fatal(err)
	}
	return b
}

// Start starts the broker again after Stop, on the port it had first
// (picked free then). It waits until the broker answers metadata.
func (b *Broker) Start() {
	b.t.Helper()
	if b.c != nil {
		b.t.Fatalf("starting the test broker on port %d: it is running", b.port)
	}
	opts := b.opts
	if b.port != 0 {
		opts = append(opts[:len(opts):len(opts)], kfake.Ports(b.port))
	}
	var c *kfake.Cluster
	var err error
	deadline := time.Now().Add(10 * time.Second)
	for {
		// The port of a stopped broker can take a moment to be free again.
		if c, err = kfake.NewCluster(opts...); err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		b.t.Fatalf("starting the test broker on port %d: %v", b.port, err)
	}
	b.c, b.addrs = c, c.ListenAddrs()
	_, port, err := net.SplitHostPort(b.addrs[0])
	if err == nil {
		b.port, err = strconv.Atoi(port)
	}
	if err != nil {
		b.t.Fatalf("test broker address %q: %v", b.addrs[0], err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := kafka.WaitReady(ctx, b.addrs, nil); err != nil {
		b.t.Fatal(err)
	}
}

// Stop closes the broker: every client connection drops, and the port
// refuses connections until Start. It is safe to call when stopped.
func (b *Broker) Stop() {
	if b.c != nil {
		b.c.Close()
		b.c = nil
	}
}

// Addrs returns the broker's address (the same across restarts).
func (b *Broker) Addrs() []string { return b.addrs }

// Cluster returns the running kfake cluster, for tests that inject faults.
func (b *Broker) Cluster() *kfake.Cluster {
	if b.c == nil {
		panic(fmt.Sprintf("kafkatest: the broker on port %d is stopped", b.port))
	}
	return b.c
}

//go:build linux

package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/motifwatch/motifwatch/daemon"
	"github.com/motifwatch/motifwatch/internal/testenv"
	"github.com/motifwatch/motifwatch/kafka"
)

// openFDs counts this process's open descriptors (-1: it cannot, for
// want of one).
func openFDs() int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(ents)
}

// TestHTTPClientsCannotStarveKafka reproduces the descriptor exhaustion of
// issue 24: HTTP clients that open connections and hold them. The test's
// process gets an open-files limit that leaves room for the daemon, its
// embedded broker and the hogs' own client sockets, but not for one
// server descriptor per hog as well. Before the connection cap the
// server accepted every hog, the process ran out of descriptors and
// Kafka's calls failed with "too many open files". Now the server holds
// at most metrics.max_connections, the rest wait in the kernel's backlog,
// and edges produced meanwhile are mined and alerted on; once the hogs
// leave, /healthz answers.
func TestHTTPClientsCannotStarveKafka(t *testing.T) {
	const hogs, maxConns = 1500, 32
	var orig syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &orig); err != nil {
		t.Fatal(err)
	}
	queries := writeQueries(t, "queries:\n  - {name: pair, delta: 60, edges: [A -> B, B -> A]}\n")
	cfg := fmt.Sprintf(`kafka:
  brokers: embedded
  partitions: 1
demo: false
input:
  fields: {src: src, dst: dst, time: t, seq: seq}
window:
  allowed_lateness: 0s
  batch_max_wait: 50ms
  idle_timeout: 200ms
alerts:
  rate_limit: 0
queries:
  files: [%s]
metrics:
  listen: 127.0.0.1:0
  max_connections: %d
  # Silent connections keep their slot for the whole test.
  read_header_timeout: 10m
`, queries, maxConns)
	reg := prometheus.NewRegistry()
	logs := &testenv.SyncBuffer{}
	d := runDaemon(t, cfg, daemon.Options{Registry: reg, Logger: newTestLogger(logs)})

	// Room for what runs now, the hogs' client sockets and a margin for
	// Kafka (the broker is in this process: both ends of each
	// connection), but not for the hogs' server ends too.
	base := openFDs()
	if base < 0 {
		t.Fatal("cannot count the open descriptors")
	}
	limit := uint64(base + hogs + 400)
	if limit > orig.Cur {
		t.Fatalf("the open-files limit %d is below the %d this test needs", orig.Cur, limit)
	}
	lowered := orig
	lowered.Cur = limit
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lowered); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Setrlimit(syscall.RLIMIT_NOFILE, &orig) }) // after the daemon's stop (cleanups run last first)

	var mu sync.Mutex
	var conns []net.Conn
	var dialErrs []error
	var wg sync.WaitGroup
	work := make(chan struct{})
	for range 64 {
		wg.Go(func() {
			for range work {
				c, err := net.DialTimeout("tcp", d.info.MetricsAddr, 5*time.Second)
				mu.Lock()
				if err != nil {
					dialErrs = append(dialErrs, err)
				} else {
					conns = append(conns, c)
				}
				mu.Unlock()
			}
		})
	}
	for range hogs {
		work <- struct{}{}
	}
	close(work)
	wg.Wait()
	closeHogs := sync.OnceFunc(func() {
		for _, c := range conns {
			c.Close()
		}
	})
	t.Cleanup(closeHogs)
	t.Logf("%d hog connections open (%d dials failed: %v), %d descriptors in the process (limit %d)",
		len(conns), len(dialErrs), slices.Compact(errStrings(dialErrs)), openFDs(), limit)

	// Kafka works while the hogs hold on: edges in, alerts out.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	recs := []kafka.Record{{Src: "x", Dst: "y", T: 10, Seq: 0}, {Src: "y", Dst: "x", T: 20, Seq: 1}}
	if _, err := kafka.Produce(ctx, slices.Values(recs), kafka.ProduceOptions{Brokers: d.info.Brokers, Topic: "edges", TimeUnit: time.Second}); err != nil {
		t.Fatalf("producing while HTTP clients hog the server: %v; log:\n%s", err, testenv.Tail(logs.String(), 20))
	}
	if !testenv.Poll(60*time.Second, 50*time.Millisecond, func() bool { return len(readAlerts(t, d.info.Brokers)) == 1 }) {
		t.Fatalf("no alert while HTTP clients hog the server; log:\n%s", testenv.Tail(logs.String(), 30))
	}
	if open := testenv.Gathered(t, reg, "motifwatch_http_connections"); open > maxConns {
		t.Errorf("motifwatch_http_connections = %v; want at most %d", open, maxConns)
	}
	if testenv.Gathered(t, reg, "motifwatch_http_connections_capped_total") < 1 {
		t.Errorf("motifwatch_http_connections_capped_total did not count the cap")
	}
	if strings.Contains(logs.String(), "too many open files") {
		t.Errorf("the process ran out of descriptors; log:\n%s", testenv.Tail(logs.String(), 30))
	}

	closeHogs()
	if !testenv.Poll(60*time.Second, 50*time.Millisecond, func() bool {
		c := http.Client{Timeout: 5 * time.Second}
		resp, err := c.Get("http://" + d.info.MetricsAddr + "/healthz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}) {
		t.Errorf("/healthz does not answer once the hogs are gone")
	}
	if err := d.stop(); err != nil {
		t.Errorf("stop: %v", err)
	}
}

func errStrings(errs []error) []string {
	s := make([]string, len(errs))
	for i, err := range errs {
		s[i] = err.Error()
	}
	slices.Sort(s)
	return s
}

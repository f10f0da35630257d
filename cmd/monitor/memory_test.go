package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/config"
	"github.com/motifwatch/motifwatch/internal/testenv"
	"github.com/motifwatch/motifwatch/kafka"
	"github.com/motifwatch/motifwatch/kafka/kafkatest"
)

// TestRunStaysWithinMemoryBudget: `monitor run` (a child process, the
// broker in the test's) under small caps takes 120,000 edges that each
// bring a new node id: it publishes the memory budget of its caps
// (config.MemoryBudget) by part, makes it the Go memory limit, the
// window's memory (its node dictionaries included) stays within
// window.max_bytes, and the process's peak resident set within 1.5× the
// budget, the bound the docs promise.
func TestRunStaysWithinMemoryBudget(t *testing.T) {
	if os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOMEMLIMIT is set: monitor run keeps it instead of its budget")
	}
	const maxBytes, edges = 4 << 20, 120_000
	brokers := kafkatest.StartBroker(t)
	queries := writeQueries(t, "queries:\n  - name: path\n    delta: 3600\n    edges: [A -> B, B -> C]\n")
	yaml := e2eConfig(brokers, "memory", queries, 5*time.Second)
	yaml = strings.Replace(yaml, "  per_query:\n    path-count: {mode: count}\n", "  mode: count\n", 1)
	yaml = strings.Replace(yaml, "window:\n", fmt.Sprintf("window:\n  max_bytes: %d\n  max_buffered_bytes: 4MiB\n", maxBytes), 1)
	addr := fmt.Sprintf("127.0.0.1:%d", testenv.FreePort(t))
	yaml = strings.Replace(yaml, "listen: 127.0.0.1:0", "listen: "+addr, 1)
	cfg, err := config.Parse([]byte(yaml), "memory.yaml")
	if err != nil {
		t.Fatal(err)
	}
	budget, ok := cfg.MemoryBudget()
	if !ok {
		t.Fatalf("no memory budget for %+v", cfg.Window)
	}
	path := filepath.Join(t.TempDir(), "memory.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	d := startProcess(t, path)
	if !testenv.Poll(time.Minute, 100*time.Millisecond, func() bool {
		m, err := testenv.TryScrape(addr)
		_, up := m[`motifwatch_memory_budget_bytes{part="window"}`]
		return err == nil && up
	}) {
		t.Fatalf("the daemon's metrics did not come up within a minute; its log:\n%s", d.log)
	}

	var msgs []kafka.Message
	for i := range edges {
		// A new source id per edge; its destination comes as a source
		// up to 5,000 edges later.
		msgs = append(msgs, kafka.Message{Partition: i % 3,
			Value: fmt.Appendf(nil, `{"src":"acct-%d","dst":"acct-%d","t":%d,"seq":%d}`, i, i+1+i*7919%5000, 1_700_000_000+i/10, i)})
	}
	kafkatest.Send(t, brokers, "edges", kafkatest.SendOptions{BatchSize: 1000}, msgs...)
	msgs = nil
	waitConsumed(t, addr, edges)

	m := testenv.Scrape(t, addr)
	for name, want := range map[string]float64{
		`motifwatch_memory_budget_bytes{part="window"}`:   float64(budget.Window),
		`motifwatch_memory_budget_bytes{part="buffered"}`: float64(budget.Buffered),
		`motifwatch_memory_budget_bytes{part="base"}`:     float64(budget.Base),
		`motifwatch_memory_budget_bytes{part="broker"}`:   0,
		`go_gc_gomemlimit_bytes`:                          float64(budget.Total()),
	} {
		if got, ok := m[name]; !ok || got != want {
			t.Errorf("%s = %v (present %v); want %v", name, got, ok, want)
		}
	}
	if got := m["motifwatch_window_bytes"]; got > maxBytes || m[`motifwatch_cap_actions_total{cap="window_bytes"}`] == 0 {
		t.Errorf("motifwatch_window_bytes = %v, the memory cap acted %v times; want at most window.max_bytes %d, the cap acting",
			got, m[`motifwatch_cap_actions_total{cap="window_bytes"}`], maxBytes)
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", d.cmd.Process.Pid))
	if err != nil {
		t.Skipf("no peak resident set to read: %v", err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if kb, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(kb), "kB")), 10, 64)
			if err != nil {
				t.Fatalf("VmHWM line %q: %v", line, err)
			}
			if peak := n << 10; peak > budget.Total()*3/2 {
				t.Errorf("peak resident set %d bytes; want at most 1.5× the memory budget %s", peak, budget)
			} else {
				t.Logf("peak resident set %.1f MiB, budget %s", float64(peak)/(1<<20), budget)
			}
		}
	}
}

package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/motifwatch/motifwatch/config"
	"github.com/motifwatch/motifwatch/gpm"
	"github.com/motifwatch/motifwatch/internal/testenv"
	"github.com/motifwatch/motifwatch/kafka"
	"github.com/motifwatch/motifwatch/kafka/kafkatest"
	"github.com/motifwatch/motifwatch/motif/cpu"
	"github.com/motifwatch/motifwatch/stream"
	"github.com/motifwatch/motifwatch/window"
)

type memWriter struct {
	mu   sync.Mutex
	msgs []kafka.Message
}

func (m *memWriter) WriteMessages(_ context.Context, msgs ...kafka.Message) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.msgs = append(m.msgs, msgs...)
	return nil
}

func graphOf(t *testing.T, edges string) *gpm.Graph {
	t.Helper()
	g, _, err := gpm.Read(strings.NewReader(edges), "test")
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestSnapshotJobPublishes: a snapshot's motif counts become gauges per
// pattern and a JSON record; a pattern gone from the next snapshot loses
// its gauge.
func TestSnapshotJobPublishes(t *testing.T) {
	reg := prometheus.NewRegistry()
	graphs := []*gpm.Graph{
		graphOf(t, "a b\nb c\nc a\nc d\n"), // a triangle and two wedges
		graphOf(t, "a b\nb c\n"),           // one wedge
	}
	out := &memWriter{}
	cfg := config.GPM{Every: time.Second, App: "motif", K: 3, Topic: "gpm"}
	j, err := newSnapshotJob(cfg, nil, reg, func(context.Context) (*gpm.Graph, error) {
		g := graphs[0]
		graphs = graphs[1:]
		return g, nil
	}, out)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.once(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, want := series(t, reg, "motifwatch_gpm_pattern_count"), `{app="motif",k="3",pattern="triangle"} 1 {app="motif",k="3",pattern="wedge"} 2`; got != want {
		t.Errorf("pattern gauges %s; want %s", got, want)
	}
	var rec gpmRecord
	if len(out.msgs) != 1 || json.Unmarshal(out.msgs[0].Value, &rec) != nil || rec.Total != 3 || rec.Edges != 4 || len(rec.Patterns) != 2 ||
		string(out.msgs[0].Key) != "motif/3" {
		t.Errorf("records %d, first %s (key %s); want one with total 3, 4 edges, 2 patterns, key motif/3", len(out.msgs), out.msgs[0].Value, out.msgs[0].Key)
	}
	if err := j.once(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, want := series(t, reg, "motifwatch_gpm_pattern_count"), `{app="motif",k="3",pattern="wedge"} 1`; got != want {
		t.Errorf("pattern gauges after the wedge-only snapshot %s; want %s", got, want)
	}
	if got, want := series(t, reg, "motifwatch_gpm_snapshots_total"), `{result="ok"} 2`; got != want {
		t.Errorf("snapshots %s; want %s", got, want)
	}
}

// TestPipelineSnapshot: the pipeline goroutine answers a snapshot request
// with its window as a static graph.
func TestPipelineSnapshot(t *testing.T) {
	proc, err := stream.New(stream.Options{Engine: cpu.New(1), Schema: window.Schema{TimeUnit: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	w := proc.Window()
	for i, e := range [][2]string{{"a", "b"}, {"b", "c"}, {"c", "a"}, {"b", "a"}} {
		u, _ := w.IDs().Intern(e[0])
		v, _ := w.IDs().Intern(e[1])
		if _, err := w.Append(window.Edge{Src: u, Dst: v, T: int64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	requests := make(chan chan<- *gpm.Graph)
	m := &miner{proc: proc}
	go func() { m.snapshot(<-requests) }() // the pipeline loop's case
	g, err := snapshotter(requests)(context.Background())
	if err != nil || g.N() != 3 || g.M() != 3 {
		t.Fatalf("snapshot: %v, err %v; want 3 vertices and 3 edges", g, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := snapshotter(requests)(ctx); err == nil {
		t.Error("snapshot with a cancelled context and no pipeline: no error")
	}
}

// TestDaemonRunsSnapshotJob runs the daemon on the embedded broker with
// the demo feed and the job every second: its metric appears and its
// records reach the topic.
func TestDaemonRunsSnapshotJob(t *testing.T) {
	cfg, err := config.Parse([]byte(`metrics: {listen: "127.0.0.1:0"}
queries:
  inline: [{name: q, delta: 1m, edges: [A -> B, B -> C]}]
alerts: {sink: stdout}
gpm: {every: 1s, app: clique, k: 3, topic: gpm-counts}
`), "gpm.yaml")
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	d := testenv.Start(t, 30*time.Second, func(ctx context.Context, started func(Info)) error {
		return Run(ctx, Options{Config: cfg, Registry: reg, Stdout: io.Discard, Started: started})
	})
	r := kafkatest.Reader(t, d.Info.Brokers, "gpm-counts", "")
	rctx, rcancel := context.WithTimeout(context.Background(), time.Minute)
	defer rcancel()
	var rec gpmRecord
	for rec.Edges == 0 { // the first snapshots may come before the feed's first edges
		m, err := r.ReadMessage(rctx)
		if err != nil {
			t.Fatalf("reading gpm-counts: %v", err)
		}
		if err := json.Unmarshal(m.Value, &rec); err != nil || rec.App != "clique" || rec.K != 3 {
			t.Fatalf("record %s: %v; want app clique, k 3", m.Value, err)
		}
	}
	// The snapshot is counted once its record is written: after the next
	// record, the first is.
	if _, err := r.ReadMessage(rctx); err != nil {
		t.Fatalf("reading gpm-counts: %v", err)
	}
	if got := series(t, reg, "motifwatch_gpm_snapshots_total"); !strings.HasPrefix(got, `{result="ok"} `) {
		t.Errorf("motifwatch_gpm_snapshots_total: %q; want ok snapshots", got)
	}
	if err := d.Stop(); err != nil {
		t.Errorf("daemon stopped with %v", err)
	}
}

// series renders the gauge or counter family name of reg as
// `{label="v",...} value` entries in gathering order.
func series(t *testing.T, reg *prometheus.Registry, name string) string {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			var ls []string
			for _, l := range m.GetLabel() {
				ls = append(ls, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
			}
			v := m.GetGauge().GetValue() + m.GetCounter().GetValue()
			out = append(out, fmt.Sprintf("{%s} %g", strings.Join(ls, ","), v))
		}
	}
	return strings.Join(out, " ")
}

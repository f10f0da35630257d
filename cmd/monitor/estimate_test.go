package main

import (
	"context"
	"fmt"
	"iter"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/daemon"
	"github.com/motifwatch/motifwatch/internal/testenv"
	"github.com/motifwatch/motifwatch/kafka"
	"github.com/motifwatch/motifwatch/kafka/kafkatest"
	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/motif/cpu"
	"github.com/motifwatch/motifwatch/window"
)

// TestEstimatedQueryFeedsMetricsNotAlerts is issue 28 item 3 in the
// daemon: a count-mode query with `estimate: 0.1` feeds
// motifwatch_query_estimate{query,bound=value|lo|hi} and the status
// page's query row (value and interval), and writes no alert record,
// while the same motif counted exactly beside it writes count records
// summing to the exact count: alerts stay exact.
func TestEstimatedQueryFeedsMetricsNotAlerts(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end over the embedded broker")
	}
	brokers := kafkatest.StartBroker(t)
	queries := writeQueries(t, `queries:
  - {name: wedge-est, delta: 600, edges: [A -> B, B -> C], estimate: 0.1}
  - {name: wedge-exact, delta: 600, edges: [A -> B, B -> C]}
`)
	cfg := strings.Replace(e2eConfig(brokers, "estimate", queries, 0), "    path-count: {mode: count}\n",
		"    wedge-est: {mode: count}\n    wedge-exact: {mode: count}\n", 1)
	d := startDaemon(t, cfg)
	const n = 3000
	edge := func(i int) kafka.Record {
		return kafka.Record{Src: fmt.Sprintf("n%d", i%50), Dst: fmt.Sprintf("n%d", (i*7+1)%50), T: 1000 + int64(i), Seq: int64(i)}
	}
	records := func(yield func(kafka.Record) bool) {
		for i := range n {
			if !yield(edge(i)) {
				return
			}
		}
	}
	// The exact count, from the CPU engine over the same edges.
	w, err := window.New(window.Schema{TimeUnit: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		r := edge(i)
		s, _ := w.IDs().Intern(r.Src)
		dd, _ := w.IDs().Intern(r.Dst)
		if _, err := w.Append(window.Edge{Src: s, Dst: dd, T: r.T}); err != nil {
			t.Fatal(err)
		}
	}
	q := &motif.Query{Name: "wedge", Nodes: []motif.Node{{Name: "A"}, {Name: "B"}, {Name: "C"}},
		Edges: []motif.Edge{{From: 0, To: 1}, {From: 1, To: 2}}, Delta: motif.TicksSpan(600)}
	p, err := motif.Compile(q, w)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cpu.New(1).Mine(context.Background(), w, p, motif.Request{Range: motif.WholeWindow(w), Horizon: motif.Batch})
	if err != nil {
		t.Fatal(err)
	}
	exact := float64(res.Matches)

	produce(t, brokers, iter.Seq[kafka.Record](records))
	var st QueryStatusView
	if !testenv.Poll(90*time.Second, 200*time.Millisecond, func() bool {
		st = queryStatus(t, d.info.MetricsAddr, "wedge-est")
		return st.found && st.q.Estimate != nil && st.q.Estimate.Roots == n
	}) {
		t.Fatalf("after 90s the status page shows %+v for wedge-est; want an estimate over %d roots", st.q.Estimate, n)
	}
	e := st.q.Estimate
	if !(e.Lo <= e.Value && e.Value <= e.Hi) || e.Confidence != 0.95 || e.Epsilon != 0.1 || math.Abs(e.Value-exact) > exact/2 {
		t.Errorf("status estimate %+v; want value near %v inside [lo, hi] at 0.95, ε 0.1", e, exact)
	}
	if st.q.Matches != 0 {
		t.Errorf("status matches of the estimated query = %d; want 0 (an estimate is not counted)", st.q.Matches)
	}
	m := testenv.Scrape(t, d.info.MetricsAddr)
	for bound, want := range map[string]float64{"value": e.Value, "lo": e.Lo, "hi": e.Hi} {
		key := `motifwatch_query_estimate{bound="` + bound + `",query="wedge-est"}`
		if got, ok := m[key]; !ok || got != want {
			t.Errorf("%s = %v (present %v); want %v as on the status page", key, got, ok, want)
		}
	}
	// The exact twin's count records reach the exact count; then, with
	// the daemon stopped, no record of the estimated query is on the topic.
	o := stoppedAlerts(t, brokers, expectation{counts: map[string]int64{"wedge-exact": res.Matches}}, d)
	if o.counts["wedge-exact"] != res.Matches {
		t.Errorf("wedge-exact: count records sum to %d; want %d", o.counts["wedge-exact"], res.Matches)
	}
	for _, a := range readAlerts(t, brokers) {
		if a.Query == "wedge-est" {
			t.Errorf("an alert record of the estimated query: %+v", a)
		}
	}
}

// QueryStatusView is one query's row of /api/status.
type QueryStatusView struct {
	q     daemon.QueryStatus
	found bool
}

func queryStatus(t *testing.T, addr, name string) QueryStatusView {
	t.Helper()
	for _, q := range getStatus(t, addr).Queries {
		if q.Name == name {
			return QueryStatusView{q: q, found: true}
		}
	}
	return QueryStatusView{}
}

// TestMineEstimateOutput: `mine --estimate` prints the value, its
// interval and the roots sampled in the table and in CSV's extra
// columns; an ε out of range is a usage error naming the flag.
func TestMineEstimateOutput(t *testing.T) {
	out, errOut, code := run(t, "mine", "--synthetic", "5000", "--motif", "M4,snap-1-1", "--delta", "1h", "--estimate", "0.1", "--progress", "0")
	if code != 0 || !strings.Contains(out, "INTERVAL (95%)") || !strings.Contains(out, "ROOTS SAMPLED") || !strings.Contains(out, "of 5,000") {
		t.Errorf("table: exit %d, stdout %q, stderr %q; want the interval and roots columns", code, out, errOut)
	}
	out, _, code = run(t, "mine", "--synthetic", "5000", "--motif", "M4", "--delta", "1h", "--estimate", "0.1", "--format", "csv", "--progress", "0")
	if head, _, _ := strings.Cut(out, "\n"); code != 0 || head != "query,delta,matches,truncated,partial,seconds,estimate,lo,hi,confidence,exact,roots_sampled,roots" {
		t.Errorf("csv: exit %d, header %q", code, head)
	}
	if _, errOut, code := run(t, "mine", "--synthetic", "100", "--motif", "M4", "--delta", "1h", "--estimate", "2"); code != 2 || !strings.Contains(errOut, "--estimate 2: want a relative error in (0, 1)") {
		t.Errorf("--estimate 2: exit %d, stderr %q; want 2 and the flag named", code, errOut)
	}
}

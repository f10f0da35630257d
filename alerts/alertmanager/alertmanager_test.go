package alertmanager

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/motifwatch/motifwatch/alerts"
)

// fakeAM is an Alertmanager's POST /api/v2/alerts: it answers status()
// and keeps the alerts of the POSTs it answers 200.
type fakeAM struct {
	status atomic.Int32
	mu     sync.Mutex
	got    []postable
	posts  atomic.Int32
}

func newFakeAM(t *testing.T) (*fakeAM, *httptest.Server) {
	f := &fakeAM{}
	f.status.Store(http.StatusOK)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.posts.Add(1)
		if r.Method != http.MethodPost || r.URL.Path != "/api/v2/alerts" || r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, "bad request line", http.StatusNotFound)
			return
		}
		body, _ := io.ReadAll(r.Body)
		code := int(f.status.Load())
		if code != http.StatusOK {
			http.Error(w, "down", code)
			return
		}
		var as []postable
		if err := json.Unmarshal(body, &as); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		f.got = append(f.got, as...)
		f.mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	return f, srv
}

func (f *fakeAM) alerts() []postable {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]postable(nil), f.got...)
}

func poll(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after 30s: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func match(i int) alerts.Alert {
	at := time.Date(2026, 12, 6, 7, 0, 0, 0, time.UTC)
	return alerts.Alert{Kind: alerts.KindMatch, Query: "ring", Description: "money goes round", MatchID: fmt.Sprintf("m%04d", i),
		Nodes: map[string]alerts.Node{"A": {ID: "acct-1"}, "B": {ID: "acct-2"}}, DetectedAt: at,
		Severity: "page", Labels: map[string]string{"team": "fraud"}, Annotations: map[string]string{"runbook_url": "https://rb/ring"},
		Source: alerts.Source{Instance: "mw-0", Topic: "edges", Group: "motifwatch"}, StatusURL: "http://mw-0:9464/"}
}

func TestPostsAlerts(t *testing.T) {
	f, srv := newFakeAM(t)
	n, err := New(Options{URL: srv.URL + "/", EndsAfter: 30 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	count := alerts.Alert{Kind: alerts.KindCount, Query: "fan", Count: 7, From: time.Unix(0, 0).UTC(), To: time.Unix(60, 0).UTC(), DetectedAt: time.Unix(61, 0)}
	n.Send([]alerts.Alert{match(1), count})
	poll(t, "Alertmanager got no 2 alerts", func() bool { return len(f.alerts()) == 2 })
	if err := n.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := f.alerts()
	at := match(1).DetectedAt
	want := postable{
		Labels: map[string]string{"alertname": "ring", "severity": "page", "team": "fraud", "instance": "mw-0", "topic": "edges",
			"consumer_group": "motifwatch", "kind": "match", "match_id": "m0001"},
		Annotations: map[string]string{"runbook_url": "https://rb/ring", "summary": "ring matched A=acct-1 B=acct-2", "description": "money goes round"},
		StartsAt:    at, EndsAt: at.Add(30 * time.Minute), GeneratorURL: "http://mw-0:9464/",
	}
	if !reflect.DeepEqual(got[0], want) {
		t.Errorf("posted\n%+v\nwant\n%+v", got[0], want)
	}
	if s := got[1].Annotations["summary"]; s != "fan: 7 matches from 1970-01-01T00:00:00Z to 1970-01-01T00:01:00Z" || got[1].Labels["alertname"] != "fan" {
		t.Errorf("count record posted as %+v", got[1])
	}
}

// TestAlertmanagerDownNeverBlocks: while Alertmanager answers 503, Send
// returns at once, the queue stays within its bytes, the oldest alerts
// are dropped and counted; once it answers again the newest get through.
func TestAlertmanagerDownNeverBlocks(t *testing.T) {
	f, srv := newFakeAM(t)
	f.status.Store(http.StatusServiceUnavailable)
	reg := prometheus.NewRegistry()
	one, _ := encode(ptr(match(0)), time.Hour)
	limit := int64(64 << 10)
	n, err := New(Options{URL: srv.URL, QueueBytes: limit, Registerer: reg})
	if err != nil {
		t.Fatal(err)
	}
	total := 4 * int(limit) / len(one) // four queues' worth
	for i := range total {
		n.Send([]alerts.Alert{match(i)})
		if q := value(n.m.queueBytes); q > float64(limit) {
			t.Fatalf("after %d sends the queue holds %v bytes; bound %d", i+1, q, limit)
		}
	}
	poll(t, "no failed POST counted", func() bool { return value(n.m.errors) >= 1 })
	dropped := value(n.m.dropped.WithLabelValues(DropQueueFull))
	if dropped < float64(total)/2 {
		t.Errorf("dropped %v of %d alerts sent while down (queue of %d bytes, %d bytes each); want most of them", dropped, total, limit, len(one))
	}
	f.status.Store(http.StatusOK)
	poll(t, "nothing delivered after Alertmanager came back", func() bool {
		return value(n.m.sent)+value(n.m.dropped.WithLabelValues(DropQueueFull)) == float64(total)
	})
	got := f.alerts()
	if last := got[len(got)-1].Labels["match_id"]; last != fmt.Sprintf("m%04d", total-1) {
		t.Errorf("the last alert delivered is %s; want the newest, m%04d", last, total-1)
	}
	if err := n.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestRefusedAndShutdown: a 400 drops the batch (rejected) without
// retrying it; at Close, alerts still undelivered at the deadline are
// dropped (shutdown), and Close returns.
func TestRefusedAndShutdown(t *testing.T) {
	f, srv := newFakeAM(t)
	f.status.Store(http.StatusBadRequest)
	n, err := New(Options{URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	n.Send([]alerts.Alert{match(1), match(2)})
	poll(t, "the refused batch is not counted", func() bool { return value(n.m.dropped.WithLabelValues(DropRejected)) == 2 })
	if p := f.posts.Load(); p != 1 {
		t.Errorf("%d POSTs; want 1 (a refused batch is not retried)", p)
	}
	f.status.Store(http.StatusBadGateway)
	n.Send([]alerts.Alert{match(3)})
	poll(t, "no failed POST", func() bool { return value(n.m.errors) >= 1 })
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := n.Close(ctx); err == nil {
		t.Error("Close with an Alertmanager down returned nil; want the deadline's error")
	}
	if d := value(n.m.dropped.WithLabelValues(DropShutdown)); d != 1 {
		t.Errorf("dropped at shutdown: %v; want 1", d)
	}
	n.Send([]alerts.Alert{match(4)}) // after Close: counted, not queued
	if d := value(n.m.dropped.WithLabelValues(DropShutdown)); d != 2 {
		t.Errorf("dropped at shutdown after a Send past Close: %v; want 2", d)
	}
}

func ptr[T any](v T) *T { return &v }

// value reads a counter or gauge.
func value(c prometheus.Metric) float64 {
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		panic(err)
	}
	if m.Counter != nil {
		return m.Counter.GetValue()
	}
	return m.Gauge.GetValue()
}

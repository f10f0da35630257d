package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/daemon"
	"github.com/motifwatch/motifwatch/internal/testenv"
	"github.com/motifwatch/motifwatch/kafka"
	"github.com/motifwatch/motifwatch/kafka/kafkatest"
)

// TestDaemonSaysWhenItCannotSee reproduces issue 24 item 5 over the
// Kafka protocol: input that is all undecodable, and edges dated long
// before the wall clock. Before, the daemon answered /readyz "ready",
// logged nothing and showed "0 edges in": blind and saying nothing. Now
// it stays ready (it consumes) but says degraded, with each condition's
// reason, in /readyz, /api/status, motifwatch_degraded and one log line.
func TestDaemonSaysWhenItCannotSee(t *testing.T) {
	t.Parallel()
	brokers := kafkatest.StartBroker(t)
	var logs testenv.SyncBuffer
	d := startDaemonWith(t, hostileConfig(t, brokers, "blind"), newTestLogger(&logs))

	var junk []kafka.Message
	for i := range 30 {
		junk = append(junk, kafka.Message{Partition: i % 3, Value: fmt.Appendf(nil, `{"src":"a%d",`, i)})
	}
	sendTo(t, brokers, false, junk...)
	// Two edges of 1970 (t in seconds): decodable and mined, but their
	// watermark trails the wall clock by decades.
	sendTo(t, brokers, false, pathEdges()...)

	want := map[string]string{"input_rejected": "30 of the last minute's 32 records were dead-lettered or late",
		"watermark_delay": "trails the wall clock by"}
	var code int
	var body string
	if !testenv.Poll(90*time.Second, 100*time.Millisecond, func() bool {
		code, body = readyz(d.info.MetricsAddr)
		for _, w := range want {
			if !strings.Contains(body, w) {
				return false
			}
		}
		return true
	}) {
		t.Fatalf("/readyz = %d %q; want degraded with %v", code, body, want)
	}
	if code != http.StatusOK || !strings.HasPrefix(body, "degraded: ") {
		t.Errorf("/readyz = %d %q; want 200 degraded: …", code, body)
	}
	m := testenv.Scrape(t, d.info.MetricsAddr)
	for cond := range want {
		if got := m[`motifwatch_degraded{condition="`+cond+`"}`]; got != 1 {
			t.Errorf("motifwatch_degraded{condition=%q} = %v; want 1", cond, got)
		}
	}
	for _, cond := range []string{"query_reload_rejected", "partition_unread", "partition_fetch_failing"} {
		if got, ok := m[`motifwatch_degraded{condition="`+cond+`"}`]; !ok || got != 0 {
			t.Errorf("motifwatch_degraded{condition=%q} = %v (present %v); want 0, present from the start", cond, got, ok)
		}
	}
	for cond := range want {
		if n := strings.Count(logs.String(), "msg=\"degraded: "+cond+"\""); n != 1 {
			t.Errorf("%d log lines 'degraded: %s'; want 1 (once when it starts)\n%s", n, cond, testenv.Tail(logs.String(), 30))
		}
	}
	// The build is named on /metrics (issue 26 item 7): one series, 1.
	builds := 0
	for k, v := range m {
		if strings.HasPrefix(k, "motifwatch_build_info{") && strings.Contains(k, `goversion="go`) && v == 1 {
			builds++
		}
	}
	if builds != 1 {
		t.Errorf("%d motifwatch_build_info series with a Go version at 1; want 1", builds)
	}
	st := getStatus(t, d.info.MetricsAddr)
	if st.State != "degraded" || !st.Ready || !strings.Contains(st.Degraded, "input_rejected") {
		t.Errorf("/api/status state %q ready %v degraded %q; want degraded, ready, input_rejected", st.State, st.Ready, st.Degraded)
	}
}

// getStatus reads /api/status.
func getStatus(t *testing.T, addr string) daemon.Status {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/api/status")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var st daemon.Status
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		t.Fatal(err)
	}
	return st
}

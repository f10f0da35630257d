package daemon

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/motifwatch/motifwatch/internal/testenv"
)

// fakeLookout is a lookout on a clock the test moves, logging to logs.
func fakeLookout(t *testing.T, maxRejected float64, maxDelay time.Duration) (*lookout, *health, *time.Time, *testenv.SyncBuffer) {
	t.Helper()
	h := newHealth()
	h.setRunning(true)
	var logs testenv.SyncBuffer
	l, err := newLookout(h, slog.New(slog.NewTextHandler(&logs, nil)), prometheus.NewRegistry(), maxRejected, maxDelay)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	l.now = func() time.Time { return now }
	return l, h, &now, &logs
}

func TestLookoutInputRejected(t *testing.T) {
	l, h, now, logs := fakeLookout(t, 0.5, 0)
	gauge := l.gauge.WithLabelValues(condInputRejected)
	state := func() string { s, _ := h.state(); return s }

	// Below minInputRecords: one bad record in a quiet minute says nothing.
	l.records(minInputRecords-1, minInputRecords-1)
	l.check()
	if state() != stateReady {
		t.Fatalf("%d rejected records of %d: state %q; want ready", minInputRecords-1, minInputRecords-1, state())
	}
	// Half rejected is not more than half.
	l.records(minInputRecords+1, 1)
	l.check()
	if state() != stateReady || gaugeValue(gauge) != 0 {
		t.Fatalf("exactly half rejected: state %q; want ready", state())
	}
	l.records(1, 1)
	l.check()
	st, why := h.state()
	if st != stateDegraded || !strings.Contains(why, "input_rejected: 11 of the last minute's 21 records") || gaugeValue(gauge) != 1 {
		t.Fatalf("11 of 21 rejected: state %q %q gauge %v; want degraded input_rejected", st, why, gaugeValue(gauge))
	}
	if ready, _ := h.status(); !ready {
		t.Errorf("degraded must stay ready for probes that restart or route")
	}
	// The counts age out of the span: a minute later the condition lifts,
	// once, with a log line.
	*now = now.Add(30 * time.Second)
	l.check()
	if state() != stateDegraded {
		t.Errorf("30 s later: %q; want still degraded", state())
	}
	*now = now.Add(31 * time.Second)
	l.check()
	l.check()
	if state() != stateReady || gaugeValue(gauge) != 0 {
		t.Errorf("61 s later: %q gauge %v; want ready", state(), gaugeValue(gauge))
	}
	log := logs.String()
	if strings.Count(log, `msg="degraded: input_rejected"`) != 1 || strings.Count(log, `msg="recovered: input_rejected"`) != 1 {
		t.Errorf("want one 'degraded' and one 'recovered' line:\n%s", log)
	}
}

func TestLookoutLogsPersistingConditionsRarely(t *testing.T) {
	l, _, now, logs := fakeLookout(t, 0.5, 0)
	for range 10 {
		l.set(condReloadRejected, "bad")
		*now = now.Add(time.Minute)
	}
	// Set at 0..9 min: logged at 0, reminded at 5 (degradedLogEvery).
	log := logs.String()
	if n, r := strings.Count(log, `msg="degraded: query_reload_rejected"`), strings.Count(log, `msg="still degraded: query_reload_rejected"`); n != 1 || r != 1 {
		t.Errorf("%d start lines and %d reminders over 10 min; want 1 and 1:\n%s", n, r, log)
	}
	l.lift(condPartitionUnread) // not in force: nothing to log
	if strings.Contains(logs.String(), "recovered") {
		t.Errorf("lifting a condition not in force logged a recovery")
	}
}

func TestLookoutWatermarkDelay(t *testing.T) {
	l, h, now, _ := fakeLookout(t, 0.5, 15*time.Minute)
	wm := now.Add(-20 * time.Minute)
	l.watermark = func() (time.Time, bool) { return wm, true }
	// No records in the last minute: an idle feed is not blind.
	l.check()
	if s, _ := h.state(); s != stateReady {
		t.Fatalf("idle feed with an old watermark: %q; want ready", s)
	}
	l.records(1, 0)
	l.check()
	if s, why := h.state(); s != stateDegraded || !strings.Contains(why, "watermark_delay: the watermark (2026-12-06T11:40:00Z) trails the wall clock by 20m0s") {
		t.Fatalf("records arriving 20 min behind: %q %q; want degraded watermark_delay", s, why)
	}
	wm = now.Add(-14 * time.Minute)
	l.check()
	if s, _ := h.state(); s != stateReady {
		t.Errorf("watermark 14 min behind (limit 15): %q; want ready", s)
	}
	// Ticks without a unit have no wall-clock time: nothing to compare.
	l.watermark = func() (time.Time, bool) { return time.Time{}, false }
	l.check()
	if s, _ := h.state(); s != stateReady {
		t.Errorf("no wall-clock watermark: %q; want ready", s)
	}
}

// A not-ready daemon reports not ready whatever is degraded: the probe
// must see the worse state.
func TestHealthNotReadyOutranksDegraded(t *testing.T) {
	h := newHealth()
	h.setRunning(true)
	h.degrade(condWatermarkDelay, "late")
	h.fail(opFetch, errTest("refused"))
	if s, why := h.state(); s != stateNotReady || !strings.Contains(why, "kafka fetch failing: refused") {
		t.Errorf("state %q %q; want not ready: kafka fetch failing", s, why)
	}
}

type errTest string

func (e errTest) Error() string { return string(e) }

func gaugeValue(g prometheus.Gauge) float64 {
	var m dto.Metric
	if err := g.Write(&m); err != nil {
		panic(err)
	}
	return m.GetGauge().GetValue()
}

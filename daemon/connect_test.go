package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/motifwatch/motifwatch/internal/ratelog"
	"github.com/motifwatch/motifwatch/kafka/kafkatest"
)

// logRecord is one captured log line.
type logRecord struct {
	level slog.Level
	msg   string
	attrs map[string]any
}

type captureHandler struct {
	mu   *sync.Mutex
	recs *[]logRecord
}

func (h captureHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h captureHandler) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h captureHandler) WithGroup(string) slog.Handler            { return h }
func (h captureHandler) Handle(_ context.Context, r slog.Record) error {
	rec := logRecord{level: r.Level, msg: r.Message, attrs: map[string]any{}}
	r.Attrs(func(a slog.Attr) bool { rec.attrs[a.Key] = a.Value.Any(); return true })
	h.mu.Lock()
	*h.recs = append(*h.recs, rec)
	h.mu.Unlock()
	return nil
}

// TestConnectLogsRateLimited drives connect on a fake clock through 40
// refused attempts, then 15 refused logins, then success: the first
// failure of each kind is logged at once (refusals as warnings, the
// login as an error naming the SASL mechanism and user), later ones at
// most every connectLogEvery with the number held back, so every failed
// attempt is logged or counted; /readyz says "connecting: <last error>"
// throughout; metrics count each failure and the one recovery.
func TestConnectLogsRateLimited(t *testing.T) {
	const refused, denied = 40, 15
	clock := time.Unix(1_000_000, 0)
	var recs []logRecord
	log := slog.New(captureHandler{mu: &sync.Mutex{}, recs: &recs})
	h := newHealth()
	pm, _ := newPipelineMetrics(nil)
	refusedErr := errors.New("127.0.0.1:1: dial tcp 127.0.0.1:1: connect: connection refused")
	authErr := fmt.Errorf("127.0.0.1:9092: could not successfully authenticate to 127.0.0.1:9092 with SASL: %w", kafkatest.ErrSASLAuthenticationFailed)
	calls := 0
	var lastErr error
	c := &connector{brokers: []string{"127.0.0.1:1"}, mechanism: "SASL SCRAM-SHA-256", user: "mw",
		retry: newRetrier(opProbe, log, h, pm), health: h, log: log,
		limit: ratelog.New(connectLogEvery, func() time.Time { return clock }), now: func() time.Time { return clock },
		sleep: func(_ context.Context, d time.Duration) bool { clock = clock.Add(d); return true },
		ping: func(context.Context) error {
			ok, why := h.status()
			want := "connecting: no answer from the brokers yet"
			if lastErr != nil {
				want = "connecting: " + lastErr.Error()
			}
			if ok || why != want {
				t.Errorf("attempt %d: status() = %v, %q; want false, %q", calls+1, ok, why, want)
			}
			calls++
			switch {
			case calls <= refused:
				lastErr = refusedErr
			case calls <= refused+denied:
				lastErr = authErr
			default:
				lastErr = nil
			}
			return lastErr
		}}
	if err := c.run(context.Background()); err != nil {
		t.Fatalf("run() = %v; want nil", err)
	}
	if ok, why := h.status(); ok || why != "pipeline not running" {
		t.Errorf("after connecting: status() = %v, %q; want false, \"pipeline not running\"", ok, why)
	}
	if n := counterValue(pm.kafkaErrors.WithLabelValues(opProbe)); n != refused+denied {
		t.Errorf("probe errors = %v; want %d", n, refused+denied)
	}
	if n := counterValue(pm.kafkaReconnects.WithLabelValues(opProbe)); n != 1 {
		t.Errorf("probe reconnects = %v; want 1", n)
	}

	byKind := map[slog.Level][]logRecord{}
	var answered []logRecord
	for _, r := range recs {
		switch {
		case strings.HasPrefix(r.msg, "kafka brokers not reachable"):
			if r.level != slog.LevelWarn {
				t.Errorf("%q at %v; want WARN", r.msg, r.level)
			}
			byKind[slog.LevelWarn] = append(byKind[slog.LevelWarn], r)
		case strings.HasPrefix(r.msg, "kafka SASL SCRAM-SHA-256 authentication failed for user \"mw\""):
			if r.level != slog.LevelError {
				t.Errorf("%q at %v; want ERROR", r.msg, r.level)
			}
			byKind[slog.LevelError] = append(byKind[slog.LevelError], r)
		case r.msg == "kafka brokers answered":
			answered = append(answered, r)
		case r.msg == "kafka probe recovered":
		default:
			t.Errorf("unexpected log line %q %v", r.msg, r.attrs)
		}
	}
	for level, first := range map[slog.Level]int{slog.LevelWarn: 1, slog.LevelError: refused + 1} {
		lines := byKind[level]
		if len(lines) == 0 || attrInt(lines[0], "attempt") != first || lines[0].attrs["held_back"] != nil {
			t.Fatalf("%v lines %v; want the first at attempt %d, nothing held back", level, lines, first)
		}
		if len(lines) < 2 {
			t.Errorf("%v: %d line(s); want later attempts logged too", level, len(lines))
		}
		for i := 1; i < len(lines); i++ {
			gap := attrInt(lines[i], "attempt") - attrInt(lines[i-1], "attempt") - 1
			if gap == 0 || attrInt(lines[i], "held_back") != gap {
				t.Errorf("%v line %d: attempt %d after %d, held_back %v; want the %d between held back and counted",
					level, i, attrInt(lines[i], "attempt"), attrInt(lines[i-1], "attempt"), lines[i].attrs["held_back"], gap)
			}
			if d := lines[i].attrs["connecting_for"].(time.Duration) - lines[i-1].attrs["connecting_for"].(time.Duration); level == slog.LevelWarn && d < connectLogEvery-time.Millisecond {
				t.Errorf("%v lines %d and %d are %v apart; want at least %v", level, i-1, i, d, connectLogEvery)
			}
		}
		if e := fmt.Sprint(lines[0].attrs["err"]); !strings.Contains(e, "127.0.0.1") {
			t.Errorf("%v line's err %q does not name the broker", level, e)
		}
	}
	if len(answered) != 1 || attrInt(answered[0], "failed_attempts") != refused+denied {
		t.Errorf("answered lines %v; want one with failed_attempts=%d", answered, refused+denied)
	}
}

// TestConnectStopped: a stop while the brokers do not answer ends the
// wait with an error that names the brokers and the last failure.
func TestConnectStopped(t *testing.T) {
	pm, _ := newPipelineMetrics(nil)
	h := newHealth()
	n := 0
	c := &connector{brokers: []string{"127.0.0.1:1"}, retry: newRetrier(opProbe, slog.New(slog.DiscardHandler), h, pm), health: h,
		log: slog.New(slog.DiscardHandler), limit: ratelog.New(connectLogEvery, nil),
		sleep: func(context.Context, time.Duration) bool { n++; return n < 3 },
		ping:  func(context.Context) error { return errors.New("connection refused") }}
	err := c.run(context.Background())
	if want := "kafka [127.0.0.1:1]: stopped before the brokers answered (3 attempts; last error: connection refused)"; err == nil || err.Error() != want {
		t.Errorf("run() = %v; want %q", err, want)
	}
}

func attrInt(r logRecord, key string) int {
	switch v := r.attrs[key].(type) {
	case int64:
		return int(v)
	case int:
		return v
	}
	return -1
}

func counterValue(c prometheus.Counter) float64 {
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		return -1
	}
	return m.GetCounter().GetValue()
}

package daemon

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/motifwatch/motifwatch/internal/ratelog"
	"github.com/motifwatch/motifwatch/kafka"
)

// connectLogEvery is how often connect logs failed attempts of one kind
// (unreachable, authentication, TLS); the next line that passes says how
// many were held back. A new kind of failure is logged at once.
const connectLogEvery = 10 * time.Second

// connector waits at start, before anything else talks to Kafka, for the
// brokers' first answer, while the HTTP server already serves: /readyz
// says "connecting: <last error>", failures are logged (rate-limited) and
// counted as probe errors, so a wrong broker list or password shows at
// once instead of as a silent hang.
type connector struct {
	brokers []string
	// mechanism names the SASL mechanism for log lines ("SASL
	// SCRAM-SHA-512"), user its user; "" without SASL.
	mechanism, user string
	ping            func(context.Context) error
	retry           *retrier // metrics and readiness (opProbe); it does not log here
	health          *health
	log             *slog.Logger
	limit           *ratelog.Limiter
	// sleep and now are time.Sleep-like and time.Now; tests give a fake
	// clock (to limit too).
	sleep func(context.Context, time.Duration) bool
	now   func() time.Time
}

// run returns nil once a broker answers, or an error naming the last
// failure when ctx ends first.
func (c *connector) run(ctx context.Context) error {
	c.health.setConnecting(true)
	defer c.health.setConnecting(false)
	now := c.now
	if now == nil {
		now = time.Now
	}
	start := now()
	var last error
	for n := 1; ; n++ {
		err := c.ping(ctx)
		if err == nil {
			c.retry.succeeded()
			if n > 1 {
				c.log.Info("kafka brokers answered", "brokers", c.brokers, "failed_attempts", n-1, "after", now().Sub(start).Round(time.Millisecond))
			}
			return nil
		}
		if ctx.Err() != nil {
			if last == nil {
				last = err
			}
			return fmt.Errorf("kafka %v: stopped before the brokers answered (%d attempts; last error: %w)", c.brokers, n-1, last)
		}
		last = err
		wait := c.retry.failed(err, false)
		c.report(n, wait, err, now().Sub(start))
		if !c.sleep(ctx, wait) {
			return fmt.Errorf("kafka %v: stopped before the brokers answered (%d attempts; last error: %w)", c.brokers, n, last)
		}
	}
}

// report logs failed attempt n: authentication and TLS failures as
// errors (retrying will not fix them without a change on one side), the
// others as warnings; at most one line per kind every connectLogEvery.
func (c *connector) report(n int, wait time.Duration, err error, since time.Duration) {
	kind, level, msg := "unreachable", slog.LevelWarn, "kafka brokers not reachable; retrying"
	switch {
	case kafka.IsAuthError(err):
		mech := c.mechanism
		if mech == "" {
			mech = "SASL"
		}
		kind, level = "auth", slog.LevelError
		msg = fmt.Sprintf("kafka %s authentication failed for user %q (check kafka.sasl: mechanism, username, password); retrying", mech, c.user)
	case kafka.IsTLSError(err):
		kind, level = "tls", slog.LevelError
		msg = "kafka TLS handshake failed (check kafka.tls: ca_file, server_name, the client certificate); retrying"
	}
	ok, held := c.limit.Allow(kind)
	if !ok {
		return
	}
	attrs := []any{"brokers", c.brokers, "attempt", n, "connecting_for", since.Round(time.Millisecond), "next_attempt_in", wait, "err", err}
	if held > 0 {
		attrs = append(attrs, "held_back", held)
	}
	c.log.Log(context.Background(), level, msg, attrs...)
}

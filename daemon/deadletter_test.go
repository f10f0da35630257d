package daemon

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/alerts"
	"github.com/motifwatch/motifwatch/config"
	"github.com/motifwatch/motifwatch/kafka"
	"github.com/motifwatch/motifwatch/kafka/kafkatest"
	"github.com/motifwatch/motifwatch/stream"
)

// scriptedDLQ answers each Write from a script: failing transiently the
// first `transient` calls, losing the records whose offsets are in lose;
// it notes how many commits the source had seen at each call.
type scriptedDLQ struct {
	src       *fakeSource
	transient int
	lose      map[int64]bool
	calls     []int // records per call
	commitsAt []int // len(src.commits) at each call
}

func (f *scriptedDLQ) Write(_ context.Context, recs []kafka.DeadRecord) (kafka.DeadOutcome, error) {
	f.calls = append(f.calls, len(recs))
	f.commitsAt = append(f.commitsAt, len(f.src.commits))
	if f.transient > 0 {
		f.transient--
		return kafka.DeadOutcome{Retry: recs}, errors.New("dial tcp: connection refused")
	}
	var out kafka.DeadOutcome
	for _, r := range recs {
		if f.lose[r.Msg.Offset] {
			out.Lost = append(out.Lost, kafka.LostRecord{DeadRecord: r, Err: kafkatest.ErrMessageSizeTooLarge})
			out.Refused += 2
		} else {
			out.Written = append(out.Written, r)
		}
	}
	return out, nil
}

func garbage(off int64) kafka.Message {
	return kafka.Message{Topic: "edges", Partition: 0, Offset: off, HighWaterMark: off + 2, Value: fmt.Appendf(nil, `{"src":"g%d`, off)}
}

// TestPipelineDeadLettersBatched: a batch's dead letters go in one Write
// (one acknowledged write per record ran at ~385 records/s), a transient
// failure is retried, and no offset is committed before the dead letters
// of the records below it are written.
func TestPipelineDeadLettersBatched(t *testing.T) {
	p, _, _ := capPipeline(t, stream.Options{}, 0, time.Unix(1_800_000_000, 0))
	src := &fakeSource{}
	dlq := &scriptedDLQ{src: src, transient: 1}
	useSource(p, src)
	p.admit.dead.dlq = dlq
	p.admit.dead.retry = newRetrier(opDeadLetter, p.parts.log, nil, p.parts.pm)
	ctx := context.Background()
	const n = 1000
	for off := range int64(n) {
		if err := takeRecord(ctx, p, garbage(off)); err != nil {
			t.Fatal(err)
		}
	}
	if len(dlq.calls) != 0 {
		t.Fatalf("%d writes before the batch ended; want the dead letters queued", len(dlq.calls))
	}
	if err := p.batch(ctx); err != nil {
		t.Fatal(err)
	}
	if len(dlq.calls) != 2 || dlq.calls[0] != n || dlq.calls[1] != n {
		t.Errorf("writes of %v records; want one of %d, failed, and its retry", dlq.calls, n)
	}
	if dlq.commitsAt[1] != 0 || len(src.commits) != 1 || src.commits[0][0] != n {
		t.Errorf("commits %v, %v of them before the dead letters were written; want one commit of offset %d, after", src.commits, dlq.commitsAt, n)
	}
	if p.stats.DeadLettered != n || p.stats.Records != n {
		t.Errorf("stats %+v; want %d records dead-lettered", p.stats, n)
	}
}

// TestPipelineDeadLetterLost: a record the dead-letter topic refuses for
// good is counted lost and logged at error with its source; the pipeline
// goes on and commits past it (a retry forever wedged the daemon).
func TestPipelineDeadLetterLost(t *testing.T) {
	p, _, log := capPipeline(t, stream.Options{}, 0, time.Unix(1_800_000_000, 0))
	src := &fakeSource{}
	useSource(p, src)
	p.admit.dead.dlq = &scriptedDLQ{src: src, lose: map[int64]bool{1: true, 2: true, 3: true, 5: true}}
	ctx := context.Background()
	for off := range int64(6) {
		if err := takeRecord(ctx, p, garbage(off)); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.batch(ctx); err != nil {
		t.Fatal(err)
	}
	if p.stats.DeadLetterLost != 4 || p.stats.DeadLettered != 2 {
		t.Errorf("stats %+v; want 4 lost, 2 dead-lettered", p.stats)
	}
	if len(src.commits) != 1 || src.commits[0][0] != 6 {
		t.Errorf("commits %v; want offset 6 committed", src.commits)
	}
	if out := log.String(); !strings.Contains(out, "level=ERROR") || !strings.Contains(out, "sources=edges/0@1-3,5 ") {
		t.Errorf("log lacks the error naming edges/0@1-3,5:\n%s", out)
	}
}

// TestStopLogCountsAlertsWritten: the stop log's alerts= counts match
// records written, not matches held back by a rate limit (those are
// rate_limited=).
func TestStopLogCountsAlertsWritten(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	p, _, log := capPipeline(t, stream.Options{}, 0, now)
	if err := p.miner.router.SetQueries(map[string]alerts.QueryOptions{"path": {Mode: alerts.ModeEnumerate, RateLimit: 0.001, Burst: 1}}); err != nil {
		t.Fatal(err)
	}
	p.shutdownTimeout = 10 * time.Second
	ctx := context.Background()
	base := now.Unix()
	// a→b then b→c, b→d, b→e: three path matches; the last edge moves
	// the watermark past them.
	for i, e := range [][2]string{{"a", "b"}, {"b", "c"}, {"b", "d"}, {"b", "e"}, {"x", "y"}} {
		if err := takeRecord(ctx, p, record(int64(i), e[0], e[1], base+int64(i))); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.finish(); err != nil {
		t.Fatal(err)
	}
	if p.stats.Alerts != 1 || p.stats.RateLimited != 2 {
		t.Errorf("stats alerts %d, rate limited %d; want 1 alerted, 2 held back", p.stats.Alerts, p.stats.RateLimited)
	}
	if !strings.Contains(log.String(), "alerts=1 rate_limited=2") {
		t.Errorf("stop log lacks alerts=1 rate_limited=2:\n%s", log)
	}
}

// TestDeadLetterCapBounds: config's bounds of kafka.dead_letter_max_bytes
// are ingest's (config does not import ingest).
func TestDeadLetterCapBounds(t *testing.T) {
	if config.DefaultDeadLetterMaxBytes != kafka.DefaultDeadLetterMaxBytes || config.MinDeadLetterMaxBytes != kafka.MinDeadLetterMaxBytes {
		t.Errorf("config default/min %d/%d; ingest %d/%d", config.DefaultDeadLetterMaxBytes, config.MinDeadLetterMaxBytes,
			kafka.DefaultDeadLetterMaxBytes, kafka.MinDeadLetterMaxBytes)
	}
}

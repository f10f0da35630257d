package daemon

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/alerts"
	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/kafka"
	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/motif/cpu"
	"github.com/motifwatch/motifwatch/stream"
	"github.com/motifwatch/motifwatch/window"
)

type sentDead struct {
	msg    kafka.Message
	reason string
}

type fakeDLQ struct{ sent []sentDead }

func (f *fakeDLQ) Write(_ context.Context, recs []kafka.DeadRecord) (kafka.DeadOutcome, error) {
	for _, r := range recs {
		f.sent = append(f.sent, sentDead{r.Msg, r.Reason})
	}
	return kafka.DeadOutcome{Written: recs}, nil
}

// capPipeline is a pipeline without Kafka: records go in through
// takeRecord (the one take path, takeChunk), dead letters into a fakeDLQ.
func capPipeline(t testing.TB, opts stream.Options, maxFuture time.Duration, now time.Time) (*pipeline, *fakeDLQ, *bytes.Buffer) {
	t.Helper()
	var log bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&log, nil))
	opts.Engine, opts.Schema, opts.Logger = cpu.New(1), window.Schema{TimeUnit: time.Second}, logger
	proc, err := stream.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	q := &motif.Query{Name: "path", Delta: motif.TicksSpan(3600), Nodes: []motif.Node{{Name: "A"}, {Name: "B"}, {Name: "C"}},
		Edges: []motif.Edge{{From: 0, To: 1}, {From: 1, To: 2}}}
	if err := proc.SetQueries([]stream.Query{{Query: q, Enumerate: true}}); err != nil {
		t.Fatal(err)
	}
	router, err := alerts.NewRouter(alerts.RouterOptions{Interval: time.Minute}, &memSink{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := router.SetQueries(map[string]alerts.QueryOptions{"path": {Mode: alerts.ModeEnumerate}}); err != nil {
		t.Fatal(err)
	}
	dec, err := ingest.NewDecoder(ingest.DecodeOptions{NodeKeys: opts.NodeKeys})
	if err != nil {
		t.Fatal(err)
	}
	pm, err := newPipelineMetrics(nil)
	if err != nil {
		t.Fatal(err)
	}
	dlq := &fakeDLQ{}
	parts := &pipelineParts{log: logger, dlq: dlq, dec: dec, pm: pm, schema: window.Schema{TimeUnit: time.Second}}
	p := parts.assemble(start{reorder: ingest.NewReorder(0, 0, nil)}, testMode(&fakeSource{}), proc, router,
		settings{batchSize: testBatchSize, future: newFutureCap(maxFuture, time.Second, func() time.Time { return now })})
	return p, dlq, &log
}

func record(off int64, src, dst string, t int64) kafka.Message {
	return kafka.Message{Topic: "edges", Partition: 0, Offset: off, HighWaterMark: off + 1,
		Value: fmt.Appendf(nil, `{"src":%q,"dst":%q,"time":%d}`, src, dst, t)}
}

// TestPipelineCapsDeadLetter: a record dated past max_future, one older
// than the watermark (late), and edges whose new node ids exceed
// max_nodes all reach the dead-letter topic with their reason and source
// offset, and the record accounting still adds up.
func TestPipelineCapsDeadLetter(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	p, dlq, log := capPipeline(t, stream.Options{MaxNodes: 4}, time.Hour, now)
	ctx := context.Background()
	base := now.Unix()
	in := []kafka.Message{
		record(0, "a", "b", base),
		record(1, "b", "c", base+1),
		record(2, "x", "y", base+100*365*86400), // a broken clock: a century ahead
		record(3, "c", "d", base+2),             // d is the 4th id
		record(4, "e", "f", base+3),             // two more ids: over max_nodes 4
		record(5, "a", "d", base+4),             // live ids only: taken
	}
	for _, m := range in {
		if err := takeRecord(ctx, p, m); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.batch(ctx); err != nil {
		t.Fatal(err)
	}
	// The watermark is now base+3 (no lateness; one tick below the newest
	// edge, which may still get ties): a far-past edge is late.
	in = append(in, record(6, "p", "q", base-50*365*86400))
	if err := takeRecord(ctx, p, in[6]); err != nil {
		t.Fatal(err)
	}
	if err := p.batch(ctx); err != nil {
		t.Fatal(err)
	}
	want := []struct {
		offset int64
		reason string
	}{
		{2, "future edge: t=4953600000 is more than window.max_future 1h0m0s (3600 ticks) after 1800000001"},
		{4, "node cap: edge e->f would add 2 node id(s) to the 4 live (window.max_nodes 4)"},
		{6, "late edge: t=223200000 is not after the watermark 1800000003"},
	}
	if len(dlq.sent) != len(want) {
		t.Fatalf("dead-lettered %d records: %+v; want %d", len(dlq.sent), dlq.sent, len(want))
	}
	for i, w := range want {
		got := dlq.sent[i]
		if got.msg.Offset != w.offset || got.msg.Topic != "edges" || !strings.Contains(got.reason, w.reason) || !bytes.Equal(got.msg.Value, in[w.offset].Value) {
			t.Errorf("dead letter %d = offset %d %q (value %s); want offset %d, reason %q, the record's value", i, got.msg.Offset, got.reason, got.msg.Value, w.offset, w.reason)
		}
	}
	s := p.stats
	buffered := int64(p.batcher.reorder.Len())
	if s.Records != 7 || s.Appended != 3 || buffered != 1 || s.DeadLettered != 2 || s.Late != 1 || s.Records != s.Appended+buffered+s.SelfLoops+s.Late+s.DeadLettered {
		t.Errorf("stats %+v, %d buffered; want 7 records = 3 appended + 1 buffered + 1 late + 2 dead-lettered", s, buffered)
	}
	if p.batcher.reorder.MaxT() != base+4 {
		t.Errorf("newest edge time = %d; want %d: the future record must not move it", p.batcher.reorder.MaxT(), base+4)
	}
	for _, msg := range []string{"cap reached: future edges go to the dead-letter topic", "node cap reached"} {
		if !strings.Contains(log.String(), msg) {
			t.Errorf("log lacks %q:\n%s", msg, log)
		}
	}
}

// TestFutureCapFollowsTheStream: the reference is the later of the wall
// clock and the newest edge, so a replay running ahead of the clock goes
// on, step by step; 0 turns the check off.
func TestFutureCapFollowsTheStream(t *testing.T) {
	now := time.Unix(1000, 0)
	f := newFutureCap(time.Minute, time.Second, func() time.Time { return now })
	for _, c := range []struct {
		t, newest int64
		refused   bool
	}{
		{1060, 0, false},               // at the limit
		{1061, 0, true},                // past it
		{5000, 4990, false},            // ahead of the clock, near the newest edge
		{5100, 4990, true},             // too far past the newest edge
		{1 << 62, 1<<63 - 10, false},   // the limit overflows: nothing to refuse
		{-1 << 62, -1 << 63, false},    // far past is the reorder buffer's business (late)
		{1<<63 - 1, -1 << 63, true},    // the end of time, on a fresh start
		{1<<63 - 1, 1<<63 - 30, false}, // already there: nothing more to protect
	} {
		if got := f.check(c.t, c.newest) != ""; got != c.refused {
			t.Errorf("check(t=%d, newest=%d) refused = %v; want %v", c.t, c.newest, got, c.refused)
		}
	}
	off := newFutureCap(0, time.Second, nil)
	if off.check(1<<63-1, 0) != "" {
		t.Errorf("max_future 0 refused an edge; want the check off")
	}
}

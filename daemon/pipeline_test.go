package daemon

import (
	"context"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/alerts"
	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/kafka"
	"github.com/motifwatch/motifwatch/motif/cpu"
	"github.com/motifwatch/motifwatch/stream"
	"github.com/motifwatch/motifwatch/window"
)

type fakeSource struct{ commits []map[int]int64 }

func (f *fakeSource) Next(ctx context.Context) (*kafka.Chunk, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func (f *fakeSource) Done(*kafka.Chunk) {}
func (f *fakeSource) Pause([]int)       {}
func (f *fakeSource) Seek(int, int64)   {}

func (f *fakeSource) Commit(_ context.Context, offsets map[int]int64) error {
	f.commits = append(f.commits, offsets)
	return nil
}

// testMode is a single instance's mode without Kafka: records from src,
// commits to it, every partition its duty, no takeover check.
func testMode(src interface {
	recordSource
	offsetCommitter
}) mode {
	return mode{src: src, commits: groupCommits{src}, duty: everyPartition{}, guard: noTakeover{}}
}

// testBatchSize is the batch_size of test pipelines (config's default):
// their records close no batch unless a test says.
const testBatchSize = 10_000

// takeRecord takes ms in through the pipeline's one take path
// (takeChunk), a chunk per record, decoded as the fetcher decodes
// (kafka.Fetcher: the edge keeps a small record's value as Raw).
func takeRecord(ctx context.Context, p *pipeline, ms ...kafka.Message) error {
	for _, m := range ms {
		e, err := p.parts.dec.Decode(m.Value, ingest.Origin{Topic: m.Topic, Partition: m.Partition, Offset: m.Offset})
		if err == nil && len(m.Value) <= ingest.RawKeepMax {
			e.Raw = m.Value
		}
		c := &kafka.Chunk{Partition: m.Partition, Fetched: time.Now(), Recs: []kafka.Message{m}, Edges: []ingest.Edge{e}, Errs: []error{err}}
		if err := p.takeChunk(ctx, c); err != nil {
			return err
		}
	}
	return nil
}

// useSource makes src the pipeline's record source and commit policy.
func useSource(p *pipeline, src interface {
	recordSource
	offsetCommitter
}) {
	p.in.src, p.commits.policy = src, groupCommits{src}
}

// barePipeline is a pipeline of proc and router over r, reading from and
// committing to src, with nothing else of the daemon (no metrics, no
// decoder): for its commits.
func barePipeline(proc *stream.Processor, router *alerts.Router, r *ingest.Reorder, src interface {
	recordSource
	offsetCommitter
}) *pipeline {
	return (&pipelineParts{}).assemble(start{reorder: r}, testMode(src), proc, router, settings{batchSize: testBatchSize})
}

// commitNow commits what p has settled, as a batch's mining does after
// its flush.
func commitNow(ctx context.Context, p *pipeline) error {
	return p.commits.commit(ctx, p.committable(), p.miner.router.Settled())
}

type memSink struct{ n int }

func (m *memSink) Write(_ context.Context, as []alerts.Alert) error { m.n += len(as); return nil }
func (m *memSink) Close() error                                     { return nil }

// TestCommitWaitsForCountRecords: a count-mode query's matches are only
// durable once the interval's count record is written, so the offsets of
// the batches that produced them are committed only then.
func TestCommitWaitsForCountRecords(t *testing.T) {
	clock := time.Date(2026, 1, 1, 0, 0, 10, 0, time.UTC)
	sink := &memSink{}
	router, err := alerts.NewRouter(alerts.RouterOptions{Interval: time.Minute}, sink, nil, func() time.Time { return clock })
	if err != nil {
		t.Fatal(err)
	}
	if err := router.SetQueries(map[string]alerts.QueryOptions{"c": {Mode: alerts.ModeCount}}); err != nil {
		t.Fatal(err)
	}
	proc, err := stream.New(stream.Options{Engine: cpu.New(1), Schema: window.Schema{TimeUnit: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	src := &fakeSource{}
	p := barePipeline(proc, router, ingest.NewReorder(0, 0, nil), src)

	p.admit.pos.next[0] = 10
	router.AddCount("c", 3) // matches of the batch that ends at offset 10
	if err := router.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := commitNow(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	if len(src.commits) != 0 {
		t.Fatalf("committed %v while the count record was still pending", src.commits)
	}
	clock = clock.Add(time.Minute) // the interval ends: the next flush writes its count
	p.admit.pos.next[0] = 20
	if err := router.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := commitNow(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	if sink.n != 1 || len(src.commits) != 1 || src.commits[0][0] != 20 {
		t.Fatalf("after the count record (%d written): commits %v; want offset 20 committed", sink.n, src.commits)
	}
}

// TestCommittableStopsAtBufferedEdges: offsets never pass an edge still
// waiting in the reorder buffer.
func TestCommittableStopsAtBufferedEdges(t *testing.T) {
	proc, _ := stream.New(stream.Options{Engine: cpu.New(1), Schema: window.Schema{TimeUnit: time.Second}})
	r := ingest.NewReorder(100, 0, nil)
	r.Add(ingest.Edge{Src: "a", Dst: "b", T: 50, Origin: ingest.Origin{Partition: 1, Offset: 7}})
	p := barePipeline(proc, nil, r, &fakeSource{})
	p.admit.pos.next = map[int]int64{0: 30, 1: 9}
	got := p.committable()
	if got[0] != 30 || got[1] != 7 {
		t.Errorf("committable = %v; want partition 0 at 30, partition 1 held at its buffered offset 7", got)
	}
}

// TestCommittableNeverGoesBackOverHistory: history re-read into the
// reorder buffer lies below the commit the pipeline started from; a
// commit made while it is still buffered keeps that start.
func TestCommittableNeverGoesBackOverHistory(t *testing.T) {
	proc, _ := stream.New(stream.Options{Engine: cpu.New(1), Schema: window.Schema{TimeUnit: time.Second}})
	r := ingest.NewReorder(100, 0, nil)
	r.Add(ingest.Edge{Src: "a", Dst: "b", T: 50, History: true, Origin: ingest.Origin{Partition: 0, Offset: 3}})
	p := barePipeline(proc, nil, r, &fakeSource{})
	p.admit.pos.historyBefore, p.admit.pos.next = map[int]int64{0: 10}, map[int]int64{0: 12}
	if got := p.committable(); got[0] != 10 {
		t.Errorf("committable = %v; want partition 0 at its start 10, not back at the buffered history edge 3", got)
	}
}

package kafka

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/motifwatch/motifwatch/ingest"
)

func jsonDecoder(t testing.TB) *ingest.Decoder {
	t.Helper()
	d, err := ingest.NewDecoder(ingest.DecodeOptions{Format: "json", Src: "src", Dst: "dst", Time: "time", Tick: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func edgeRecord(part, i int) kafkago.Message {
	return kafkago.Message{Partition: part, Value: fmt.Appendf(nil, `{"src":"p%d","dst":"n%d","time":%d}`, part, i, 1000+i)}
}

// nextChunk returns the fetcher's next chunk, failing after timeout.
func nextChunk(t *testing.T, next func(context.Context) (*Chunk, error), timeout time.Duration) *Chunk {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	for {
		c, err := next(ctx)
		if err == nil {
			return c
		}
		if ctx.Err() != nil {
			t.Fatalf("no chunk within %v (last: %v)", timeout, err)
		}
		t.Logf("fetch error (retried): %v", err)
	}
}

// TestFetcherReadsEachPartitionFromItsOffset: every record from each
// partition's start offset on comes once, in offset order per partition,
// decoded, with its value intact; Lag reaches 0.
func TestFetcherReadsEachPartitionFromItsOffset(t *testing.T) {
	const parts, perPart = 3, 50
	brokers := newCluster(t, parts, "edges")
	var msgs []kafkago.Message
	for i := range parts * perPart {
		msgs = append(msgs, edgeRecord(i%parts, i/parts))
	}
	produce(t, brokers, "edges", msgs...)

	from := map[int]int64{0: kafkago.FirstOffset, 1: 10, 2: perPart - 1}
	f, err := NewFetcher(FetcherOptions{Brokers: brokers, Topic: "edges", Decoder: jsonDecoder(t), MaxWait: 50 * time.Millisecond}, from)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[int]int{0: perPart, 1: perPart - 10, 2: 1}
	got := map[int][]int64{}
	for n := 0; n < want[0]+want[1]+want[2]; {
		c := nextChunk(t, f.Next, time.Minute)
		for i, m := range c.Recs {
			if m.Partition != c.Partition || c.Errs[i] != nil {
				t.Fatalf("record %d/%d in a chunk of partition %d, decoded with %v", m.Partition, m.Offset, c.Partition, c.Errs[i])
			}
			wantValue := edgeRecord(m.Partition, int(m.Offset)).Value
			if string(m.Value) != string(wantValue) || c.Edges[i].Origin.Offset != m.Offset || c.Edges[i].T != 1000+m.Offset {
				t.Fatalf("record %d/%d: value %q, edge %+v; want %q", m.Partition, m.Offset, m.Value, c.Edges[i], wantValue)
			}
			got[m.Partition] = append(got[m.Partition], m.Offset)
			n++
		}
		f.Done(c)
	}
	for p, offs := range got {
		start := int64(perPart - want[p])
		wantOffs := make([]int64, want[p])
		for i := range wantOffs {
			wantOffs[i] = start + int64(i)
		}
		if !slices.Equal(offs, wantOffs) {
			t.Errorf("partition %d: offsets %v; want %v", p, offs, wantOffs)
		}
	}
	if lag := f.Lag(); !reflect.DeepEqual(lag, map[int]int64{0: 0, 1: 0, 2: 0}) {
		t.Errorf("Lag() = %v; want 0 for each partition", lag)
	}
}

// TestFetcherBoundsInFlightBytes: chunks not handed back hold their
// bytes, and the fetcher waits for room: 60 records of 100 KB, a bound of
// 1 MiB, a reader that holds every chunk until the fetcher stops
// delivering: what it holds stays within the bound plus one record batch
// (a broker answers at least one whole batch).
func TestFetcherBoundsInFlightBytes(t *testing.T) {
	brokers := newCluster(t, 1, "edges")
	const n, size, bound = 60, 100_000, 1 << 20
	pad := strings.Repeat("x", size)
	var msgs []kafkago.Message
	for i := range n {
		m := edgeRecord(0, i)
		m.Value = append(m.Value[:len(m.Value)-1], `,"pad":"`+pad+`"}`...)
		msgs = append(msgs, m)
	}
	tr := &kafkago.Transport{}
	defer tr.CloseIdleConnections()
	w := &kafkago.Writer{Transport: tr, Addr: kafkago.TCP(brokers...), Topic: "edges", BatchSize: 1, RequiredAcks: kafkago.RequireAll}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := w.WriteMessages(ctx, msgs...); err != nil {
		t.Fatal(err)
	}
	w.Close()

	f, err := NewFetcher(FetcherOptions{Brokers: brokers, Topic: "edges", Decoder: jsonDecoder(t), MaxWait: 20 * time.Millisecond,
		InFlightBytes: bound}, map[int]int64{0: 0})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// The first chunk comes however long a loaded machine takes; then a
	// second without one is taken as the fetcher waiting for room (on a
	// slow machine it may stop early: fewer records held, still checked).
	first := nextChunk(t, f.Next, time.Minute)
	held := []*Chunk{first}
	records := len(first.Recs)
	for {
		wctx, wcancel := context.WithTimeout(context.Background(), time.Second)
		c, err := f.Next(wctx)
		wcancel()
		if errors.Is(err, context.DeadlineExceeded) {
			break // the fetcher waits for room
		}
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
		records += len(c.Recs)
	}
	now, peak := f.InFlight()
	if limit := int64(bound + size + 1000); peak > limit || now > limit {
		t.Errorf("in flight %d bytes, peak %d; want at most %d (the bound plus one record)", now, peak, limit)
	}
	if records == 0 || records == n {
		t.Fatalf("%d of %d records fetched while none was handed back; want some, not all", records, n)
	}
	for _, c := range held {
		f.Done(c)
	}
	for records < n {
		c := nextChunk(t, f.Next, time.Minute)
		records += len(c.Recs)
		f.Done(c)
	}
	t.Logf("in flight peak %d bytes (bound %d)", peak, bound)
}

// TestFetcherPause: a paused partition is not fetched (after the fetch
// under way) until it is resumed; the others go on.
func TestFetcherPause(t *testing.T) {
	brokers := newCluster(t, 2, "edges")
	f, err := NewFetcher(FetcherOptions{Brokers: brokers, Topic: "edges", Decoder: jsonDecoder(t), MaxWait: 20 * time.Millisecond},
		map[int]int64{0: 0, 1: 0})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.Pause([]int{1})
	// A fetch of partition 1 may be under way: wait until it is over,
	// not for a while. A Seek wakes the paused partition to place itself
	// (after any fetch under way) and hand out a Position; then it parks
	// until resumed. Nothing is produced before, so whatever was under
	// way came back empty.
	f.Seek(1, 0)
	for {
		c := nextChunk(t, f.Next, time.Minute)
		parked := c.Partition == 1 && c.Position != nil && c.Position.Seek
		if len(c.Recs) > 0 {
			t.Fatalf("records of partition %d before any was produced", c.Partition)
		}
		f.Done(c)
		if parked {
			break
		}
	}
	produce(t, brokers, "edges", edgeRecord(0, 0), edgeRecord(1, 0), edgeRecord(0, 1), edgeRecord(1, 1))
	var got []int
	for len(got) < 2 {
		c := nextChunk(t, f.Next, time.Minute)
		for _, m := range c.Recs {
			got = append(got, m.Partition)
		}
		f.Done(c)
	}
	// Nothing more may come while partition 1 is paused: a negative
	// check can only watch for a while (longer than MaxWait, so a fetch
	// that broke the pause would have returned).
	quiet, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if c, err := f.Next(quiet); err == nil {
		t.Fatalf("a chunk of partition %d while partition 1 is paused and 0 is read", c.Partition)
	}
	if slices.Contains(got, 1) {
		t.Fatalf("records of partitions %v; partition 1 was paused", got)
	}
	f.Pause(nil)
	c := nextChunk(t, f.Next, time.Minute)
	if c.Partition != 1 || len(c.Recs) != 2 {
		t.Errorf("after resuming: %d records of partition %d; want both of partition 1", len(c.Recs), c.Partition)
	}
}

// TestGroupFetcherCommitResumeAndStandby: a lone member reads every
// partition (the whole-topic protocol), commits, and leaves; a member
// standing by meanwhile then reads from exactly the commit.
func TestGroupFetcherCommitResumeAndStandby(t *testing.T) {
	const parts, perPart = 3, 6
	brokers := newCluster(t, parts, "edges")
	var msgs []kafkago.Message
	for i := range parts * perPart {
		msgs = append(msgs, edgeRecord(i%parts, i/parts))
	}
	produce(t, brokers, "edges", msgs...)
	newGroupFetcher := func() *GroupFetcher {
		g, err := NewGroupFetcher(MemberOptions{Brokers: brokers, Topic: "edges", Group: "g",
			HeartbeatInterval: 100 * time.Millisecond, SessionTimeout: 6 * time.Second, RebalanceTimeout: 5 * time.Second},
			FetcherOptions{Decoder: jsonDecoder(t), MaxWait: 20 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { g.Close() })
		return g
	}
	g1 := newGroupFetcher()
	for n := 0; n < parts*perPart; {
		c := nextChunk(t, g1.Next, time.Minute)
		n += len(c.Recs)
		g1.Done(c)
	}
	if ps := g1.Partitions(); !slices.Equal(ps, []int{0, 1, 2}) {
		t.Fatalf("a lone member reads %v; want every partition", ps)
	}
	commit := map[int]int64{0: perPart - 2, 1: perPart - 2, 2: 1}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := g1.Commit(ctx, commit); err != nil {
		t.Fatal(err)
	}

	// A second member joins: the rebalance gives one of the two (the
	// group's leader) everything, from the commit, and the other nothing.
	g2 := newGroupFetcher()
	type read struct {
		member int
		parts  map[int][]int64
	}
	reads := make(chan read, 16)
	pump := func(member int, g *GroupFetcher) {
		for {
			c, err := g.Next(context.Background())
			if errors.Is(err, ErrClosed) {
				return
			}
			if err != nil {
				continue
			}
			r := read{member, map[int][]int64{}}
			for _, m := range c.Recs {
				r.parts[m.Partition] = append(r.parts[m.Partition], m.Offset)
			}
			g.Done(c)
			reads <- r
		}
	}
	go pump(1, g1)
	go pump(2, g2)
	want := map[int][]int64{0: {4, 5}, 1: {4, 5}, 2: {1, 2, 3, 4, 5}}
	collect := func(what string) int {
		got, by := map[int][]int64{}, 0
		for n := 0; n < 9; {
			select {
			case r := <-reads:
				if by != 0 && r.member != by {
					t.Fatalf("%s: both members read", what)
				}
				by = r.member
				for p, offs := range r.parts {
					got[p] = append(got[p], offs...)
					n += len(offs)
				}
			case <-time.After(30 * time.Second):
				t.Fatalf("%s: no records within 30s (got %v)", what, got)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: read %v; want %v (from the commit)", what, got, want)
		}
		return by
	}
	active := collect("after the second member joined")
	quiet := time.After(300 * time.Millisecond)
	select {
	case r := <-reads:
		t.Fatalf("member %d read %v more", r.member, r.parts)
	case <-quiet:
	}
	// The active member leaves; the other takes over, from the commit.
	closing := map[int]*GroupFetcher{1: g1, 2: g2}[active]
	if err := closing.Close(); err != nil {
		t.Fatal(err)
	}
	if by := collect("after the active member left"); by == active {
		t.Errorf("member %d read after it left", by)
	}
}

// TestFetcherReportsClientErrors: once the broker is gone, each failed
// fetch is counted (OnFetchError, with the partition: the daemon's fetch
// errors) and Next
// returns an error naming the partition (readiness goes down), while the
// partition keeps retrying by itself.
func TestFetcherReportsClientErrors(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "edges"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close) // the test closes it early; this on a failure before
	brokers := c.ListenAddrs()
	produce(t, brokers, "edges", edgeRecord(0, 0))
	var errs atomic.Int64
	f, err := NewFetcher(FetcherOptions{Brokers: brokers, Topic: "edges", Decoder: jsonDecoder(t), MaxWait: 20 * time.Millisecond,
		OnFetchError: func(p int, err error) {
			if p == 0 && strings.Contains(err.Error(), "edges partition 0") {
				errs.Add(1)
			}
		}}, map[int]int64{0: 0})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for {
		c := nextChunk(t, f.Next, time.Minute)
		n := len(c.Recs)
		f.Done(c)
		if n > 0 {
			break
		}
	}
	c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = f.Next(ctx)
	if err == nil || ctx.Err() != nil || !strings.Contains(err.Error(), "edges partition 0") {
		t.Fatalf("Next after the broker closed: %v; want a fetch error naming the partition", err)
	}
	if errs.Load() == 0 {
		t.Error("the failed fetch was not counted")
	}
	if got := f.Failing(); !slices.Equal(got, []int{0}) {
		t.Errorf("Failing() = %v after a failed fetch; want [0]", got)
	}
}

// positionsAndRecords reads f until it has delivered n records, and
// returns the positions and the records' offsets in the order they came
// (one partition).
func positionsAndRecords(t *testing.T, f *Fetcher, n int) (positions []Position, offsets []int64) {
	t.Helper()
	for len(offsets) < n {
		c := nextChunk(t, f.Next, time.Minute)
		if c.Position != nil {
			if len(c.Recs) > 0 {
				t.Fatalf("a position chunk with %d records", len(c.Recs))
			}
			positions = append(positions, *c.Position)
		}
		for _, m := range c.Recs {
			offsets = append(offsets, m.Offset)
		}
		f.Done(c)
	}
	return positions, offsets
}

func offsetsFrom(from, to int64) []int64 {
	var out []int64
	for o := from; o < to; o++ {
		out = append(out, o)
	}
	return out
}

// TestFetcherPositionsAndOffsetResets: a fetcher tells where each
// partition's reading starts (with the log's bounds) before its records,
// and an offset outside the log is reset as the policy says, in order
// with the records: at the start (a committed offset past the end of a
// log created again; one before its start, deleted by retention), and
// while reading (the topic deleted and created again under the reader).
func TestFetcherPositionsAndOffsetResets(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "edges"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	brokers := c.ListenAddrs()
	var msgs []kafkago.Message
	for i := range 10 {
		msgs = append(msgs, edgeRecord(0, i))
	}
	produce(t, brokers, "edges", msgs...)
	fetcher := func(policy ResetPolicy, from int64) *Fetcher {
		f, err := NewFetcher(FetcherOptions{Brokers: brokers, Topic: "edges", Decoder: jsonDecoder(t), MaxWait: 20 * time.Millisecond,
			OffsetReset: policy}, map[int]int64{0: from})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}

	t.Run("in range", func(t *testing.T) {
		pos, offs := positionsAndRecords(t, fetcher(ResetEarliest, 4), 6)
		want := []Position{{Offset: 4, LogStart: 0, LogEnd: 10}}
		if !reflect.DeepEqual(pos, want) || !slices.Equal(offs, offsetsFrom(4, 10)) {
			t.Errorf("positions %+v, offsets %v; want %+v, 4-9", pos, offs, want)
		}
	})
	t.Run("past the end, earliest", func(t *testing.T) {
		pos, offs := positionsAndRecords(t, fetcher(ResetEarliest, 50), 10)
		want := []Position{{Offset: 0, LogStart: 0, LogEnd: 10, Reset: &OffsetReset{Asked: 50, Reason: ResetPastEnd, Policy: ResetEarliest}}}
		if !reflect.DeepEqual(pos, want) || !slices.Equal(offs, offsetsFrom(0, 10)) {
			t.Errorf("positions %+v, offsets %v; want %+v, 0-9", pos, offs, want)
		}
	})
	t.Run("past the end, latest", func(t *testing.T) {
		f := fetcher(ResetLatest, 50)
		c := nextChunk(t, f.Next, time.Minute)
		want := &Position{Offset: 10, LogStart: 0, LogEnd: 10, Reset: &OffsetReset{Asked: 50, Reason: ResetPastEnd, Policy: ResetLatest}}
		if !reflect.DeepEqual(c.Position, want) {
			t.Errorf("first position %+v; want %+v", c.Position, want)
		}
		f.Done(c)
	})
	t.Run("before the start", func(t *testing.T) {
		if err := c.DeleteRecords("edges", 0, 3); err != nil {
			t.Fatal(err)
		}
		pos, offs := positionsAndRecords(t, fetcher(ResetEarliest, 1), 7)
		want := []Position{{Offset: 3, LogStart: 3, LogEnd: 10, Reset: &OffsetReset{Asked: 1, Reason: ResetBeforeStart, Policy: ResetEarliest}}}
		if !reflect.DeepEqual(pos, want) || !slices.Equal(offs, offsetsFrom(3, 10)) {
			t.Errorf("positions %+v, offsets %v; want %+v, 3-9", pos, offs, want)
		}
	})
	t.Run("topic created again while reading", func(t *testing.T) {
		f := fetcher(ResetEarliest, 3)
		if _, offs := positionsAndRecords(t, f, 7); !slices.Equal(offs, offsetsFrom(3, 10)) {
			t.Fatalf("offsets %v before the topic was created again; want 3-9", offs)
		}
		if err := c.DeleteTopic("edges"); err != nil {
			t.Fatal(err)
		}
		if err := c.CreateTopic("edges", 1, nil); err != nil {
			t.Fatal(err)
		}
		produce(t, brokers, "edges", msgs[:4]...)
		pos, offs := positionsAndRecords(t, f, 4)
		// The log's end, when the reset was found, depends on whether the
		// records were written by then.
		want := &OffsetReset{Asked: 10, Reason: ResetPastEnd, Policy: ResetEarliest}
		if len(pos) != 1 || pos[0].Offset != 0 || pos[0].LogStart != 0 || pos[0].LogEnd > 4 || !reflect.DeepEqual(pos[0].Reset, want) ||
			!slices.Equal(offs, offsetsFrom(0, 4)) {
			t.Errorf("positions %+v, offsets %v after the topic was created again; want one at 0 after %+v, then 0-3", pos, offs, want)
		}
	})
}

// TestFetcherHoldsGonePartitionUntilSeek: with HoldGone, a partition
// whose topic is deleted under the fetcher stops with a Position marked
// Gone at the offset it had reached, and stays there (records written
// to the topic created again are not read from that offset on) until
// Seek tells it where to go on: then a Position marked Seek, and the new
// log's records from its first. Seek also moves a partition that reads
// normally, after the chunks fetched before it.
func TestFetcherHoldsGonePartitionUntilSeek(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "edges"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	brokers := c.ListenAddrs()
	var msgs []kafkago.Message
	for i := range 10 {
		msgs = append(msgs, edgeRecord(0, i))
	}
	produce(t, brokers, "edges", msgs...)
	f, err := NewFetcher(FetcherOptions{Brokers: brokers, Topic: "edges", Decoder: jsonDecoder(t), MaxWait: 20 * time.Millisecond, HoldGone: true},
		map[int]int64{0: 0})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, offs := positionsAndRecords(t, f, 10); !slices.Equal(offs, offsetsFrom(0, 10)) {
		t.Fatalf("offsets %v; want 0-9", offs)
	}
	f.Seek(0, 6)
	pos, offs := positionsAndRecords(t, f, 4)
	if len(pos) != 1 || !pos[0].Seek || pos[0].Offset != 6 || !slices.Equal(offs, offsetsFrom(6, 10)) {
		t.Fatalf("after Seek(0, 6): positions %+v, offsets %v; want one Seek position at 6, then 6-9", pos, offs)
	}

	if err := c.DeleteTopic("edges"); err != nil {
		t.Fatal(err)
	}
	var gone *Position
	for gone == nil {
		ch := nextChunk(t, f.Next, time.Minute)
		if ch.Position != nil && ch.Position.Gone {
			gone = ch.Position
		} else if len(ch.Recs) > 0 {
			t.Fatalf("records %d-%d after the topic was deleted", ch.Recs[0].Offset, ch.Recs[len(ch.Recs)-1].Offset)
		}
		f.Done(ch)
	}
	if gone.Offset != 10 {
		t.Errorf("the Gone position is at %d; want 10, where the partition was", gone.Offset)
	}
	if err := c.CreateTopic("edges", 1, nil); err != nil {
		t.Fatal(err)
	}
	for i := 10; i < 15; i++ {
		msgs = append(msgs, edgeRecord(0, i))
	}
	produce(t, brokers, "edges", msgs...) // the new log grows past the old position 10
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	if ch, err := f.Next(ctx); err == nil {
		t.Errorf("a chunk (position %+v, %d records) from a partition held gone", ch.Position, len(ch.Recs))
		f.Done(ch)
	}
	cancel()
	f.Seek(0, FirstOffset)
	pos, offs = positionsAndRecords(t, f, 15)
	if len(pos) != 1 || !pos[0].Seek || pos[0].Offset != 0 || !slices.Equal(offs, offsetsFrom(0, 15)) {
		t.Errorf("after Seek(0, FirstOffset): positions %+v, offsets %v; want one Seek position at 0, then 0-14", pos, offs)
	}
}

// TestFetcherSeekOutlivesStaleMetadata: after a topic is deleted and
// created again, kafka-go's transport keeps answering "topic not found"
// itself until its cached metadata is next refreshed. A Seek made in
// that time (what the daemon does on a re-created topic) must read the
// new log once the cache catches up, not take the client's stale answer
// for the topic being gone again and hold the partition for good.
func TestFetcherSeekOutlivesStaleMetadata(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "edges"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	brokers := c.ListenAddrs()
	produce(t, brokers, "edges", edgeRecord(0, 0), edgeRecord(0, 1), edgeRecord(0, 2))
	tr := &kafkago.Transport{MetadataTTL: 2 * time.Second}
	defer tr.CloseIdleConnections()
	f, err := NewFetcher(FetcherOptions{Brokers: brokers, Topic: "edges", Decoder: jsonDecoder(t), MaxWait: 20 * time.Millisecond,
		HoldGone: true, Transport: tr}, map[int]int64{0: 0})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, offs := positionsAndRecords(t, f, 3); !slices.Equal(offs, offsetsFrom(0, 3)) {
		t.Fatalf("offsets %v; want 0-2", offs)
	}
	if err := c.DeleteTopic("edges"); err != nil {
		t.Fatal(err)
	}
	for gone := false; !gone; {
		ch := nextChunk(t, f.Next, time.Minute)
		gone = ch.Position != nil && ch.Position.Gone
		f.Done(ch)
	}
	// Wait for the transport's cache to lose the topic: from then on
	// kafka-go itself says it is not found, until the next refresh.
	cached := &kafkago.Client{Addr: kafkago.TCP(brokers...), Transport: tr}
	deadline := time.Now().Add(time.Minute)
	for {
		res, err := cached.Metadata(context.Background(), &kafkago.MetadataRequest{Topics: []string{"edges"}})
		if err == nil && (len(res.Topics) == 0 || res.Topics[0].Error != nil) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the transport's metadata still holds the deleted topic after a minute (err %v)", err)
		}
		time.Sleep(50 * time.Millisecond) // polling the cache, not waiting for an event
	}
	if err := c.CreateTopic("edges", 1, nil); err != nil {
		t.Fatal(err)
	}
	produce(t, brokers, "edges", edgeRecord(0, 10), edgeRecord(0, 11))
	f.Seek(0, FirstOffset)
	pos, offs := positionsAndRecords(t, f, 2)
	if len(pos) != 1 || !pos[0].Seek || pos[0].Offset != 0 || !slices.Equal(offs, offsetsFrom(0, 2)) {
		t.Errorf("after Seek(0, FirstOffset): positions %+v, offsets %v; want one Seek position at 0, then 0-1", pos, offs)
	}
}

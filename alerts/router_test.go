package alerts

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// t0 is the start of an interval for every test interval used here.
var t0 = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

var errSink = errors.New("sink down")

// memSink keeps what it acknowledges; it fails the next fail writes.
type memSink struct {
	got    []Alert
	writes int
	fail   int
}

func (s *memSink) Write(ctx context.Context, alerts []Alert) error {
	s.writes++
	if s.fail > 0 {
		s.fail--
		return errSink
	}
	s.got = append(s.got, alerts...)
	return nil
}

func (s *memSink) Close() error { return nil }

// clock is a settable fake clock.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// summary renders a record for comparison: "match q", or
// "count q 3 [0s,1m0s)" with From and To relative to t0.
func summary(a Alert) string {
	if a.Kind == KindMatch {
		return fmt.Sprintf("match %s", a.Query)
	}
	return fmt.Sprintf("%s %s %d [%v,%v)", a.Kind, a.Query, a.Count, a.From.Sub(t0), a.To.Sub(t0))
}

func summaries(as []Alert) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = summary(a)
	}
	return out
}

// matches returns one match record of each named query.
func matches(queries ...string) []Alert {
	out := make([]Alert, len(queries))
	for i, q := range queries {
		out[i] = Alert{Query: q, MatchID: fmt.Sprintf("%s-%d", q, i)}
	}
	return out
}

func repeat(q string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = q
	}
	return out
}

// step is one call on a Router at a clock offset from t0.
type step struct {
	at   time.Duration
	op   string // set, add, flush, tick, close
	set  map[string]QueryOptions
	add  []string // query of each match to add
	fail int      // sink failures to arm before the call
	err  bool     // the call must fail
}

var (
	enumerate = QueryOptions{Mode: ModeEnumerate}
	count     = QueryOptions{Mode: ModeCount}
)

func TestRouter(t *testing.T) {
	tests := []struct {
		name  string
		start time.Duration // clock offset at NewRouter
		steps []step
		want  []string
	}{
		{
			name: "enumerate unlimited writes every match",
			steps: []step{
				{op: "set", set: map[string]QueryOptions{"ring": enumerate}},
				{at: time.Second, op: "add", add: repeat("ring", 3)},
				{at: time.Second, op: "flush"},
				{at: 2 * time.Minute, op: "tick"},
			},
			want: repeat("match ring", 3),
		},
		{
			name: "count mode reports the interval's matches once",
			steps: []step{
				{op: "set", set: map[string]QueryOptions{"c": count}},
				{at: 5 * time.Second, op: "add", add: repeat("c", 3)},
				{at: 5 * time.Second, op: "flush"},
				{at: 30 * time.Second, op: "add", add: repeat("c", 2)},
				{at: 30 * time.Second, op: "flush"},
				{at: 59 * time.Second, op: "tick"},
				{at: 60 * time.Second, op: "flush"},
				{at: 61 * time.Second, op: "tick"},
				{at: 3 * time.Minute, op: "tick"},
			},
			want: []string{"count c 5 [0s,1m0s)"},
		},
		{
			name: "zero counts write nothing",
			steps: []step{
				{op: "set", set: map[string]QueryOptions{"c": count, "r": {RateLimit: 1}}},
				{at: time.Minute, op: "tick"},
				{at: 2 * time.Minute, op: "flush"},
				{at: 3 * time.Minute, op: "close"},
			},
		},
		{
			name: "a match flushed at an interval's end counts in the next",
			steps: []step{
				{op: "set", set: map[string]QueryOptions{"c": count}},
				{at: 10 * time.Second, op: "add", add: []string{"c"}},
				{at: 10 * time.Second, op: "flush"},
				{at: time.Minute, op: "add", add: []string{"c", "c"}},
				{at: time.Minute, op: "flush"},
				{at: 2 * time.Minute, op: "tick"},
			},
			want: []string{"count c 1 [0s,1m0s)", "count c 2 [1m0s,2m0s)"},
		},
		{
			name: "a late tick skips empty intervals",
			steps: []step{
				{op: "set", set: map[string]QueryOptions{"c": count}},
				{at: 10 * time.Second, op: "add", add: []string{"c"}},
				{at: 10 * time.Second, op: "flush"},
				{at: 185 * time.Second, op: "tick"},
				{at: 190 * time.Second, op: "add", add: []string{"c"}},
				{at: 190 * time.Second, op: "flush"},
				{at: 240 * time.Second, op: "tick"},
			},
			want: []string{"count c 1 [0s,1m0s)", "count c 1 [3m0s,4m0s)"},
		},
		{
			name: "rate limit holds back and summarises",
			steps: []step{
				// 1/s, burst 2: at 5s two pass, three are held; at 7s the
				// bucket has two again: two pass, one held.
				{op: "set", set: map[string]QueryOptions{"r": {RateLimit: 1, Burst: 2}}},
				{at: 5 * time.Second, op: "add", add: repeat("r", 5)},
				{at: 5 * time.Second, op: "flush"},
				{at: 7 * time.Second, op: "add", add: repeat("r", 3)},
				{at: 7 * time.Second, op: "flush"},
				{at: time.Minute, op: "tick"},
				{at: 2 * time.Minute, op: "tick"},
			},
			want: append(repeat("match r", 4), "rate_limited r 4 [0s,1m0s)"),
		},
		{
			name: "burst defaults to ceil(rate)",
			steps: []step{
				{op: "set", set: map[string]QueryOptions{"r": {RateLimit: 2.5}}},
				{at: time.Second, op: "add", add: repeat("r", 5)},
				{at: time.Second, op: "flush"},
				{at: time.Minute, op: "tick"},
			},
			want: append(repeat("match r", 3), "rate_limited r 2 [0s,1m0s)"),
		},
		{
			name: "rate limit ignored in count mode",
			steps: []step{
				{op: "set", set: map[string]QueryOptions{"c": {Mode: ModeCount, RateLimit: 1, Burst: 1}}},
				{at: time.Second, op: "add", add: repeat("c", 5)},
				{at: time.Second, op: "flush"},
				{at: time.Minute, op: "tick"},
			},
			want: []string{"count c 5 [0s,1m0s)"},
		},
		{
			name: "a removed query's pending tallies are written first",
			steps: []step{
				{op: "set", set: map[string]QueryOptions{"c": count, "r": {RateLimit: 1, Burst: 1}, "keep": count}},
				{at: 5 * time.Second, op: "add", add: []string{"c", "c", "r", "r", "r", "keep"}},
				{at: 5 * time.Second, op: "flush"},
				{at: 20 * time.Second, op: "set", set: map[string]QueryOptions{"keep": count}},
				{at: 21 * time.Second, op: "add", add: []string{"c", "r"}}, // unknown now
				{at: 21 * time.Second, op: "flush"},
				{at: time.Minute, op: "tick"},
			},
			want: []string{
				"match r",
				"count c 2 [0s,20s)", "rate_limited r 2 [0s,20s)",
				"match c", "match r",
				"count keep 1 [0s,1m0s)",
			},
		},
		{
			name: "a mode change writes the old mode's tally",
			steps: []step{
				{op: "set", set: map[string]QueryOptions{"q": count}},
				{at: 5 * time.Second, op: "add", add: []string{"q", "q"}},
				{at: 5 * time.Second, op: "flush"},
				{at: 20 * time.Second, op: "set", set: map[string]QueryOptions{"q": enumerate}},
				{at: 25 * time.Second, op: "add", add: []string{"q"}},
				{at: 25 * time.Second, op: "flush"},
				{at: 30 * time.Second, op: "set", set: map[string]QueryOptions{"q": count}},
				{at: 35 * time.Second, op: "add", add: []string{"q"}},
				{at: 35 * time.Second, op: "flush"},
				{at: time.Minute, op: "tick"},
			},
			want: []string{"count q 2 [0s,20s)", "match q", "count q 1 [30s,1m0s)"},
		},
		{
			name: "a mode change at the moment a query was added",
			steps: []step{
				{at: 10 * time.Second, op: "set", set: map[string]QueryOptions{"q": count}},
				{at: 10 * time.Second, op: "add", add: []string{"q"}},
				{at: 10 * time.Second, op: "flush"},
				{at: 10 * time.Second, op: "set", set: map[string]QueryOptions{"q": enumerate}},
				{at: 10 * time.Second, op: "flush"},
			},
			want: []string{"count q 1 [10s,10.000000001s)"},
		},
		{
			name: "a rate change keeps the held tally",
			steps: []step{
				{op: "set", set: map[string]QueryOptions{"r": {RateLimit: 1, Burst: 1}}},
				{at: 5 * time.Second, op: "add", add: []string{"r", "r"}},
				{at: 5 * time.Second, op: "flush"},
				{at: 6 * time.Second, op: "set", set: map[string]QueryOptions{"r": {RateLimit: 1, Burst: 3}}},
				{at: 6 * time.Second, op: "add", add: repeat("r", 4)},
				{at: 6 * time.Second, op: "flush"},
				{at: time.Minute, op: "tick"},
			},
			want: append(repeat("match r", 4), "rate_limited r 2 [0s,1m0s)"),
		},
		{
			name:  "a query added mid-interval counts from then",
			start: 3 * time.Second,
			steps: []step{
				{at: 20 * time.Second, op: "set", set: map[string]QueryOptions{"n": count}},
				{at: 30 * time.Second, op: "add", add: []string{"n"}},
				{at: 30 * time.Second, op: "flush"},
				{at: 70 * time.Second, op: "flush"},
			},
			want: []string{"count n 1 [20s,1m0s)"},
		},
		{
			name: "unknown queries are written as matches",
			steps: []step{
				{at: time.Second, op: "add", add: []string{"who", "who"}},
				{at: time.Second, op: "flush"},
			},
			want: []string{"match who", "match who"},
		},
		{
			name: "close writes staged matches and partial tallies",
			steps: []step{
				{op: "set", set: map[string]QueryOptions{"c": count, "r": {RateLimit: 1, Burst: 1}, "e": enumerate}},
				{at: 65 * time.Second, op: "add", add: []string{"c", "r", "r", "e"}},
				{at: 65 * time.Second, op: "flush"},
				{at: 90 * time.Second, op: "add", add: []string{"c", "e"}},
				{at: 90 * time.Second, op: "close"},
				{at: 95 * time.Second, op: "close"}, // idempotent
			},
			want: []string{"match r", "match e", "match e", "count c 2 [1m0s,1m30s)", "rate_limited r 1 [1m0s,1m30s)"},
		},
		{
			name: "close at an interval's start",
			steps: []step{
				{op: "set", set: map[string]QueryOptions{"c": count}},
				{at: time.Minute, op: "add", add: []string{"c"}},
				{at: time.Minute, op: "close"},
			},
			want: []string{"count c 1 [1m0s,1m0.000000001s)"},
		},
		{
			name: "a failed write is retried without loss or duplicates",
			steps: []step{
				{op: "set", set: map[string]QueryOptions{"e": enumerate, "c": count}},
				{at: 5 * time.Second, op: "add", add: []string{"e", "c", "e"}},
				{at: 5 * time.Second, op: "flush", fail: 1, err: true},
				{at: 6 * time.Second, op: "flush"},
				{at: 6 * time.Second, op: "flush"},
				{at: time.Minute, op: "tick", fail: 2, err: true},
				{at: 61 * time.Second, op: "tick", err: true},
				{at: 62 * time.Second, op: "add", add: []string{"e"}},
				{at: 62 * time.Second, op: "close", fail: 1, err: true},
				{at: 63 * time.Second, op: "close"},
			},
			want: []string{"match e", "match e", "count c 1 [0s,1m0s)", "match e"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := &clock{t0.Add(tt.start)}
			sink := &memSink{}
			r, err := NewRouter(RouterOptions{Interval: time.Minute}, sink, nil, clk.now)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			for i, s := range tt.steps {
				if s.at < clk.t.Sub(t0) {
					t.Fatalf("step %d: clock goes back to %v", i, s.at)
				}
				clk.t = t0.Add(s.at)
				sink.fail += s.fail
				var err error
				switch s.op {
				case "set":
					err = r.SetQueries(s.set)
				case "add":
					r.Add(matches(s.add...))
				case "flush":
					err = r.Flush(ctx)
				case "tick":
					err = r.Tick(ctx, clk.t)
				case "close":
					err = r.Close(ctx)
				default:
					t.Fatalf("step %d: unknown op %q", i, s.op)
				}
				if (err != nil) != s.err {
					t.Fatalf("step %d (%s at %v): err = %v; want error %v", i, s.op, s.at, err, s.err)
				}
				if err != nil && !errors.Is(err, errSink) {
					t.Errorf("step %d: err = %v; want it to wrap %v", i, err, errSink)
				}
			}
			if got := summaries(sink.got); !slices.Equal(got, tt.want) {
				t.Errorf("records:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(tt.want, "\n  "))
			}
		})
	}
}

func TestRouterRecordFields(t *testing.T) {
	clk := &clock{t0}
	sink := &memSink{}
	r, err := NewRouter(RouterOptions{Interval: time.Minute}, sink, nil, clk.now)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.SetQueries(map[string]QueryOptions{"e": enumerate, "c": count}); err != nil {
		t.Fatal(err)
	}
	detected := t0.Add(-time.Hour)
	edges := []Edge{{Src: "a", Dst: "b", T: 3, Seq: 1}}
	clk.t = t0.Add(5 * time.Second)
	r.Add([]Alert{
		{Kind: "bogus", Query: "e", MatchID: "id1", Edges: edges, First: 3, Last: 3},
		{Query: "e", MatchID: "id2", DetectedAt: detected},
		{Query: "c", MatchID: "id3"},
	})
	if err := r.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := r.Tick(context.Background(), t0.Add(61*time.Second)); err != nil {
		t.Fatal(err)
	}
	if len(sink.got) != 3 {
		t.Fatalf("got %d records: %v; want 3", len(sink.got), summaries(sink.got))
	}
	m1, m2, c := sink.got[0], sink.got[1], sink.got[2]
	if m1.Kind != KindMatch || m1.MatchID != "id1" || len(m1.Edges) != 1 || m1.First != 3 || !m1.DetectedAt.Equal(clk.t) {
		t.Errorf("first match record = %+v; want kind match, id1, its edge, DetectedAt = flush time %v", m1, clk.t)
	}
	if !m2.DetectedAt.Equal(detected) {
		t.Errorf("second match DetectedAt = %v; want the caller's %v", m2.DetectedAt, detected)
	}
	want := Alert{Kind: KindCount, Query: "c", Count: 1, From: t0, To: t0.Add(time.Minute), DetectedAt: t0.Add(61 * time.Second)}
	if c.Kind != want.Kind || c.Query != want.Query || c.Count != want.Count || !c.From.Equal(want.From) ||
		!c.To.Equal(want.To) || !c.DetectedAt.Equal(want.DetectedAt) || c.MatchID != "" || c.Edges != nil {
		t.Errorf("count record = %+v; want %+v", c, want)
	}
	if got := r.Due(); !got.Equal(t0.Add(2 * time.Minute)) {
		t.Errorf("Due() = %v; want %v", got, t0.Add(2*time.Minute))
	}
}

func TestRouterSettled(t *testing.T) {
	clk := &clock{t0}
	sink := &memSink{}
	r, err := NewRouter(RouterOptions{Interval: time.Minute}, sink, nil, clk.now)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.SetQueries(map[string]QueryOptions{"e": enumerate, "c": count}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	steps := []struct {
		at   time.Duration
		op   string
		add  []string
		fail int
		want uint64
	}{
		{at: 1 * time.Second, op: "flush", add: []string{"e"}, want: 1},   // batch 1: durable at once
		{at: 2 * time.Second, op: "flush", add: []string{"c"}, want: 1},   // batch 2: tallied
		{at: 3 * time.Second, op: "flush", add: []string{"e"}, want: 1},   // batch 3: tally pending
		{at: 61 * time.Second, op: "flush", add: []string{"c"}, want: 3},  // batch 4: closes 1-3, tallies itself
		{at: 62 * time.Second, op: "flush", add: []string{"e"}, fail: 1},  // fails: batch 5 unnumbered
		{at: 63 * time.Second, op: "flush", want: 3},                      // batch 5 now acked, 4's tally pending
		{at: 121 * time.Second, op: "tick", fail: 1, want: 3},             // closing write fails
		{at: 122 * time.Second, op: "tick", want: 5},                      // retried: all durable
		{at: 123 * time.Second, op: "flush", add: []string{"e"}, want: 6}, // nothing pending
		{at: 124 * time.Second, op: "flush", add: []string{"c"}, want: 6}, // pending again
		{at: 125 * time.Second, op: "close", add: []string{"e"}, want: 8}, // close settles all
	}
	for i, s := range steps {
		clk.t = t0.Add(s.at)
		sink.fail = s.fail
		r.Add(matches(s.add...))
		var err error
		if s.op == "flush" {
			err = r.Flush(ctx)
		} else if s.op == "tick" {
			err = r.Tick(ctx, clk.t)
		} else {
			err = r.Close(ctx)
		}
		if (err != nil) != (s.fail > 0) {
			t.Fatalf("step %d: %s = %v; want error %v", i, s.op, err, s.fail > 0)
		}
		if err != nil {
			continue
		}
		if got := r.Settled(); got != s.want {
			t.Errorf("step %d (%s at %v): Settled() = %d; want %d", i, s.op, s.at, got, s.want)
		}
	}
}

func TestRouterClosed(t *testing.T) {
	r, err := NewRouter(RouterOptions{}, &memSink{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := r.Close(ctx); err != nil {
		t.Fatal(err)
	}
	calls := []struct {
		name string
		call func() error
		want error
	}{
		{"Flush", func() error { return r.Flush(ctx) }, ErrClosed},
		{"Tick", func() error { return r.Tick(ctx, time.Now().Add(time.Hour)) }, ErrClosed},
		{"SetQueries", func() error { return r.SetQueries(nil) }, ErrClosed},
		{"Close", func() error { return r.Close(ctx) }, nil},
	}
	for _, c := range calls {
		if err := c.call(); !errors.Is(err, c.want) || (c.want == nil && err != nil) {
			t.Errorf("%s after Close = %v; want %v", c.name, err, c.want)
		}
	}
}

func TestNewRouterErrors(t *testing.T) {
	tests := []struct {
		name string
		opts RouterOptions
		sink Sink
		want string
	}{
		{"nil sink", RouterOptions{}, nil, "nil sink"},
		{"negative interval", RouterOptions{Interval: -time.Second}, &memSink{}, "interval -1s"},
	}
	for _, tt := range tests {
		_, err := NewRouter(tt.opts, tt.sink, nil, nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: NewRouter error = %v; want it to contain %q", tt.name, err, tt.want)
		}
	}
}

func TestQueryOptionsValidate(t *testing.T) {
	tests := []struct {
		opts QueryOptions
		want string // "" = valid
	}{
		{QueryOptions{}, ""},
		{QueryOptions{Mode: ModeCount}, ""},
		{QueryOptions{Mode: ModeEnumerate, RateLimit: 0.5, Burst: 10}, ""},
		{QueryOptions{Mode: "enum"}, `mode "enum"`},
		{QueryOptions{RateLimit: -1}, "rate limit -1"},
		{QueryOptions{RateLimit: math.NaN()}, "rate limit NaN"},
		{QueryOptions{RateLimit: math.Inf(1)}, "rate limit +Inf"},
		{QueryOptions{RateLimit: 1, Burst: -2}, "burst -2"},
	}
	for _, tt := range tests {
		err := tt.opts.Validate()
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%+v.Validate() = %v; want %q", tt.opts, err, tt.want)
		}
	}
}

func TestSetQueriesInvalidKeepsOld(t *testing.T) {
	clk := &clock{t0}
	sink := &memSink{}
	r, err := NewRouter(RouterOptions{Interval: time.Minute}, sink, nil, clk.now)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.SetQueries(map[string]QueryOptions{"c": count}); err != nil {
		t.Fatal(err)
	}
	err = r.SetQueries(map[string]QueryOptions{"e": enumerate, "bad": {RateLimit: -3}})
	if err == nil || !strings.Contains(err.Error(), `query "bad": rate limit -3`) {
		t.Fatalf("SetQueries(bad) = %v; want an error naming query and value", err)
	}
	r.Add(matches("c", "c"))
	if err := r.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := r.Tick(context.Background(), t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if got, want := summaries(sink.got), []string{"count c 2 [0s,1m0s)"}; !slices.Equal(got, want) {
		t.Errorf("after a rejected reload: %v; want %v", got, want)
	}
}

// TestRouterConservation routes random matches under random options,
// reloads, clock steps and sink failures, and checks that every match ends
// in exactly one record or record count, and that the metrics agree.
func TestRouterConservation(t *testing.T) {
	names := []string{"a", "b", "c", "d"}
	for seed := range uint64(50) {
		rng := rand.New(rand.NewPCG(seed, 1))
		clk := &clock{t0.Add(time.Duration(rng.IntN(60)) * time.Second)}
		sink := &memSink{}
		m, err := NewMetrics(nil)
		if err != nil {
			t.Fatal(err)
		}
		r, err := NewRouter(RouterOptions{Interval: 10 * time.Second}, sink, m, clk.now)
		if err != nil {
			t.Fatal(err)
		}
		randomQueries := func() map[string]QueryOptions {
			qs := make(map[string]QueryOptions)
			for _, n := range names {
				switch rng.IntN(4) {
				case 0: // absent: its matches are routed as unknown
				case 1:
					qs[n] = count
				case 2:
					qs[n] = enumerate
				case 3:
					qs[n] = QueryOptions{RateLimit: float64(1 + rng.IntN(5)), Burst: rng.IntN(4)}
				}
			}
			return qs
		}
		ctx := context.Background()
		added := make(map[string]int64)
		id := 0
		for range 200 {
			clk.t = clk.t.Add(time.Duration(rng.IntN(3000)) * time.Millisecond)
			if rng.IntN(20) == 0 {
				if err := r.SetQueries(randomQueries()); err != nil {
					t.Fatal(err)
				}
			}
			for range rng.IntN(8) {
				q := names[rng.IntN(len(names))]
				added[q]++
				id++
				r.Add([]Alert{{Query: q, MatchID: fmt.Sprint(id)}})
			}
			sink.fail = 0
			if rng.IntN(6) == 0 {
				sink.fail = 1
			}
			var err error
			if rng.IntN(4) == 0 {
				err = r.Tick(ctx, clk.t)
			} else {
				err = r.Flush(ctx)
			}
			if err != nil && !errors.Is(err, errSink) {
				t.Fatalf("seed %d: unexpected error %v", seed, err)
			}
		}
		sink.fail = 0
		if err := r.Close(ctx); err != nil {
			t.Fatal(err)
		}

		got := make(map[string]int64)
		ids := make(map[string]bool)
		for _, a := range sink.got {
			switch a.Kind {
			case KindMatch:
				if ids[a.MatchID] {
					t.Errorf("seed %d: match %s written twice", seed, a.MatchID)
				}
				ids[a.MatchID] = true
				got[a.Query]++
			case KindCount, KindRateLimited:
				if a.Count <= 0 || !a.From.Before(a.To) || a.DetectedAt.Before(a.From) {
					t.Errorf("seed %d: bad record %+v", seed, a)
				}
				got[a.Query] += a.Count
			}
			// A held-back match is recoverable: its id is in the summary
			// (this test never holds back more than the cap).
			if a.Kind == KindRateLimited {
				if int64(len(a.MatchIDs)) != a.Count || a.MatchIDsOmitted != 0 {
					t.Errorf("seed %d: rate_limited record counts %d with %d ids (%d omitted); want every id", seed, a.Count, len(a.MatchIDs), a.MatchIDsOmitted)
				}
				for _, id := range a.MatchIDs {
					if ids[id] {
						t.Errorf("seed %d: match %s reported twice", seed, id)
					}
					ids[id] = true
				}
			}
		}
		for _, q := range names {
			if got[q] != added[q] {
				t.Errorf("seed %d: query %s: %d matches in records; want %d added", seed, q, got[q], added[q])
			}
			matched := value(t, m.Matches.WithLabelValues(q))
			parts := value(t, m.Written.WithLabelValues(q, string(KindMatch))) +
				value(t, m.Counted.WithLabelValues(q)) +
				value(t, m.RateLimited.WithLabelValues(q))
			if matched != float64(added[q]) || parts != matched {
				t.Errorf("seed %d: query %s: matches_total %v, written+counted+rate_limited %v; want both %d",
					seed, q, matched, parts, added[q])
			}
		}
		if r.Settled() == 0 {
			t.Errorf("seed %d: Settled() = 0 after Close", seed)
		}
	}
}

func TestRouterAddCountTalliesWithMatches(t *testing.T) {
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	sink := &memSinkForCount{}
	r, err := NewRouter(RouterOptions{Interval: time.Minute}, sink, nil, func() time.Time { return clock })
	if err != nil {
		t.Fatal(err)
	}
	if err := r.SetQueries(map[string]QueryOptions{"c": {Mode: ModeCount}}); err != nil {
		t.Fatal(err)
	}
	r.AddCount("c", 5)
	r.Add([]Alert{{Query: "c", MatchID: "x"}})
	if err := r.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(sink.got) != 0 {
		t.Fatalf("count records written before the interval ended: %+v", sink.got)
	}
	clock = clock.Add(time.Minute)
	if err := r.Tick(context.Background(), clock); err != nil {
		t.Fatal(err)
	}
	if len(sink.got) != 1 || sink.got[0].Kind != KindCount || sink.got[0].Count != 6 {
		t.Fatalf("records = %+v; want one count record of 6", sink.got)
	}
}

type memSinkForCount struct{ got []Alert }

func (m *memSinkForCount) Write(_ context.Context, a []Alert) error {
	m.got = append(m.got, a...)
	return nil
}
func (m *memSinkForCount) Close() error { return nil }

// TestRouterRateLimitedIDs: a rate_limited record lists the ids of the
// matches it held back, in detection order, so that they can be found
// again (`monitor mine` gives the same ids); past MaxRateLimitedMatchIDs
// it says how many it left out, so a flood cannot make it huge.
func TestRouterRateLimitedIDs(t *testing.T) {
	clk := &clock{t0}
	sink := &memSink{}
	r, err := NewRouter(RouterOptions{Interval: time.Minute}, sink, nil, clk.now)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.SetQueries(map[string]QueryOptions{"q": {RateLimit: 1, Burst: 2}}); err != nil {
		t.Fatal(err)
	}
	clk.t = t0.Add(time.Second)
	held := 5
	for i := range 2 + held {
		r.Add([]Alert{{Query: "q", MatchID: fmt.Sprintf("id-%d", i)}})
	}
	if err := r.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	clk.t = t0.Add(2 * time.Second)
	n := MaxRateLimitedMatchIDs + 250
	for i := range n {
		r.Add([]Alert{{Query: "q", MatchID: fmt.Sprintf("flood-%d", i)}})
	}
	if err := r.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := r.Tick(context.Background(), t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	var rl []Alert
	for _, a := range sink.got {
		if a.Kind == KindRateLimited {
			rl = append(rl, a)
		}
	}
	if len(rl) != 1 {
		t.Fatalf("records %v; want one rate_limited", summaries(sink.got))
	}
	a := rl[0]
	if a.Count != int64(held+n-1) { // the flood's first match takes the token refilled after 1 s
		t.Errorf("count = %d; want %d", a.Count, held+n-1)
	}
	want := []string{"id-2", "id-3", "id-4", "id-5", "id-6"}
	for i := range MaxRateLimitedMatchIDs - held {
		want = append(want, fmt.Sprintf("flood-%d", i+1))
	}
	if !slices.Equal(a.MatchIDs, want) {
		t.Errorf("match ids: %d listed, first %v; want the first %d held back (%v …)", len(a.MatchIDs), a.MatchIDs[:min(8, len(a.MatchIDs))], len(want), want[:8])
	}
	omitted := int64(held + n - 1 - MaxRateLimitedMatchIDs)
	if a.MatchIDsOmitted != omitted {
		t.Errorf("match_ids_omitted = %d; want %d (count %d − %d listed)", a.MatchIDsOmitted, omitted, a.Count, MaxRateLimitedMatchIDs)
	}
	js, err := a.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(js), fmt.Sprintf(`"match_ids_omitted":%d`, omitted)) || !strings.Contains(string(js), `"match_ids":["id-2",`) {
		t.Errorf("record JSON lacks the ids or the omitted count: %.300s", js)
	}
	var back Alert
	if err := back.UnmarshalJSONStrict(js); err != nil || back.MatchIDsOmitted != omitted || len(back.MatchIDs) != MaxRateLimitedMatchIDs {
		t.Errorf("read back: %v, %d ids, %d omitted", err, len(back.MatchIDs), back.MatchIDsOmitted)
	}
}

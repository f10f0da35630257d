package ingest

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// fakeClock is a settable clock for idleness.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

func newFakeClock() *fakeClock { return &fakeClock{t: time.Unix(1_700_000_000, 0)} }

// re is an edge named by its label for readable failures: src carries the
// name, T the time, Origin the partition and offset.
func re(name string, t int64, part int, off int64) Edge {
	return Edge{Src: name, Dst: "x", T: t, Origin: Origin{Partition: part, Offset: off}}
}

func names(es []Edge) string {
	var b strings.Builder
	for i, e := range es {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(e.Src)
	}
	return b.String()
}

// reorderStep is one action of a scripted test: add edges (expecting the
// listed ones late), or release (expecting names and a watermark).
type reorderStep struct {
	add       []Edge
	late      string // names of the added edges expected late
	advance   time.Duration
	release   bool
	flush     bool
	want      string // released names, in order
	watermark int64
	minOffs   map[int]int64 // checked after the step when non-nil
}

func TestReorder(t *testing.T) {
	const none = math.MinInt64
	tests := []struct {
		name     string
		lateness int64
		idle     time.Duration
		steps    []reorderStep
	}{
		{
			name: "empty", lateness: 5,
			steps: []reorderStep{{release: true, want: "", watermark: none}, {flush: true, want: "", watermark: none}},
		},
		{
			name: "in order, lateness 0", lateness: 0,
			steps: []reorderStep{
				{add: []Edge{re("a", 1, 0, 0), re("b", 2, 0, 1), re("c", 3, 0, 2)}},
				{release: true, want: "a b", watermark: 2}, // c may have ties to come
				{add: []Edge{re("c2", 3, 0, 3), re("d", 4, 0, 4), re("e", 5, 0, 5)}},
				{release: true, want: "c c2 d", watermark: 4},
				{add: []Edge{re("d2", 4, 0, 6)}, late: "d2"}, // a tie with a released time is late
				{flush: true, want: "e", watermark: 5},
			},
		},
		{
			name: "held back by lateness", lateness: 2,
			steps: []reorderStep{
				{add: []Edge{re("a", 10, 0, 0), re("b", 11, 0, 1), re("c", 12, 0, 2), re("d", 13, 0, 3)}},
				{release: true, want: "a", watermark: 10},
				{release: true, want: "", watermark: 10},
				{flush: true, want: "b c d", watermark: 13},
			},
		},
		{
			name: "out of order within lateness", lateness: 3,
			steps: []reorderStep{
				{add: []Edge{re("c", 12, 0, 0), re("a", 10, 0, 1), re("d", 15, 0, 2), re("b", 11, 0, 3)}},
				{release: true, want: "a b", watermark: 11},
				{add: []Edge{re("e", 13, 0, 4)}},
				{flush: true, want: "c e d", watermark: 15},
			},
		},
		{
			name: "late exactly at the watermark", lateness: 2,
			steps: []reorderStep{
				{add: []Edge{re("a", 10, 0, 0)}},
				{release: true, want: "", watermark: 7},
				{add: []Edge{re("w", 7, 0, 1), re("v", 6, 0, 2), re("b", 9, 0, 3)}, late: "w v"},
				{release: true, want: "", watermark: 7},
				{flush: true, want: "b a", watermark: 10},
				{add: []Edge{re("x", 10, 0, 4), re("c", 11, 0, 5)}, late: "x"},
				{flush: true, want: "c", watermark: 11},
			},
		},
		{
			name: "nothing is late before the first release", lateness: 0,
			steps: []reorderStep{
				{add: []Edge{re("b", 10, 0, 0), re("a", -5, 0, 1)}},
				{release: true, want: "a", watermark: 9},
				{add: []Edge{re("b2", 10, 0, 2)}},
				{flush: true, want: "b b2", watermark: 10},
			},
		},
		{
			name: "ties by arrival", lateness: 0,
			steps: []reorderStep{
				{add: []Edge{re("b", 5, 0, 0), re("a", 4, 1, 0), re("c", 5, 1, 1), re("d", 5, 0, 1)}},
				{flush: true, want: "a b c d", watermark: 5},
			},
		},
		{
			name: "ties by record seq, then arrival", lateness: 0,
			steps: []reorderStep{
				{add: []Edge{seqEdge("c", 5, 0, 0, 9), seqEdge("a", 5, 0, 1, 1), seqEdge("b1", 5, 1, 0, 3), seqEdge("b2", 5, 0, 2, 3), seqEdge("z", 4, 0, 3, 100)}},
				{flush: true, want: "z a b1 b2 c", watermark: 5},
			},
		},
		{
			name: "lagging partition holds the watermark", lateness: 5,
			steps: []reorderStep{
				{add: []Edge{re("p0a", 100, 0, 0), re("p1a", 50, 1, 0), re("p0b", 101, 0, 1), re("p1b", 52, 1, 1)}},
				{release: true, want: "", watermark: 46, minOffs: map[int]int64{0: 0, 1: 0}},
				{add: []Edge{re("p1c", 90, 1, 2)}},
				{release: true, want: "p1a p1b", watermark: 84, minOffs: map[int]int64{0: 0, 1: 2}},
				{add: []Edge{re("p1d", 120, 1, 3)}},
				{release: true, want: "p1c", watermark: 95, minOffs: map[int]int64{0: 0, 1: 3}},
				{flush: true, want: "p0a p0b p1d", watermark: 120, minOffs: map[int]int64{}},
			},
		},
		{
			name: "idle partition stops holding", lateness: 5, idle: 10 * time.Second,
			steps: []reorderStep{
				{add: []Edge{re("p0a", 100, 0, 0), re("p1a", 50, 1, 0)}},
				{release: true, want: "", watermark: 44},
				{advance: 6 * time.Second},
				{add: []Edge{re("p0b", 110, 0, 1)}},
				{release: true, want: "", watermark: 44},
				{advance: 5 * time.Second}, // p1 quiet for 11s: idle; p0 for 5s
				{release: true, want: "p1a p0a", watermark: 104},
				{add: []Edge{re("p1late", 60, 1, 1), re("p1b", 107, 1, 2)}, late: "p1late"}, // p1 is back
				{release: true, want: "", watermark: 104},
				{advance: 10 * time.Second}, // everything idle: release all
				{release: true, want: "p1b p0b", watermark: 110},
			},
		},
		{
			name: "watermark never decreases", lateness: 2,
			steps: []reorderStep{
				{add: []Edge{re("a", 100, 0, 0)}},
				{release: true, want: "", watermark: 97},
				{add: []Edge{re("late", 50, 1, 0), re("b", 99, 0, 1)}, late: "late"}, // partition 1 starts low
				{release: true, want: "", watermark: 97},
				{add: []Edge{re("c", 60, 2, 0)}, late: "c"},
				{release: true, want: "", watermark: 97},
				{add: []Edge{re("d", 102, 1, 1), re("e", 103, 0, 2)}},
				{release: true, want: "b", watermark: 99}, // partition 2 had only late edges: no say
			},
		},
		{
			name: "min offsets follow releases out of offset order", lateness: 1,
			steps: []reorderStep{
				{add: []Edge{re("o0", 30, 0, 10), re("o1", 10, 0, 11), re("o2", 20, 0, 12), re("o3", 40, 0, 13)}},
				{release: true, want: "o1 o2 o0", watermark: 38, minOffs: map[int]int64{0: 13}},
				{add: []Edge{re("o4", 45, 0, 14)}},
				{release: true, want: "o3", watermark: 43, minOffs: map[int]int64{0: 14}},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clock := newFakeClock()
			r := NewReorder(tc.lateness, tc.idle, clock.now)
			for i, s := range tc.steps {
				clock.advance(s.advance)
				var late []Edge
				for _, e := range s.add {
					if r.Add(e) {
						late = append(late, e)
					}
				}
				if got := names(late); got != s.late {
					t.Fatalf("step %d: late %q; want %q", i, got, s.late)
				}
				if s.release || s.flush {
					var got []Edge
					var w int64
					if s.flush {
						got, w = r.Flush()
					} else {
						got, w = r.Release()
					}
					if names(got) != s.want || w != s.watermark {
						t.Fatalf("step %d: released %q, watermark %d; want %q, %d", i, names(got), w, s.want, s.watermark)
					}
					if r.Watermark() != w {
						t.Fatalf("step %d: Watermark() = %d; want %d", i, r.Watermark(), w)
					}
				}
				if s.minOffs != nil {
					if got := r.MinOffsets(); !reflect.DeepEqual(got, s.minOffs) {
						t.Fatalf("step %d: MinOffsets() = %v; want %v", i, got, s.minOffs)
					}
				}
			}
		})
	}
}

func seqEdge(name string, t int64, part int, off, seq int64) Edge {
	e := re(name, t, part, off)
	e.Seq, e.HasSeq = seq, true
	return e
}

func TestReorderAssignsSeq(t *testing.T) {
	r := NewReorder(0, 0, nil)
	r.Add(re("a", 5, 0, 0))
	r.Add(seqEdge("b", 5, 0, 1, 77))
	r.Add(re("c", 4, 0, 2))
	got, _ := r.Flush()
	want := []int64{2, 0, 77} // c (arrival 2), a (arrival 0), b (its own 77)
	for i, e := range got {
		if e.Seq != want[i] {
			t.Errorf("released %s with Seq %d; want %d", e.Src, e.Seq, want[i])
		}
	}
	if r.Len() != 0 {
		t.Errorf("Len() = %d after Flush; want 0", r.Len())
	}
}

// TestReorderShuffledWithinLateness: input shuffled by less than the
// allowed lateness, over several partitions, comes out exactly sorted,
// nothing late, whatever the release cadence.
func TestReorderShuffledWithinLateness(t *testing.T) {
	for _, tc := range []struct {
		n, parts    int
		lateness    int64
		releaseEach int
	}{
		{1000, 1, 10, 1},
		{5000, 1, 50, 7},
		{20000, 4, 100, 100},
		{20000, 3, 1, 3}, // shuffled by 0 ticks: only ties move
	} {
		t.Run(fmt.Sprintf("n=%d,parts=%d,lateness=%d", tc.n, tc.parts, tc.lateness), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(tc.n), uint64(tc.lateness)))
			// The edges in their true order: times with ties, seq = index.
			sorted := make([]Edge, tc.n)
			var tm int64
			for i := range sorted {
				tm += int64(rng.IntN(3))
				sorted[i] = Edge{Src: fmt.Sprint(i), T: tm, Seq: int64(i), HasSeq: true}
			}
			// Arrival: by T + jitter in [0, lateness), each partition in
			// arrival order with increasing offsets.
			type arrival struct {
				at int64
				e  Edge
			}
			arr := make([]arrival, tc.n)
			for i, e := range sorted {
				arr[i] = arrival{e.T + rng.Int64N(tc.lateness), e}
			}
			slices.SortStableFunc(arr, func(a, b arrival) int { return cmp.Compare(a.at, b.at) })
			r := NewReorder(tc.lateness, 0, nil)
			offs := make([]int64, tc.parts)
			var out []Edge
			lastW := int64(math.MinInt64)
			for i, a := range arr {
				p := rng.IntN(tc.parts)
				a.e.Origin = Origin{Partition: p, Offset: offs[p]}
				offs[p]++
				if r.Add(a.e) {
					t.Fatalf("edge %s at T %d reported late (watermark %d)", a.e.Src, a.e.T, r.Watermark())
				}
				if i%tc.releaseEach == 0 {
					got, w := r.Release()
					if w < lastW {
						t.Fatalf("watermark went from %d to %d", lastW, w)
					}
					lastW = w
					out = append(out, got...)
				}
			}
			got, _ := r.Flush()
			out = append(out, got...)
			if len(out) != tc.n {
				t.Fatalf("released %d edges; want %d", len(out), tc.n)
			}
			for i := range out {
				out[i].Origin = Origin{}
				if out[i].Src != sorted[i].Src {
					t.Fatalf("position %d: edge %s (T %d); want %s (T %d)", i, out[i].Src, out[i].T, sorted[i].Src, sorted[i].T)
				}
			}
		})
	}
}

// TestReorderRandom compares the buffer with a slow oracle over random
// operations: random partitions, times, seqs, lateness, idle periods.
func TestReorderRandom(t *testing.T) {
	for seed := uint64(1); seed <= 200; seed++ {
		rng := rand.New(rand.NewPCG(seed, 99))
		lateness := rng.Int64N(5)
		idle := time.Duration(rng.IntN(3)) * time.Second
		clock := newFakeClock()
		r := NewReorder(lateness, idle, clock.now)
		o := newReorderOracle(lateness, idle, clock.now)
		parts := 1 + rng.IntN(3)
		offs := make([]int64, parts)
		for step := 0; step < 300; step++ {
			switch op := rng.IntN(10); {
			case op < 6:
				p := rng.IntN(parts)
				e := Edge{Src: fmt.Sprint(step), T: rng.Int64N(30) + int64(step/10), Origin: Origin{Partition: p, Offset: offs[p]}}
				if rng.IntN(3) == 0 {
					e.Seq, e.HasSeq = rng.Int64N(4), true
				}
				offs[p]++
				if got, want := r.Add(e), o.add(e); got != want {
					t.Fatalf("seed %d step %d: Add(T %d) late = %v; want %v", seed, step, e.T, got, want)
				}
			case op < 9:
				got, w := r.Release()
				want, ow := o.release(false)
				if names(got) != names(want) || w != ow {
					t.Fatalf("seed %d step %d: Release = %q, %d; want %q, %d", seed, step, names(got), w, names(want), ow)
				}
				if !reflect.DeepEqual(r.MinOffsets(), o.minOffsets()) {
					t.Fatalf("seed %d step %d: MinOffsets = %v; want %v", seed, step, r.MinOffsets(), o.minOffsets())
				}
			default:
				clock.advance(time.Duration(rng.IntN(1500)) * time.Millisecond)
			}
			if r.Len() != len(o.buf) {
				t.Fatalf("seed %d step %d: Len = %d; want %d", seed, step, r.Len(), len(o.buf))
			}
		}
		got, w := r.Flush()
		want, ow := o.release(true)
		if names(got) != names(want) || w != ow {
			t.Fatalf("seed %d: Flush = %q, %d; want %q, %d", seed, names(got), w, names(want), ow)
		}
	}
}

// reorderOracle is the obvious implementation: a list sorted on release.
type reorderOracle struct {
	lateness int64
	idle     time.Duration
	now      func() time.Time
	w        int64
	arrivals int64
	buf      []Edge // in arrival order until sorted: the sort is stable
	maxT     map[int]int64
	lastAdd  map[int]time.Time // the time of the first Release after an Add
	touched  map[int]bool
}

func newReorderOracle(lateness int64, idle time.Duration, now func() time.Time) *reorderOracle {
	return &reorderOracle{lateness: lateness, idle: idle, now: now, w: math.MinInt64,
		maxT: map[int]int64{}, lastAdd: map[int]time.Time{}, touched: map[int]bool{}}
}

func (o *reorderOracle) add(e Edge) bool {
	p := e.Origin.Partition
	o.touched[p] = true
	if _, ok := o.maxT[p]; !ok {
		o.maxT[p] = math.MinInt64
	}
	if o.w != math.MinInt64 && e.T <= o.w {
		return true
	}
	o.maxT[p] = max(o.maxT[p], e.T)
	if !e.HasSeq {
		e.Seq = o.arrivals
	}
	o.arrivals++
	o.buf = append(o.buf, e)
	return false
}

func (o *reorderOracle) release(flush bool) ([]Edge, int64) {
	now := o.now()
	var w int64
	allMax := int64(math.MinInt64)
	for _, e := range o.buf {
		allMax = max(allMax, e.T)
	}
	for _, m := range o.maxT {
		allMax = max(allMax, m)
	}
	if flush {
		w = allMax
	} else {
		w = math.MaxInt64
		active := false
		for p, m := range o.maxT {
			if o.touched[p] {
				o.lastAdd[p] = now
				o.touched[p] = false
			}
			if o.idle > 0 && now.Sub(o.lastAdd[p]) >= o.idle || m == math.MinInt64 {
				continue
			}
			active = true
			w = min(w, m-o.lateness-1)
		}
		if !active {
			w = allMax
		}
	}
	w = max(w, o.w)
	o.w = w
	slices.SortStableFunc(o.buf, func(a, b Edge) int {
		return cmp.Or(cmp.Compare(a.T, b.T), cmp.Compare(a.Seq, b.Seq))
	})
	n := 0
	for n < len(o.buf) && o.buf[n].T <= w {
		n++
	}
	out := slices.Clone(o.buf[:n])
	o.buf = o.buf[n:]
	return out, w
}

func (o *reorderOracle) minOffsets() map[int]int64 {
	m := map[int]int64{}
	for _, e := range o.buf {
		p := e.Origin.Partition
		if cur, ok := m[p]; !ok || e.Origin.Offset < cur {
			m[p] = e.Origin.Offset
		}
	}
	return m
}

// TestReorderPendingPartitionHoldsWatermark: a consumer drains a backlog
// partition by partition; partitions known to have unread records must
// not let the others' edges through, or theirs would all arrive late.
func TestReorderPendingPartitionHoldsWatermark(t *testing.T) {
	clock := time.Unix(0, 0)
	r := NewReorder(0, time.Second, func() time.Time { return clock })
	r.SetPending(0, true)
	r.SetPending(1, true)
	for i := range 5 {
		r.Add(Edge{T: int64(100 + i), Origin: Origin{Partition: 1, Offset: int64(i)}})
	}
	r.SetPending(1, false)
	clock = clock.Add(5 * time.Second) // partition 0 silent for long, but pending
	if got, w := r.Release(); len(got) != 0 {
		t.Fatalf("released %d edges (watermark %d) while partition 0 still has unread records", len(got), w)
	}
	for i, tm := range []int64{50, 51} {
		if late := r.Add(Edge{T: tm, Origin: Origin{Partition: 0, Offset: int64(i)}}); late {
			t.Fatalf("partition 0's older edge at t=%d came late", tm)
		}
	}
	r.SetPending(0, false)
	clock = clock.Add(5 * time.Second)
	got, _ := r.Release() // partition 0 just spoke: up to one below its time
	if len(got) != 1 || got[0].T != 50 {
		t.Fatalf("released %d edges; want the one at t=50", len(got))
	}
	clock = clock.Add(5 * time.Second) // both caught up and idle: the rest
	if got, _ = r.Release(); len(got) != 6 || got[0].T != 51 || got[1].T != 100 {
		t.Fatalf("released %d edges; want t=51 and the 5 of partition 1", len(got))
	}
}

// TestReorderKnownSilentPartitionHoldsWatermark: a partition known (from
// the end offsets at start) to exist but empty then may receive records
// at any time, and its reader may start late: until it sends an edge or
// has been silent for the idle duration, it holds the watermark, or its
// first edges would all be late behind a faster partition.
func TestReorderKnownSilentPartitionHoldsWatermark(t *testing.T) {
	clock := time.Unix(0, 0)
	r := NewReorder(0, time.Second, func() time.Time { return clock })
	r.SetPending(0, false)
	r.SetPending(1, false)
	for i := range 5 {
		r.Add(Edge{T: int64(100 + i), Origin: Origin{Partition: 1, Offset: int64(i)}})
	}
	clock = clock.Add(500 * time.Millisecond)
	if got, w := r.Release(); len(got) != 0 {
		t.Fatalf("released %d edges (watermark %d) before partition 0 was heard from or idle", len(got), w)
	}
	for i, tm := range []int64{50, 51} {
		if late := r.Add(Edge{T: tm, Origin: Origin{Partition: 0, Offset: int64(i)}}); late {
			t.Fatalf("partition 0's first edge at t=%d came late", tm)
		}
	}
	if got, _ := r.Release(); len(got) != 1 || got[0].T != 50 {
		t.Fatalf("released %v; want the edge at t=50 once partition 0 spoke", got)
	}
	// Known long before the stream starts, it is not idle at the first
	// edge; a partition that stays silent stops holding once idle.
	r2 := NewReorder(0, time.Second, func() time.Time { return clock })
	r2.SetPending(0, false)
	clock = clock.Add(time.Minute)
	r2.Release()
	r2.Add(Edge{T: 7, Origin: Origin{Partition: 1}})
	if got, _ := r2.Release(); len(got) != 0 {
		t.Fatalf("released %d edges at the stream's first edge, although partition 0 was silent only before the stream started", len(got))
	}
	clock = clock.Add(2 * time.Second)
	if got, _ := r2.Release(); len(got) != 1 {
		t.Fatalf("released %d edges after partition 0 went idle; want 1", len(got))
	}
}

// TestReorderHistoryTieIsNotLate: a restart rebuilds the window from the
// records before the committed offsets (History) and then reads the
// partition on from there. The first record after the committed offset
// may have the same time as the last History record (the commit stopped
// between two edges of one second, e.g. at the last edge of a held
// match): it was not late before the restart, and must not be after,
// however soon a release comes (the consumer joins its group only later).
func TestReorderHistoryTieIsNotLate(t *testing.T) {
	clock := time.Unix(0, 0)
	r := NewReorder(0, time.Minute, func() time.Time { return clock })
	r.SetPending(0, true)
	r.SetPending(1, true)
	for i := range 3 {
		r.Add(Edge{T: int64(98 + i), History: true, Origin: Origin{Partition: 0, Offset: int64(i)}})
		r.Add(Edge{T: int64(200 + i), History: true, Origin: Origin{Partition: 1, Offset: int64(i)}})
	}
	got, w := r.Release()
	if w >= 100 {
		t.Fatalf("watermark %d after History only: partition 0's next record, at t=100 like its last History one, would be late", w)
	}
	if len(got) != 2 {
		t.Fatalf("released %d History edges; want the 2 below t=100", len(got))
	}
	if late := r.Add(Edge{T: 100, Origin: Origin{Partition: 0, Offset: 3}}); late {
		t.Fatalf("the first record after the committed offset, tied with the last History record, came late (watermark %d)", r.Watermark())
	}
	r.Add(Edge{T: 150, Origin: Origin{Partition: 0, Offset: 4}})
	if got, w := r.Release(); w != 149 || len(got) != 2 {
		t.Fatalf("released %d edges up to %d once partition 0 read on; want the 2 at t=100, up to 149", len(got), w)
	}
}

// TestReorderOutageIsNotIdleness: a broker outage silences every
// partition; afterwards the consumer may reach one partition's backlog
// before another's. Silence before IgnoreSilenceBefore's time does not
// make a partition idle, so the first partition's edges wait for the
// second's (older) backlog instead of leaving it late.
func TestReorderOutageIsNotIdleness(t *testing.T) {
	clock := newFakeClock()
	r := NewReorder(0, time.Second, clock.now)
	r.Add(re("a0", 10, 0, 0))
	r.Add(re("b0", 10, 1, 0))
	r.Add(re("a1", 11, 0, 1))
	r.Add(re("b1", 11, 1, 1))
	if got, _ := r.Release(); names(got) != "a0 b0" {
		t.Fatalf("released %q before the outage; want a0 b0", names(got))
	}
	clock.advance(10 * time.Second) // the outage: nothing arrives
	r.IgnoreSilenceBefore(clock.now())
	r.Add(re("a2", 30, 0, 2)) // partition 0 is read first after it
	if got, w := r.Release(); len(got) != 0 {
		t.Fatalf("released %q (watermark %d) right after the outage, ahead of partition 1's backlog", names(got), w)
	}
	r.Add(re("b2", 20, 1, 2)) // partition 1's backlog: not late
	if got, _ := r.Release(); names(got) != "a1 b1" {
		t.Fatalf("released %q once partition 1 spoke; want a1 b1", names(got))
	}
	// Without the call, the same sequence leaves b2 late (the semantics
	// the call exists to avoid).
	r2 := NewReorder(0, time.Second, clock.now)
	r2.Add(re("a0", 10, 0, 0))
	r2.Add(re("b0", 10, 1, 0))
	r2.Release()
	clock.advance(10 * time.Second)
	r2.Add(re("a2", 30, 0, 1))
	r2.Release()
	if !r2.Add(re("b2", 20, 1, 1)) {
		t.Fatal("without IgnoreSilenceBefore, a partition silent through the outage still held the watermark: the test no longer shows the case")
	}
	// A partition that stays silent after the outage is idle again one
	// idle duration later: partition 0 alone moves the watermark.
	clock.advance(1500 * time.Millisecond)
	r.Add(re("a3", 31, 0, 3))
	if got, _ := r.Release(); names(got) != "b2 a2" {
		t.Fatalf("released %q after partition 1 went idle; want b2 a2", names(got))
	}
}

// TestReorderRefsRandom is TestReorderRandom through AppendReleaseRefs:
// the same edges in the same order, and each handed-out edge unchanged
// by the adds that follow until its batch is recycled (batches recycled
// in release order, some while later ones are out).
func TestReorderRefsRandom(t *testing.T) {
	for seed := uint64(1); seed <= 200; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		lateness := rng.Int64N(5)
		clock := newFakeClock()
		r := NewReorder(lateness, time.Second, clock.now)
		c := NewReorder(lateness, time.Second, clock.now) // its twin, copying out
		maxBuf := rng.IntN(40)                            // 0: no cap
		r.SetMaxBuffered(maxBuf)
		c.SetMaxBuffered(maxBuf)
		type batch struct {
			refs []*Edge
			want []Edge // copies at release
		}
		var out []batch
		check := func(step int, b batch) {
			for i, e := range b.refs {
				if !reflect.DeepEqual(*e, b.want[i]) {
					t.Fatalf("seed %d step %d: handed-out edge %d changed before Recycle: %+v, was %+v", seed, step, i, *e, b.want[i])
				}
			}
		}
		offs := make([]int64, 3)
		for step := 0; step < 300; step++ {
			switch op := rng.IntN(10); {
			case op < 6:
				p := rng.IntN(3)
				e := Edge{Src: fmt.Sprint(step), T: rng.Int64N(30) + int64(step/10), Origin: Origin{Partition: p, Offset: offs[p]}}
				offs[p]++
				if late, want := r.Add(e), c.Add(e); late != want {
					t.Fatalf("seed %d step %d: Add late = %v, twin %v", seed, step, late, want)
				}
			case op < 8:
				refs, w := r.AppendReleaseRefs(nil)
				want, cw := c.AppendRelease(nil)
				b := batch{refs: refs}
				for _, e := range refs {
					b.want = append(b.want, *e)
				}
				if !reflect.DeepEqual(b.want, want) || w != cw {
					t.Fatalf("seed %d step %d: refs %q (watermark %d), copies %q (%d)", seed, step, names(b.want), w, names(want), cw)
				}
				out = append(out, b)
			case op < 9 && len(out) > 0:
				check(step, out[0])
				r.Recycle(len(out[0].refs))
				out = out[1:]
			default:
				clock.advance(time.Duration(rng.IntN(1500)) * time.Millisecond)
			}
			if r.Retired() != func() (n int) {
				for _, b := range out {
					n += len(b.refs)
				}
				return n
			}() {
				t.Fatalf("seed %d step %d: Retired %d, want the edges handed out and not recycled", seed, step, r.Retired())
			}
		}
		for _, b := range out {
			check(300, b)
		}
	}
}

// TestReorderPartitionFoundLate: a partition found while the stream runs
// (a topic grown, a log created again) holds the watermark from then on:
// with records to read, until they come; without, for the idle duration
// counted from when it was found, not from when the stream started or
// from its last edge long ago. Its first edges, older than the others'
// newest but after the watermark, are not late.
func TestReorderPartitionFoundLate(t *testing.T) {
	clock := time.Unix(0, 0)
	r := NewReorder(0, time.Second, func() time.Time { return clock })
	for i := range 60 {
		r.Add(Edge{T: int64(100 + i), Origin: Origin{Partition: 0, Offset: int64(i)}})
		r.Add(Edge{T: int64(100 + i), Origin: Origin{Partition: 1, Offset: int64(i)}})
		clock = clock.Add(time.Second)
		r.Release()
	}
	// Partition 1 falls silent (idle); partition 0 flows on.
	for i := 60; i < 70; i++ {
		r.Add(Edge{T: int64(100 + i), Origin: Origin{Partition: 0, Offset: int64(i)}})
		clock = clock.Add(time.Second)
		r.Release()
	}
	w0 := r.Watermark()
	if w0 != 168 {
		t.Fatalf("watermark %d with partition 1 idle; want 168 (partition 0's newest less one)", w0)
	}

	// Partition 2 is found with records to read: nothing passes it.
	r.AddPartition(2, true)
	r.Add(Edge{T: 300, Origin: Origin{Partition: 0, Offset: 70}})
	clock = clock.Add(5 * time.Second)
	if got, w := r.Release(); len(got) != 0 || w != w0 {
		t.Fatalf("released %d edges (watermark %d) while the partition found has unread records", len(got), w)
	}
	if late := r.Add(Edge{T: 170, Origin: Origin{Partition: 2, Offset: 0}}); late {
		t.Fatalf("the first edge of the partition found, t=170 after the watermark %d, came late", w0)
	}
	r.SetPending(2, false)
	if got, _ := r.Release(); len(got) != 1 || got[0].T != 169 {
		t.Fatalf("released %v; want t=169 (up to one below the newest of the partition found)", got)
	}

	// Partition 1, known and idle for long, is found again (its log was
	// reset) with nothing to read yet: it holds the watermark for the
	// idle duration from now.
	r.AddPartition(1, false)
	r.Add(Edge{T: 301, Origin: Origin{Partition: 2, Offset: 1}})
	r.Add(Edge{T: 302, Origin: Origin{Partition: 0, Offset: 71}})
	clock = clock.Add(500 * time.Millisecond)
	w1 := r.Watermark()
	if got, w := r.Release(); len(got) != 0 || w != w1 {
		t.Fatalf("released %d edges (watermark %d, was %d) right after partition 1 was found again: it counted as idle at once", len(got), w, w1)
	}
	r.Add(Edge{T: 303, Origin: Origin{Partition: 0, Offset: 72}})
	r.Add(Edge{T: 304, Origin: Origin{Partition: 2, Offset: 2}})
	clock = clock.Add(600 * time.Millisecond)
	if got, _ := r.Release(); len(got) != 4 || got[0].T != 170 || got[3].T != 302 {
		t.Fatalf("released %v once partition 1 was silent for the idle duration after it was found again; want t=170 to 302", got)
	}
}

// TestReorderPartitionRemoved: a partition gone (its topic deleted) stops
// holding the watermark at once, even with idleness off, and its edges
// still buffered are released in order as the others' watermark passes
// them; found again, it holds the watermark again.
func TestReorderPartitionRemoved(t *testing.T) {
	clock := time.Unix(0, 0)
	r := NewReorder(0, 0, func() time.Time { return clock }) // never idle
	r.Add(Edge{T: 10, Origin: Origin{Partition: 0, Offset: 0}})
	r.Add(Edge{T: 20, Origin: Origin{Partition: 1, Offset: 0}})
	r.Add(Edge{T: 30, Origin: Origin{Partition: 1, Offset: 1}})
	r.Add(Edge{T: 100, Origin: Origin{Partition: 0, Offset: 1}})
	if got, w := r.Release(); len(got) != 2 || w != 29 {
		t.Fatalf("released %v, watermark %d; want t=10 and 20 below partition 1's 30 (watermark 29)", got, w)
	}
	r.RemovePartition(1)
	if got, w := r.Release(); len(got) != 1 || got[0].T != 30 || w != 99 {
		t.Fatalf("released %v, watermark %d after partition 1 was removed; want its t=30 (watermark 99)", got, w)
	}
	r.RemovePartition(1) // nothing buffered now: forgotten
	r.AddPartition(1, true)
	r.Add(Edge{T: 200, Origin: Origin{Partition: 0, Offset: 2}})
	if got, w := r.Release(); len(got) != 0 || w != 99 {
		t.Fatalf("released %v, watermark %d while partition 1, found again, has records to read", got, w)
	}
	if late := r.Add(Edge{T: 150, Origin: Origin{Partition: 1, Offset: 0}}); late {
		t.Fatal("partition 1's first edge after it was found again came late")
	}
}

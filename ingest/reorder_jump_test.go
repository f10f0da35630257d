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

// jumpRule is the rule of these tests: a minute of ticks (seconds), three
// confirmations.
var jumpRule = JumpRule{MaxJump: 60, Confirmations: 3, Tick: time.Second}

// feed adds es to r and returns the names of the late ones.
func feed(r *Reorder, es ...Edge) string {
	var late []Edge
	for _, e := range es {
		if r.Add(e) {
			late = append(late, e)
		}
	}
	return names(late)
}

// steady returns n edges of partition part named prefix0.., one every
// step ticks from t0, at offsets from off0.
func steady(prefix string, part int, t0, step int64, n int, off0 int64) []Edge {
	es := make([]Edge, n)
	for i := range es {
		es[i] = re(fmt.Sprintf("%s%d", prefix, i), t0+int64(i)*step, part, off0+int64(i))
	}
	return es
}

func discardedNames(ds []Discarded) string {
	es := make([]Edge, len(ds))
	for i, d := range ds {
		es[i] = d.Edge
	}
	return names(es)
}

// TestJumpOutlierCostsItself: one record an hour ahead of a partition
// (a producer's skewed clock) is held; the on-time edges after it are
// neither late nor held back; once the partition has gone on at its old
// time for max_jump, the record is discarded (for the caller to
// dead-letter as future). Without the rule the same input makes every
// on-time edge after the outlier late: the failure the rule removes.
func TestJumpOutlierCostsItself(t *testing.T) {
	before := steady("a", 0, 1000, 2, 20, 0) // t 1000..1038
	outlier := re("X", 1038+3600, 0, 20)
	after := steady("b", 0, 1040, 2, 60, 21) // t 1040..1158: 120 s more

	old := NewReorder(2, 0, nil)
	feed(old, before...)
	feed(old, outlier)
	old.Release()
	if late := feed(old, after...); late == "" {
		t.Fatal("without the rule the on-time edges after the outlier were not late: the test shows nothing")
	}

	r := NewReorder(2, 0, nil)
	r.SetJumpRule(jumpRule)
	feed(r, before...)
	r.AppendJumpEvents(nil) // the fresh start's: its first three edges are its time
	feed(r, outlier)
	var out []Edge
	got, w := r.Release()
	out = append(out, got...)
	if w >= outlier.T-3600 || r.Held() != 1 {
		t.Fatalf("after the outlier: watermark %d, %d held; want the watermark at the stream's time, the outlier held", w, r.Held())
	}
	for i, e := range after {
		if late := feed(r, e); late != "" {
			t.Fatalf("on-time edge %s (t %d) late after the outlier: watermark %d", e.Src, e.T, r.Watermark())
		}
		if i == 10 {
			got, _ := r.Release()
			out = append(out, got...)
			if ds := r.AppendDiscarded(nil); len(ds) != 0 {
				t.Fatalf("outlier discarded after only 20 s of the stream going on: %q", discardedNames(ds))
			}
		}
	}
	ds := r.AppendDiscarded(nil)
	if discardedNames(ds) != "X" || ds[0].PartitionTime < 1038+60 {
		t.Fatalf("discarded %q (partition time %v); want X once the partition went on 60 s", discardedNames(ds), ds)
	}
	got, _ = r.Flush()
	out = append(out, got...)
	want := append(slices.Clone(before), after...)
	if names(out) != names(want) {
		t.Fatalf("released %q;\nwant %q", names(out), names(want))
	}
	if r.Held() != 0 || r.Len() != 0 {
		t.Fatalf("after Flush: %d held, %d buffered", r.Held(), r.Len())
	}
	evs := r.AppendJumpEvents(nil)
	if len(evs) != 2 || evs[0].Kind != JumpHeld || evs[0].T != outlier.T || evs[0].From != 1038 ||
		evs[1].Kind != JumpDiscarded || evs[1].Edges != 1 {
		t.Fatalf("events %+v; want held X from 1038, then discarded", evs)
	}
}

// TestJumpBurstCostsItself: a burst of records from one producer, all
// far ahead and in a row (a producer batches), spreads over a few
// seconds: it confirms no jump however many records it has, and costs
// only itself. The burst is also mined once the stream reaches it: a
// record held and then caught up is an ordinary edge.
func TestJumpBurstCostsItself(t *testing.T) {
	for _, n := range []int{2, 3, 5, 40} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			r := NewReorder(0, 0, nil)
			r.SetJumpRule(jumpRule)
			feed(r, steady("a", 0, 1000, 1, 30, 0)...)
			r.AppendJumpEvents(nil)                 // the fresh start's
			burst := steady("X", 0, 5000, 0, n, 30) // all at t=5000
			feed(r, burst...)
			if got, w := r.Release(); w >= 1030 || len(got) != 29 {
				t.Fatalf("after the burst: released %d, watermark %d; want 29 up to 1028", len(got), w)
			}
			if late := feed(r, steady("b", 0, 1030, 1, 100, int64(30+n))...); late != "" {
				t.Fatalf("late after a burst of %d: %s", n, late)
			}
			if got := discardedNames(r.AppendDiscarded(nil)); got != names(burst) {
				t.Fatalf("discarded %q; want the burst", got)
			}
			for _, ev := range r.AppendJumpEvents(nil) {
				if ev.Kind == JumpConfirmed {
					t.Fatalf("a burst of %d confirmed a jump: %+v", n, ev)
				}
			}
		})
	}
	// Ahead by less than max_jump + lateness of the partition's progress:
	// caught up and mined in order.
	r := NewReorder(0, 0, nil)
	r.SetJumpRule(jumpRule)
	feed(r, steady("a", 0, 1000, 1, 10, 0)...)
	feed(r, re("Y", 1100, 0, 10)) // 91 s ahead: held
	if r.Held() != 1 {
		t.Fatalf("%d held; want Y", r.Held())
	}
	feed(r, steady("b", 0, 1010, 1, 60, 11)...)
	if r.Held() != 0 {
		t.Fatalf("%d held; want Y caught up at t=1040", r.Held())
	}
	out, _ := r.Release()
	if ds := r.AppendDiscarded(nil); len(ds) != 0 {
		t.Fatalf("discarded %q: Y was within reach", discardedNames(ds))
	}
	rest, _ := r.Flush()
	if got := names(append(out, rest...)); !strings.HasSuffix(got, "b59 Y") {
		t.Fatalf("released %q; want Y last, in time order", got)
	}
}

// TestJumpAcrossPartitions: an outlier on one partition while the others
// are idle: without the rule, the watermark is that partition's alone and
// follows the outlier, so its later on-time edges are late; with it,
// nothing is late and the outlier alone is discarded. The partitions that
// are not idle never see it either way.
func TestJumpAcrossPartitions(t *testing.T) {
	run := func(rule JumpRule) (late string, discarded string, out []Edge) {
		clock := newFakeClock()
		r := NewReorder(1, time.Second, clock.now)
		r.SetJumpRule(rule)
		for p := range 3 {
			feed(r, steady(fmt.Sprintf("p%d.", p), p, 1000, 3, 10, 0)...)
		}
		out, _ = r.Release()
		clock.advance(2 * time.Second) // partitions 0 and 2 go idle
		feed(r, re("X", 1030+3000, 1, 10))
		var lates []string
		for i, e := range steady("q", 1, 1030, 2, 60, 11) {
			if late := feed(r, e); late != "" {
				lates = append(lates, late)
			}
			if i%10 == 9 {
				got, _ := r.Release()
				out = append(out, got...)
			}
		}
		clock.advance(time.Second)
		for p := range 3 {
			if p != 1 {
				feed(r, steady(fmt.Sprintf("r%d.", p), p, 1200, 1, 5, 10)...)
			}
		}
		got, _ := r.Flush()
		return strings.Join(lates, " "), discardedNames(r.AppendDiscarded(nil)), append(out, got...)
	}
	if late, _, _ := run(JumpRule{}); late == "" {
		t.Fatal("without the rule nothing was late: the test shows nothing")
	}
	late, discarded, out := run(jumpRule)
	if late != "" || discarded != "X" {
		t.Fatalf("late %q, discarded %q; want none late, X discarded", late, discarded)
	}
	if len(out) != 3*10+60+2*5 || !slices.IsSortedFunc(out, func(a, b Edge) int { return cmp.Compare(a.T, b.T) }) {
		t.Fatalf("released %d edges (%q); want the 100 on-time ones in time order", len(out), names(out))
	}
}

// TestJumpReplayBehindTheClock: a backlog from 2019 replayed now, far
// faster than real time, over 3 partitions, shuffled within the
// lateness, with stretches sparser than max_jump (a partition silent for
// an hour of event time, records minutes apart) and bursts: every edge
// comes out exactly in (t, seq) order, none late, none discarded. A
// record stamped "now" amid it (the wall clock, years ahead of the
// replay) is held and discarded instead of moving the watermark by years.
func TestJumpReplayBehindTheClock(t *testing.T) {
	const t0 = 1_546_300_800 // 2019-01-01
	rng := rand.New(rand.NewPCG(2019, 1))
	var sorted []Edge
	tm := int64(t0)
	for i := range 6000 {
		switch {
		case i%1000 == 999:
			tm += 3600 // an hour of silence
		case i/500%3 == 1:
			tm += 60 + rng.Int64N(300) // sparse: minutes apart
		default:
			tm += rng.Int64N(3)
		}
		e := re(fmt.Sprint("e", i), tm, 0, 0)
		e.Seq, e.HasSeq = int64(i), true
		sorted = append(sorted, e)
	}
	const lateness = 20
	for _, withOutlier := range []bool{false, true} {
		t.Run(fmt.Sprintf("outlier=%v", withOutlier), func(t *testing.T) {
			type arrival struct {
				at int64
				e  Edge
			}
			arr := make([]arrival, len(sorted))
			for i, e := range sorted {
				arr[i] = arrival{e.T + rng.Int64N(lateness), e}
			}
			slices.SortStableFunc(arr, func(a, b arrival) int { return cmp.Compare(a.at, b.at) })
			clock := newFakeClock() // 2023: years after the replay's times
			r := NewReorder(lateness, time.Second, clock.now)
			r.SetJumpRule(jumpRule)
			offs := make([]int64, 3)
			var out []Edge
			for i, a := range arr {
				p := int(a.e.Seq % 3)
				a.e.Origin = Origin{Partition: p, Offset: offs[p]}
				offs[p]++
				if r.Add(a.e) {
					t.Fatalf("edge %s (t %d) late: watermark %d", a.e.Src, a.e.T, r.Watermark())
				}
				if withOutlier && i == 3000 {
					x := re("X", clock.now().Unix(), 1, offs[1])
					offs[1]++
					if r.Add(x) {
						t.Fatal("the outlier came late")
					}
				}
				if i%37 == 0 {
					got, _ := r.Release()
					out = append(out, got...)
				}
			}
			// The input goes quiet: the held edges dated before the wall
			// clock are confirmed and everything is released.
			got, _ := r.Release()
			out = append(out, got...)
			clock.advance(2 * time.Second)
			got, w := r.Release()
			out = append(out, got...)
			if r.Len() != 0 || w != sorted[len(sorted)-1].T {
				t.Fatalf("after the input went quiet: %d buffered, watermark %d; want none, %d", r.Len(), w, sorted[len(sorted)-1].T)
			}
			ds := r.AppendDiscarded(nil)
			if want := map[bool]string{false: "", true: "X"}[withOutlier]; discardedNames(ds) != want {
				t.Fatalf("discarded %q; want %q", discardedNames(ds), want)
			}
			if len(out) != len(sorted) {
				t.Fatalf("released %d edges; want %d", len(out), len(sorted))
			}
			for i := range out {
				if out[i].Src != sorted[i].Src {
					t.Fatalf("position %d: %s (t %d); want %s (t %d)", i, out[i].Src, out[i].T, sorted[i].Src, sorted[i].T)
				}
			}
		})
	}
}

// TestJumpWholeFeedJumps: every partition's clock moves two hours ahead
// and stays there. The jump is held until each partition confirms it
// (three records in a row ahead, over at least max_jump), then the
// watermark follows, and every edge is released in order: none late,
// none discarded. Stragglers from before the jump (within the lateness)
// only delay the confirmation.
func TestJumpWholeFeedJumps(t *testing.T) {
	clock := newFakeClock()
	r := NewReorder(5, time.Minute, clock.now)
	r.SetJumpRule(jumpRule)
	var all []Edge
	add := func(e Edge) {
		t.Helper()
		all = append(all, e)
		if r.Add(e) {
			t.Fatalf("%s (t %d) late: watermark %d", e.Src, e.T, r.Watermark())
		}
	}
	offs := make([]int64, 3)
	edge := func(name string, p int, tm int64) Edge {
		e := re(name, tm, p, offs[p])
		offs[p]++
		return e
	}
	for i := range 30 {
		add(edge(fmt.Sprint("a", i), i%3, 1000+int64(i)))
	}
	var out []Edge
	got, w := r.Release()
	out = append(out, got...)
	before := w
	// The jump, with a straggler from before it on partition 0.
	const jump = 1030 + 7200
	for i := range 90 {
		tm := jump + int64(i)
		if i == 4 {
			add(edge("late0", 0, 1028))
		}
		add(edge(fmt.Sprint("b", i), i%3, tm))
		got, w = r.Release()
		out = append(out, got...)
		if i < 3*3 && w > 1030 {
			t.Fatalf("watermark %d after %d records of the jump: taken before every partition confirmed it", w, i+1)
		}
	}
	if w < jump || w <= before {
		t.Fatalf("watermark %d after 90 s of the new time; want it past the jump to %d", w, jump)
	}
	jumps := 0
	for _, ev := range r.AppendJumpEvents(nil) {
		if ev.Kind == JumpConfirmed {
			jumps++
			if ev.T < jump {
				t.Errorf("partition %d confirmed a jump to %d; want at least %d", ev.Partition, ev.T, jump)
			}
		}
		if ev.Kind == JumpDiscarded {
			t.Errorf("discarded: %+v", ev)
		}
	}
	if jumps != 3 {
		t.Errorf("%d partitions confirmed the jump; want 3", jumps)
	}
	got, _ = r.Flush()
	out = append(out, got...)
	slices.SortStableFunc(all, func(a, b Edge) int { return cmp.Compare(a.T, b.T) })
	if names(out) != names(all) {
		t.Fatalf("released %q;\nwant %q", names(out), names(all))
	}
}

// TestJumpFreshStart: a partition with no time before the first
// watermark takes its first Confirmations edges as its time, the oldest
// when one of them is far from the others: an outlier first does not
// become the partition's time.
func TestJumpFreshStart(t *testing.T) {
	r := NewReorder(0, 0, nil)
	r.SetJumpRule(jumpRule)
	feed(r, re("X", 9000, 0, 0), re("a", 1000, 0, 1))
	if got, w := r.Release(); len(got) != 0 || w != math.MinInt64 {
		t.Fatalf("released %q up to %d before the partition had a time", names(got), w)
	}
	feed(r, re("b", 1001, 0, 2))
	if got, w := r.Release(); names(got) != "" || w != 999 {
		t.Fatalf("released %q up to %d; want nothing, up to 999 (the oldest of the first three)", names(got), w)
	}
	if late := feed(r, steady("c", 0, 1002, 1, 100, 3)...); late != "" {
		t.Fatalf("late after an outlier came first: %s", late)
	}
	r.Release()
	if got := discardedNames(r.AppendDiscarded(nil)); got != "X" {
		t.Fatalf("discarded %q; want X", got)
	}
}

// TestJumpCapRelievesHeldFirst: a buffer over its cap drops the held
// edges that their partition contradicted before it releases anything
// early (which would move the watermark to them); a streak that fills
// the buffer is taken as a jump.
func TestJumpCapRelievesHeldFirst(t *testing.T) {
	r := NewReorder(1000, 0, nil) // a long lateness: nothing leaves by the watermark
	r.SetJumpRule(JumpRule{MaxJump: 1100, Confirmations: 3})
	r.SetMaxBuffered(50)
	feed(r, steady("a", 0, 10_000, 1, 20, 0)...)
	feed(r, steady("X", 0, 50_000, 0, 10, 20)...) // a burst, far ahead
	feed(r, steady("b", 0, 10_020, 1, 30, 30)...) // the stream goes on: 60 buffered
	if got, _ := r.Release(); len(got) != 0 || r.Forced() != 0 {
		t.Fatalf("released %d (forced %d); want the held burst dropped, nothing forced", len(got), r.Forced())
	}
	if got := discardedNames(r.AppendDiscarded(nil)); got != names(steady("X", 0, 0, 0, 10, 0)) {
		t.Fatalf("discarded %q; want the burst", got)
	}
	// A whole stream ahead (a jump in a fast replay) fills the buffer
	// before it spreads over max_jump: taken as a jump, not dropped.
	feed(r, steady("J", 0, 60_000, 0, 30, 60)...)
	got, w := r.Release()
	if ds := r.AppendDiscarded(nil); len(ds) != 0 || w < 60_000-1001 {
		t.Fatalf("discarded %q, watermark %d (released %d); want the jump taken", discardedNames(ds), w, len(got))
	}
}

// TestJumpRandom compares the buffer under the rule with a slow oracle
// of the rule over random operations (partitions, in-order and shuffled
// times, gaps, outliers and bursts, releases, idle periods): the same
// late edges, releases, watermarks, discards and offsets.
func TestJumpRandom(t *testing.T) {
	seen := map[JumpEventKind]int{}
	defer func() {
		t.Logf("events over all seeds: %v", seen)
		for _, k := range []JumpEventKind{JumpHeld, JumpConfirmed, JumpClock, JumpDiscarded} {
			if seen[k] == 0 {
				t.Errorf("no %v event in any seed: the test does not exercise it", k)
			}
		}
	}()
	for seed := uint64(1); seed <= 300; seed++ {
		rng := rand.New(rand.NewPCG(seed, 24))
		lateness := rng.Int64N(4)
		idle := time.Duration(rng.IntN(3)) * time.Second
		rule := JumpRule{MaxJump: lateness + 1 + rng.Int64N(20), Confirmations: 2 + rng.IntN(3), Tick: time.Second}
		clock := newFakeClock()
		r := NewReorder(lateness, idle, clock.now)
		r.SetJumpRule(rule)
		o := newJumpOracle(lateness, idle, rule, clock.now)
		parts := 1 + rng.IntN(3)
		offs := make([]int64, parts)
		tm := make([]int64, parts)
		for p := range tm {
			tm[p] = clock.now().Unix() - 100_000 + rng.Int64N(50) // a replay, or
			if seed%3 == 0 {
				tm[p] = clock.now().Unix() - rng.Int64N(50) // live
			}
		}
		for step := 0; step < 400; step++ {
			switch op := rng.IntN(12); {
			case op < 7:
				p := rng.IntN(parts)
				switch k := rng.IntN(40); {
				case k == 0:
					tm[p] += rule.MaxJump + rng.Int64N(200) // a jump
				case k < 3:
					tm[p] += rng.Int64N(rule.MaxJump) // a gap
				default:
					tm[p] += rng.Int64N(3)
				}
				t0 := tm[p] - rng.Int64N(lateness+1)
				if rng.IntN(25) == 0 {
					t0 = tm[p] + rule.MaxJump + 1 + rng.Int64N(5000) // an outlier
				}
				n := 1
				if rng.IntN(10) == 0 {
					n = 2 + rng.IntN(4) // a burst at one time
				}
				for range n {
					e := Edge{Src: fmt.Sprint(step, "/", offs[p]), T: t0, Origin: Origin{Partition: p, Offset: offs[p]}}
					if rng.IntN(3) == 0 {
						e.Seq, e.HasSeq = rng.Int64N(4), true
					}
					offs[p]++
					if got, want := r.Add(e), o.add(e); got != want {
						t.Fatalf("seed %d step %d: Add(%s, t %d) late = %v; want %v", seed, step, e.Src, e.T, got, want)
					}
				}
			case op < 10:
				got, w := r.Release()
				want, ow := o.release(false)
				if names(got) != names(want) || w != ow {
					t.Fatalf("seed %d step %d: Release = %q, %d;\nwant %q, %d", seed, step, names(got), w, names(want), ow)
				}
				if !reflect.DeepEqual(r.MinOffsets(), o.minOffsets()) {
					t.Fatalf("seed %d step %d: MinOffsets = %v; want %v", seed, step, r.MinOffsets(), o.minOffsets())
				}
			default:
				clock.advance(time.Duration(rng.IntN(1500)) * time.Millisecond)
			}
			for _, ev := range r.AppendJumpEvents(nil) {
				seen[ev.Kind] += ev.Edges
			}
			if got, want := discardedNames(r.AppendDiscarded(nil)), names(o.takeDiscarded()); got != want {
				t.Fatalf("seed %d step %d: discarded %q; want %q", seed, step, got, want)
			}
			if r.Len() != len(o.buf) || r.Held() != o.held() || r.StreamTime() != o.streamTime() {
				t.Fatalf("seed %d step %d: Len %d, Held %d, StreamTime %d; want %d, %d, %d", seed, step,
					r.Len(), r.Held(), r.StreamTime(), len(o.buf), o.held(), o.streamTime())
			}
		}
		got, w := r.Flush()
		want, ow := o.release(true)
		if names(got) != names(want) || w != ow {
			t.Fatalf("seed %d: Flush = %q, %d; want %q, %d", seed, names(got), w, names(want), ow)
		}
	}
}

// jumpOracle is the rule the obvious way: one list of buffered edges,
// sorted on release, and per partition a list of held edges.
type jumpOracle struct {
	*reorderOracle
	rule      JumpRule
	parts     map[int]*oraclePart
	arr       []int64        // the arrival numbers of buf's edges
	held_     map[int64]bool // arrival numbers of the edges in held heaps
	discarded []Edge
	stream    int64
	maxAdded  int64
}

type oraclePart struct {
	maxT, cont int64
	queue      []oracleHeld
	streak     struct {
		n        int
		min, max int64
		coherent bool
		id       int
	}
}

type oracleHeld struct {
	arr, contAt int64
	streak      int
}

func newJumpOracle(lateness int64, idle time.Duration, rule JumpRule, now func() time.Time) *jumpOracle {
	return &jumpOracle{reorderOracle: newReorderOracle(lateness, idle, now), rule: rule,
		parts: map[int]*oraclePart{}, held_: map[int64]bool{}, stream: math.MinInt64, maxAdded: math.MinInt64}
}

func (o *jumpOracle) part(id int) *oraclePart {
	p := o.parts[id]
	if p == nil {
		p = &oraclePart{maxT: math.MinInt64}
		o.parts[id] = p
	}
	return p
}

func (o *jumpOracle) ahead(p *oraclePart, t int64) bool {
	ref := p.maxT
	if o.w != math.MinInt64 {
		ref = max(ref, satAdd(satAdd(o.w, o.lateness), 1))
	}
	return ref == math.MinInt64 || t > satAdd(ref, o.rule.MaxJump)
}

func (o *jumpOracle) endStreak(p *oraclePart) {
	if p.streak.n > 0 {
		p.streak.n = 0
		p.streak.id++
	}
}

func (o *jumpOracle) add(e Edge) bool {
	id := e.Origin.Partition
	p := o.part(id)
	o.touched[id] = true
	if _, ok := o.maxT[id]; !ok {
		o.maxT[id] = math.MinInt64
	}
	if o.w != math.MinInt64 && e.T <= o.w {
		o.endStreak(p)
		return true
	}
	held := o.ahead(p, e.T)
	if !held {
		if e.T > p.maxT {
			if p.maxT != math.MinInt64 {
				p.cont = satAdd(p.cont, satDiff(e.T, p.maxT))
			}
			p.maxT = e.T
			o.stream = max(o.stream, e.T)
		}
		o.endStreak(p)
		o.settle(id)
	}
	o.maxAdded = max(o.maxAdded, e.T)
	arr := o.arrivals
	o.arrivals++
	if !e.HasSeq {
		e.Seq = arr
	}
	o.buf = append(o.buf, e)
	o.arr = append(o.arr, arr)
	if held {
		o.held_[arr] = true
		p.queue = append(p.queue, oracleHeld{arr: arr, contAt: p.cont, streak: p.streak.id})
		s := &p.streak
		if s.n == 0 {
			s.min, s.max, s.coherent = e.T, e.T, true
		} else {
			if e.T < satSub(s.min, o.rule.MaxJump) || e.T > satAdd(s.max, o.rule.MaxJump) {
				s.coherent = false
			}
			s.min, s.max = min(s.min, e.T), max(s.max, e.T)
		}
		s.n++
		if s.n >= o.rule.Confirmations && ((p.maxT == math.MinInt64 && o.w == math.MinInt64) || satDiff(s.max, s.min) >= o.rule.MaxJump) {
			o.confirm(id, s.min, s.max, s.coherent)
		}
	}
	o.syncMaxT()
	return false
}

func (o *jumpOracle) confirm(id int, lo, hi int64, coherent bool) {
	p := o.parts[id]
	to := lo
	if coherent {
		to = hi
	}
	p.maxT = max(p.maxT, to)
	o.stream = max(o.stream, p.maxT)
	o.endStreak(p)
	o.sweep(id)
	o.settle(id)
}

// settle is reorder_jump.go's settle over the lists.
func (o *jumpOracle) settle(id int) {
	p := o.parts[id]
	for len(p.queue) > 0 {
		h := p.queue[0]
		if i := o.index(h.arr); i >= 0 && o.held_[h.arr] {
			switch {
			case !o.ahead(p, o.buf[i].T):
				delete(o.held_, h.arr) // caught up
			case p.cont-h.contAt < o.rule.MaxJump:
				return
			default:
				o.discarded = append(o.discarded, o.buf[i])
				o.remove(i)
			}
		}
		p.queue = p.queue[1:]
	}
}

// sweep drops every held edge of partition id that is caught up.
func (o *jumpOracle) sweep(id int) {
	p := o.parts[id]
	var q []oracleHeld
	for _, h := range p.queue {
		i := o.index(h.arr)
		switch {
		case i < 0 || !o.held_[h.arr]:
		case !o.ahead(p, o.buf[i].T):
			delete(o.held_, h.arr)
		default:
			q = append(q, h)
		}
	}
	p.queue = q
}

// index returns the position in buf of the edge of arrival number arr.
func (o *jumpOracle) index(arr int64) int {
	return slices.Index(o.arr, arr)
}

func (o *jumpOracle) remove(i int) {
	delete(o.held_, o.arr[i])
	o.buf = slices.Delete(o.buf, i, i+1)
	o.arr = slices.Delete(o.arr, i, i+1)
}

// syncMaxT gives the base oracle the partitions' times.
func (o *jumpOracle) syncMaxT() {
	for id, p := range o.parts {
		o.maxT[id] = p.maxT
	}
}

func (o *jumpOracle) held() int { return len(o.held_) }

func (o *jumpOracle) streamTime() int64 { return o.stream }

func (o *jumpOracle) takeDiscarded() []Edge {
	d := o.discarded
	o.discarded = nil
	return d
}

func (o *jumpOracle) release(flush bool) ([]Edge, int64) {
	now := o.now()
	var w int64
	if flush {
		w = o.maxAdded
	} else {
		w = math.MaxInt64
		active := false
		for id, m := range o.maxT {
			if o.touched[id] {
				o.lastAdd[id] = now
				o.touched[id] = false
			}
			if o.idle > 0 && now.Sub(o.lastAdd[id]) >= o.idle {
				continue
			}
			if m == math.MinInt64 {
				if o.w == math.MinInt64 && o.heldOf(id) > 0 {
					active = true
					w = math.MinInt64
				}
				continue
			}
			active = true
			w = min(w, m-o.lateness-1)
		}
		if !active {
			wall := now.Unix()
			ids := slices.Sorted(func(yield func(int) bool) {
				for id := range o.parts {
					if !yield(id) {
						return
					}
				}
			})
			for _, id := range ids {
				p := o.parts[id]
				to := int64(math.MinInt64)
				for i, e := range o.buf {
					if e.Origin.Partition == id && o.held_[o.arr[i]] && e.T <= wall {
						to = max(to, e.T)
					}
				}
				if to > p.maxT {
					p.maxT = to
					o.stream = max(o.stream, to)
					o.endStreak(p)
					o.sweep(id)
					o.settle(id)
				}
			}
			w = o.stream
		}
	}
	w = max(w, o.w)
	o.w = w
	// Release in (t, seq, arrival) order.
	idx := make([]int, len(o.buf))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		ea, eb := o.buf[a], o.buf[b]
		return cmp.Or(cmp.Compare(ea.T, eb.T), cmp.Compare(ea.Seq, eb.Seq), cmp.Compare(o.arr[a], o.arr[b]))
	})
	var out []Edge
	var keep []int
	for _, i := range idx {
		if o.buf[i].T <= w {
			out = append(out, o.buf[i])
			delete(o.held_, o.arr[i])
		} else {
			keep = append(keep, i)
		}
	}
	slices.Sort(keep)
	buf, arr := make([]Edge, 0, len(keep)), make([]int64, 0, len(keep))
	for _, i := range keep {
		buf, arr = append(buf, o.buf[i]), append(arr, o.arr[i])
	}
	o.buf, o.arr = buf, arr
	if !flush {
		ids := slices.Sorted(func(yield func(int) bool) {
			for id := range o.parts {
				if !yield(id) {
					return
				}
			}
		})
		for _, id := range ids {
			o.settle(id)
		}
	}
	o.syncMaxT()
	return out, w
}

func (o *jumpOracle) heldOf(id int) int {
	n := 0
	for i, e := range o.buf {
		if e.Origin.Partition == id && o.held_[o.arr[i]] {
			n++
		}
	}
	return n
}

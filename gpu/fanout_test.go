package gpu

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/window"
)

func fanoutWindow(t *testing.T, edges [][3]int64) *window.Window {
	t.Helper()
	w, err := window.New(window.Schema{TimeUnit: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range edges {
		u, _ := w.IDs().Intern(strconv.FormatInt(e[0], 10))
		v, _ := w.IDs().Intern(strconv.FormatInt(e[1], 10))
		if _, err := w.Append(window.Edge{Src: u, Dst: v, T: e[2]}); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

// lightAndHeavyWindows: a chain of 1000 edges (mean step-1 run below 1:
// light) and a hub, node 0 receiving from and sending to 50 others in
// turn (heavy).
func lightAndHeavyWindows(t *testing.T) (light, heavy *window.Window) {
	t.Helper()
	var chain, hub [][3]int64
	for i := int64(0); i < 1000; i++ {
		chain = append(chain, [3]int64{2 * i, 2*i + 1, i})
		if i%2 == 0 {
			hub = append(hub, [3]int64{1 + i%50, 0, i})
		} else {
			hub = append(hub, [3]int64{0, 1 + i%50, i})
		}
	}
	return fanoutWindow(t, chain), fanoutWindow(t, hub)
}

// TestFirstRunMean: on a range of at most fanoutSamples roots every root
// is sampled, so the estimate is the exact mean, checked against a scan of
// the list step 1 reads (by the step's bind) for every root.
func TestFirstRunMean(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	var edges [][3]int64
	tm := int64(0)
	for len(edges) < 400 {
		u, v := rng.Int64N(12), rng.Int64N(12)
		if u == v {
			continue
		}
		tm += rng.Int64N(4)
		edges = append(edges, [3]int64{u, v, tm})
	}
	w := fanoutWindow(t, edges)
	for _, name := range []string{"M1", "M2", "M3", "M5", "M6", "M7", "M9", "M10", "M11", "M12", "M13"} {
		for _, delta := range []int64{5, 40} {
			p := compileBuiltin(t, w, name, delta)
			root := p.Query.Edges[p.Steps[0].Edge]
			s := p.Steps[1]
			for _, lo := range []int64{w.First(), w.First() + 100, w.End() - 64} {
				hi := min(lo+fanoutSamples, w.End())
				var sum int64
				for pos := lo; pos < hi; pos++ {
					ends := map[int]uint32{root.From: w.Src(pos), root.To: w.Dst(pos)}
					list := w.Out(ends[s.From])
					if s.Bind == motif.BindTo {
						list = w.In(ends[s.To])
					}
					for _, a := range list {
						if a.T >= w.T(pos)-p.Delta && a.T < w.T(pos) {
							sum++
						}
					}
				}
				want := float64(sum) / float64(hi-lo)
				if got := firstRunMean(w, p, lo, hi); got != want {
					t.Errorf("%s, delta %d, roots [%d, %d): mean step-1 run %v, want %v", name, delta, lo, hi, got, want)
				}
			}
		}
	}
}

// TestExpand2Light: a five-edge plan keeps expand2 on a window whose
// roots' step-1 runs are long (a hub receiving and sending every edge)
// and drops it on one where they are empty (a chain of distinct nodes);
// four-edge plans, small launches, Expand2All and a negative
// Expand2Fanout never drop it.
func TestExpand2Light(t *testing.T) {
	light, heavy := lightAndHeavyWindows(t)
	if o := (tuning{}).withDefaults(); o.Expand2Fanout != defaultExpand2Fanout {
		t.Errorf("Expand2Fanout %d, want %d", o.Expand2Fanout, defaultExpand2Fanout)
	}
	small := tuning{Expand2Roots: 100}.withDefaults()
	for _, c := range []struct {
		what  string
		o     tuning
		w     *window.Window
		name  string
		light bool
	}{
		{"light, M13", small, light, "M13", true},
		{"light, M11", small, light, "M11", true},
		{"heavy, M13", small, heavy, "M13", false},
		{"heavy, M12", small, heavy, "M12", false},
		{"light, M5 (four edges)", small, light, "M5", false},
		{"light, M13, 2^20 roots", tuning{}.withDefaults(), light, "M13", false},
		{"light, M13, fanout -1", tuning{Expand2Roots: 100, Expand2Fanout: -1}.withDefaults(), light, "M13", false},
		{"light, M13, Expand2All", tuning{Expand2All: true}.withDefaults(), light, "M13", false},
	} {
		p := compileBuiltin(t, c.w, c.name, 3600)
		if got := c.o.expand2Light(c.w, p, c.w.First(), c.w.End()); got != c.light {
			t.Errorf("%s: expand2Light %v (mean step-1 run %.2f), want %v", c.what, got, firstRunMean(c.w, p, c.w.First(), c.w.End()), c.light)
		}
	}
	// The engine's Options carry the same defaults (withDefaults).
	if o := (Options{}).withDefaults(); o.tune != (tuning{}).withDefaults() {
		t.Errorf("Options{}.withDefaults() tuning %+v, want %+v", o.tune, (tuning{}).withDefaults())
	}
}

// TestEncodeLaunch: a launch takes the light encoding where the window is
// light and the plan's light encoding differs from the default's: M13
// (expand2 dropped, pruned) and M10 (no expand2 either way: pruned on its
// triangle edge); on a heavy window, or below Expand2Roots, the default's.
func TestEncodeLaunch(t *testing.T) {
	light, heavy := lightAndHeavyWindows(t)
	small := tuning{Expand2Roots: 100}.withDefaults()
	for _, c := range []struct {
		what      string
		o         tuning
		w         *window.Window
		name      string
		wantLight bool
	}{
		{"light, M10", small, light, "M10", true},
		{"light, M13", small, light, "M13", true},
		{"heavy, M10", small, heavy, "M10", false},
		{"heavy, M13", small, heavy, "M13", false},
		{"light, M10, 2^20 roots", tuning{}.withDefaults(), light, "M10", false},
		{"light, M10, NoClosePrune", tuning{Expand2Roots: 100, NoClosePrune: true}.withDefaults(), light, "M10", false},
	} {
		p := compileBuiltin(t, c.w, c.name, 3600)
		got, err := c.o.encodeLaunch(c.w, p, c.w.First(), c.w.End(), true)
		if err != nil {
			t.Fatal(err)
		}
		def, _ := c.o.encode(p, true)
		lt, _ := c.o.encodeLight(p, true)
		want := def
		if c.wantLight {
			want = lt
			if slices.Equal(lt.P[:], def.P[:]) {
				t.Errorf("%s: the light encoding equals the default's: the case checks nothing", c.what)
			}
		}
		if !slices.Equal(got.P[:], want.P[:]) {
			t.Errorf("%s: launch encoding pruned %v, expanded2 %v; want the %s encoding (pruned %v, expanded2 %v)",
				c.what, got.pruned(), got.expanded2(), map[bool]string{true: "light", false: "default"}[c.wantLight], want.pruned(), want.expanded2())
		}
	}
}

// TestEncodeLight: a light launch's encoding has no expand2 and keeps the
// closing-edge pruning where its anchor is an endpoint of the root (M11,
// M12 as by default, M13 as with ClosePruneAll, M10 on its triangle edge
// 3->1 as with ClosePruneRoot), never with NoClosePrune; otherwise it is
// the default's.
func TestEncodeLight(t *testing.T) {
	w := fanoutWindow(t, [][3]int64{{1, 2, 1}})
	pruned := map[string]bool{"M3": true, "M4": true, "M9": true, "M10": true, "M11": true, "M12": true, "M13": true}
	for _, name := range []string{"M1", "M3", "M4", "M5", "M7", "M9", "M10", "M11", "M12", "M13"} {
		p := compileBuiltin(t, w, name, 3600)
		o := tuning{}.withDefaults()
		enc, err := o.encodeLight(p, true)
		if err != nil {
			t.Fatal(err)
		}
		if enc.expanded2() || enc.pruned() != pruned[name] {
			t.Errorf("%s: light encoding expanded2 %v, pruned %v; want false, %v", name, enc.expanded2(), enc.pruned(), pruned[name])
		}
		root := name == "M10" || name == "M13"
		ref := tuning{Expand2Run: -1, ClosePruneAll: root, ClosePruneRoot: root}.withDefaults()
		if want, _ := ref.encode(p, true); !slices.Equal(enc.P[:], want.P[:]) {
			t.Errorf("%s: light encoding differs from the default's without expand2 (M10, M13: with ClosePruneAll, ClosePruneRoot)", name)
		}
		if enc, _ := (tuning{NoClosePrune: true}).withDefaults().encodeLight(p, true); enc.pruned() || enc.expanded2() {
			t.Errorf("%s, NoClosePrune: light encoding pruned %v, expanded2 %v", name, enc.pruned(), enc.expanded2())
		}
	}
}

// TestChunkClaim: a launch of at least ChunkRoots roots of a four-edge
// plan claims 32 roots at a time; a three- or five-edge plan, a smaller
// launch and a negative ChunkRoots keep guided claims (0); the default is
// 2^20.
func TestChunkClaim(t *testing.T) {
	var hub [][3]int64
	for i := int64(0); i < 1000; i++ {
		if i%2 == 0 {
			hub = append(hub, [3]int64{1 + i%50, 0, i})
		} else {
			hub = append(hub, [3]int64{0, 1 + i%50, i})
		}
	}
	w := fanoutWindow(t, hub)
	small := tuning{ChunkRoots: 100}.withDefaults()
	for _, c := range []struct {
		what  string
		o     tuning
		name  string
		claim int64
	}{
		{"M1 (three edges)", small, "M1", 0},
		{"M2 (three edges)", small, "M2", 0},
		{"M4 (four edges)", small, "M4", 32},
		{"M7 (four edges)", small, "M7", 32},
		{"M10 (five edges)", small, "M10", 0},
		{"M13 (five edges)", small, "M13", 0},
		{"M3 (four edges)", small, "M3", 32},
		{"M4, 2^20 roots", tuning{}.withDefaults(), "M4", 0},
		{"M4, never", tuning{ChunkRoots: -1}.withDefaults(), "M4", 0},
	} {
		p := compileBuiltin(t, w, c.name, 3600)
		if got := c.o.chunkClaim(p, w.First(), w.End()); got != c.claim {
			t.Errorf("%s: chunkClaim %d, want %d", c.what, got, c.claim)
		}
	}
	if got := (tuning{}).withDefaults().ChunkRoots; got != defaultChunkRoots || defaultChunkRoots != 1<<20 {
		t.Errorf("ChunkRoots default %d, want 2^20", got)
	}
}

package synth

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/motif/cpu"
	"github.com/motifwatch/motifwatch/window"
)

// feedWindow reads n edges of cfg's feed into a window with a one-second
// unit and a number attribute "amount".
func feedWindow(t testing.TB, cfg FeedConfig, n int) (*window.Window, []FeedEdge) {
	t.Helper()
	cfg.Edges = n
	f, err := NewFeed(cfg)
	if err != nil {
		t.Fatal(err)
	}
	w, err := window.New(window.Schema{TimeUnit: time.Second, EdgeAttrs: []window.Attr{{Name: "amount", Kind: window.Number}}})
	if err != nil {
		t.Fatal(err)
	}
	var edges []FeedEdge
	for e := range f.All() {
		s, _ := w.IDs().Intern(e.Src)
		d, _ := w.IDs().Intern(e.Dst)
		if _, err := w.Append(window.Edge{Src: s, Dst: d, T: e.T.Unix(), Attrs: []float64{e.Amount}}); err != nil {
			t.Fatalf("edge %d %+v: %v", len(edges), e, err)
		}
		edges = append(edges, e)
	}
	if len(edges) != n {
		t.Fatalf("feed of %d edges yielded %d", n, len(edges))
	}
	return w, edges
}

// mineDemo counts each demo query's matches in w, and the matches made
// only of planted edges of one instance, by query.
func mineDemo(t testing.TB, w *window.Window, edges []FeedEdge) (all, planted map[string]int64) {
	t.Helper()
	qs, err := motif.ParseQueries([]byte(DemoQueriesYAML), "DemoQueriesYAML")
	if err != nil {
		t.Fatalf("DemoQueriesYAML: %v", err)
	}
	all, planted = map[string]int64{}, map[string]int64{}
	for _, q := range qs {
		p, err := motif.Compile(q, w)
		if err != nil {
			t.Fatal(err)
		}
		sink := motif.SinkFunc(func(m *motif.Match) error {
			first := edges[m.Edges[0]-w.First()]
			for _, pos := range m.Edges {
				e := edges[pos-w.First()]
				if e.Instance == 0 || e.Instance != first.Instance {
					return nil
				}
				if e.Planted != q.Name {
					t.Errorf("%s matched planted %s edges: %+v", q.Name, e.Planted, e)
				}
			}
			planted[q.Name]++
			return nil
		})
		res, err := cpu.New(1).Mine(context.Background(), w, p, motif.Request{Range: motif.WholeWindow(w), Horizon: motif.Batch, Sink: sink})
		if err != nil {
			t.Fatal(err)
		}
		all[q.Name] = res.Matches
	}
	return all, planted
}

func TestFeedIsDeterministic(t *testing.T) {
	cfg := DefaultFeed(3)
	a, _ := NewFeed(cfg)
	b, _ := NewFeed(cfg)
	var last time.Time
	for i := range 5000 {
		x, _ := a.Next()
		y, _ := b.Next()
		if x != y {
			t.Fatalf("edge %d differs: %+v vs %+v", i, x, y)
		}
		if x.Seq != int64(i) {
			t.Fatalf("edge %d has seq %d", i, x.Seq)
		}
		if x.T.Before(last) {
			t.Fatalf("edge %d at %v before the previous at %v", i, x.T, last)
		}
		if x.T.Sub(cfg.Start)%time.Second != 0 {
			t.Fatalf("edge %d at %v is not a whole second after the start", i, x.T)
		}
		if x.Src == x.Dst {
			t.Fatalf("edge %d is a self-loop: %+v", i, x)
		}
		last = x.T
	}
	other, _ := NewFeed(DefaultFeed(4))
	x, _ := other.Next()
	first, _ := NewFeed(cfg)
	y, _ := first.Next()
	if x == y {
		t.Errorf("seeds 3 and 4 start with the same edge %+v", x)
	}

	// A bounded feed stops; the background does not depend on planting.
	cfg.Edges = 10
	bounded, _ := NewFeed(cfg)
	n := 0
	for range bounded.All() {
		n++
	}
	if _, ok := bounded.Next(); ok || n != 10 {
		t.Errorf("a feed of 10 edges yielded %d, then more", n)
	}
}

func TestFeedBackgroundIsIndependentOfPlanting(t *testing.T) {
	cfg := DefaultFeed(9)
	plain := cfg
	plain.PlantEvery = 0
	_, with := feedWindow(t, cfg, 4000)
	_, without := feedWindow(t, plain, 4000)
	var bg []FeedEdge
	for _, e := range with {
		if e.Planted == "" {
			e.Seq = 0
			bg = append(bg, e)
		}
	}
	for i := range bg {
		e := without[i]
		e.Seq = 0
		if bg[i] != e {
			t.Fatalf("background edge %d differs with planting: %+v vs %+v", i, bg[i], e)
		}
	}
	if len(bg) == len(with) {
		t.Fatal("nothing was planted")
	}
}

func TestFeedPatternsShape(t *testing.T) {
	_, edges := feedWindow(t, DefaultFeed(5), 6000)
	complete := completeInstances(edges)
	byInst := map[int][]FeedEdge{}
	for _, e := range edges {
		if _, ok := complete[e.Instance]; ok {
			byInst[e.Instance] = append(byInst[e.Instance], e)
		}
	}
	kinds := map[string]int{}
	for inst, es := range byInst {
		kinds[es[0].Planted]++
		span := es[len(es)-1].T.Sub(es[0].T)
		switch es[0].Planted {
		case MoneyRing:
			if len(es) != 3 || es[0].Src != es[2].Dst || span > 8*time.Minute {
				t.Errorf("instance %d is no ring within 8m: %+v", inst, es)
			}
			for _, e := range es {
				if e.Amount <= 1000 {
					t.Errorf("instance %d: ring amount %v", inst, e.Amount)
				}
			}
		case FanIn:
			if len(es) < 4 || span > time.Minute {
				t.Errorf("instance %d is no fan-in within 1m: %+v", inst, es)
			}
			for _, e := range es {
				if e.Dst != es[0].Dst || e.Amount < 500 || e.Amount >= 1000 {
					t.Errorf("instance %d: fan-in edge %+v", inst, e)
				}
			}
		case QuickReturn:
			if len(es) != 2 || es[1].Amount > es[0].Amount || span > 2*time.Minute {
				t.Errorf("instance %d is no quick return: %+v", inst, es)
			}
		}
	}
	for _, p := range Patterns() {
		if kinds[p] < 3 {
			t.Errorf("pattern %s planted %d times in 6000 edges; want several (all: %v)", p, kinds[p], kinds)
		}
	}
}

func TestDemoQueriesFindPlantedPatterns(t *testing.T) {
	const n = 20000
	cfg := DefaultFeed(1)
	w, edges := feedWindow(t, cfg, n)
	all, planted := mineDemo(t, w, edges)

	// What each instance must give: one ring, C(k, 4) fan-ins, one quick
	// return, and nothing for the decoy ring.
	want := map[string]int64{}
	sources := map[int]int{}
	for _, e := range edges {
		if e.Planted == FanIn {
			sources[e.Instance]++
		}
	}
	complete := completeInstances(edges)
	for inst, p := range complete {
		switch p {
		case MoneyRing, QuickReturn:
			want[p]++
		case FanIn:
			k := int64(sources[inst])
			want[p] += k * (k - 1) * (k - 2) * (k - 3) / 24
		}
	}
	bgCfg := cfg
	bgCfg.PlantEvery = 0
	bw, bedges := feedWindow(t, bgCfg, n)
	bgAll, _ := mineDemo(t, bw, bedges)
	t.Logf("matches with planting %v, of them planted %v (expected %v); background only %v", all, planted, want, bgAll)
	for _, q := range []string{MoneyRing, FanIn, QuickReturn} {
		if planted[q] == 0 || planted[q] != want[q] {
			t.Errorf("%s: %d matches of planted edges; want %d (>0)", q, planted[q], want[q])
		}
		if bgAll[q]*4 > planted[q] {
			t.Errorf("%s: background-only traffic gives %d matches, not far fewer than the %d planted", q, bgAll[q], planted[q])
		}
	}
}

// completeInstances returns the pattern of every planted instance whose
// edges all lie in edges.
func completeInstances(edges []FeedEdge) map[int]string {
	size := map[string]int{MoneyRing: 3, QuickReturn: 2, RingWithReturn: 4}
	count := map[int]int{}
	kind := map[int]string{}
	for _, e := range edges {
		if e.Instance > 0 {
			count[e.Instance]++
			kind[e.Instance] = e.Planted
		}
	}
	out := map[int]string{}
	for inst, p := range kind {
		if s, ok := size[p]; !ok || count[inst] == s {
			out[inst] = p
		}
	}
	return out
}

func TestNewFeedRejectsBadConfig(t *testing.T) {
	good := DefaultFeed(1)
	for _, c := range []struct {
		edit func(*FeedConfig)
		want string
	}{
		{func(c *FeedConfig) { c.Edges = -1 }, "edges -1"},
		{func(c *FeedConfig) { c.Accounts = 1 }, "accounts 1"},
		{func(c *FeedConfig) { c.MeanAmount = 0 }, "mean amount 0"},
		{func(c *FeedConfig) { c.MeanGap = 0 }, "mean gap 0"},
		{func(c *FeedConfig) { c.PlantEvery = -time.Second }, "plant-every -1s"},
		{func(c *FeedConfig) { c.PlantEvery = time.Second }, "plant-every 1s"},
		{func(c *FeedConfig) { c.Plant = []string{"heist"} }, `unknown pattern "heist"`},
		{func(c *FeedConfig) { c.Plant = []string{} }, "lists no patterns"},
		{func(c *FeedConfig) { c.Reply = 0.9 }, "sum to at most 1"},
	} {
		cfg := good
		c.edit(&cfg)
		_, err := NewFeed(cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewFeed(%+v) = %v; want an error containing %q", cfg, err, c.want)
		}
	}
}

func TestStepperMatchesGenerate(t *testing.T) {
	for _, cfg := range []Config{Default(5000, 1), Default(3000, 42), {Edges: 2000, Nodes: 7, Seed: 3, MeanGap: 5, Zipf: 0, Reply: 0.5, Closure: 0.3, Burst: 0.2}} {
		want, err := Generate(cfg)
		if err != nil {
			t.Fatal(err)
		}
		s, err := newStepper(cfg)
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range want {
			if got := s.next(); got != w {
				t.Fatalf("seed %d edge %d: stepper %+v; Generate %+v", cfg.Seed, i, got, w)
			}
		}
	}
}

func TestDecoyRingNeedsTheAntiEdge(t *testing.T) {
	w, edges := feedWindow(t, DefaultFeed(2), 8000)
	complete := completeInstances(edges)
	var rings, decoys int64
	for _, p := range complete {
		switch p {
		case MoneyRing:
			rings++
		case RingWithReturn:
			decoys++
		}
	}
	if rings == 0 || decoys == 0 {
		t.Fatalf("%d rings and %d decoys planted; want some of each", rings, decoys)
	}
	// Without "not: B -> A" the decoys match too: the anti-edge is what
	// tells them apart.
	noAnti := strings.Replace(DemoQueriesYAML, "    not:\n      - B -> A\n", "", 1)
	if noAnti == DemoQueriesYAML {
		t.Fatal("the money-ring anti-edge is not where this test expects it")
	}
	for _, c := range []struct {
		yaml string
		want int64
	}{{DemoQueriesYAML, rings}, {noAnti, rings + decoys}} {
		qs, err := motif.ParseQueries([]byte(c.yaml), "")
		if err != nil {
			t.Fatal(err)
		}
		p, err := motif.Compile(qs[0], w)
		if err != nil {
			t.Fatal(err)
		}
		res, err := cpu.New(1).Mine(context.Background(), w, p, motif.Request{Range: motif.WholeWindow(w), Horizon: motif.Batch})
		if err != nil {
			t.Fatal(err)
		}
		if res.Matches != c.want {
			t.Errorf("%s with anti-edge %v: %d matches; want %d", qs[0].Name, c.yaml == DemoQueriesYAML, res.Matches, c.want)
		}
	}
}

func TestFeedZeroValues(t *testing.T) {
	// A zero start is the Unix epoch (Kafka timestamps cannot go before
	// it); a zero PlantEvery plants nothing.
	f, err := NewFeed(FeedConfig{Accounts: 10, MeanGap: 1, MeanAmount: 1, Edges: 50})
	if err != nil {
		t.Fatal(err)
	}
	for e := range f.All() {
		if e.T.Before(time.Unix(0, 0)) || e.Planted != "" || e.Amount <= 0 {
			t.Fatalf("edge %+v: want a background edge after the epoch with a positive amount", e)
		}
	}
	if f.Instances() != 0 {
		t.Errorf("%d instances planted without PlantEvery", f.Instances())
	}
}

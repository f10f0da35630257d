package synth

import (
	"fmt"
	"iter"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"
)

// The patterns a Feed plants. Each name is also the name of the demo
// query (DemoQueriesYAML) that finds it, except RingWithReturn, a decoy
// that no demo query may match.
const (
	// MoneyRing is A→B→C→A, each transfer over 1000, each hop within four
	// minutes and the whole ring within eight: one money-ring match.
	MoneyRing = "money-ring"
	// FanIn is four to six fresh accounts each paying one account 500 to
	// 990 (under the ring rule's 1000) within a minute: C(k, 4) fan-in
	// matches for k payers.
	FanIn = "fan-in"
	// QuickReturn is A→B over 1000 and B→A of at most the same amount
	// within two minutes: one quick-return match.
	QuickReturn = "quick-return"
	// RingWithReturn is a money ring in which B pays a small sum back to
	// A before passing the money on: money-ring's anti-edge (no B→A in
	// between) excludes it, and the small return is no quick-return.
	RingWithReturn = "ring-with-return"
)

// Patterns lists every pattern a Feed can plant, in the order a Feed
// plants them by default.
func Patterns() []string { return []string{MoneyRing, FanIn, QuickReturn, RingWithReturn} }

// DemoQueriesYAML holds the demo's queries in motifwatch's query format:
// each finds one planted pattern (and little of the background traffic).
const DemoQueriesYAML = `# The demo queries: each finds one pattern that synth.Feed plants.
queries:
  - name: money-ring
    description: money goes A→B→C→A within 10 minutes, each hop within 5, amounts over 1000, no B→A in between
    delta: 10m
    hop_within: 5m
    edges:
      - A -> B
      - B -> C
      - C -> A
    not:
      - B -> A
    where: amount > 1000
    severity: page
    labels: {team: fraud}
    annotations:
      summary: "{{ .Query }}: {{ .A }} → {{ .B }} → {{ .C }} from {{ .First }}"
      runbook_url: https://runbooks.example/{{ .Query }}
  - name: fan-in
    description: four distinct accounts each pay one account 500 or more within a minute
    delta: 1m
    edges:
      - S1 -> T
      - S2 -> T
      - S3 -> T
      - S4 -> T
    where: amount >= 500
    group_by: [T]           # one incident per paid account: a planted fan-in is up to 15 matches
    severity: ticket
    labels: {team: fraud}
    annotations:
      summary: "{{ .Query }}: payments into {{ .T }} from {{ .First }}"
  - name: quick-return
    description: a payment over 1000 comes straight back, minus at most a fee, within two minutes
    delta: 2m
    edges:
      - A -> B
      - B -> A
    where:
      - amount > 1000
      - e2.amount <= e1.amount
    severity: info
    annotations:
      summary: "{{ .Query }}: {{ .A }} → {{ .B }} → {{ .A }} at {{ .Last }}"
`

// FeedConfig shapes a Feed. The zero value of each field is taken
// literally (a zero PlantEvery plants nothing); use DefaultFeed for the
// demo's settings.
type FeedConfig struct {
	Seed uint64
	// Edges is the number of edges the feed yields; 0 means endless.
	Edges int
	// Start is the time of the feed's first second (zero: the Unix
	// epoch). Feed times are whole seconds after it.
	Start time.Time
	// Accounts is the number of background accounts, acct-0 to
	// acct-<Accounts-1>. Planted patterns use fresh accounts numbered
	// from Accounts up, one set per planted instance, so background and
	// planted traffic never share an account.
	Accounts int
	// MeanGap, Zipf, Reply, Closure and Burst shape the background
	// traffic as in Config (MeanGap in seconds).
	MeanGap float64
	Zipf    float64
	Reply   float64
	Closure float64
	Burst   float64
	// MeanAmount is the median background amount; amounts are log-normal
	// around it with a factor e spread, so a few exceed 1000.
	MeanAmount float64
	// PlantEvery is the mean time between planted instances (each ±25%);
	// 0 plants nothing.
	PlantEvery time.Duration
	// Plant lists the patterns to plant, in turn; nil means Patterns().
	Plant []string
}

// DefaultFeed returns the demo feed's settings: 2,000 accounts making
// about 30 payments a minute with CollegeMsg-like replies, closures and
// bursts, amounts around 40, and a planted pattern every two minutes.
func DefaultFeed(seed uint64) FeedConfig {
	return FeedConfig{
		Seed:       seed,
		Start:      time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC),
		Accounts:   2000,
		MeanGap:    5,
		Zipf:       0.8,
		Reply:      0.3,
		Closure:    0.1,
		Burst:      0.25,
		MeanAmount: 40,
		PlantEvery: 2 * time.Minute,
	}
}

// FeedEdge is one payment of a Feed.
type FeedEdge struct {
	Src, Dst string
	T        time.Time
	Amount   float64
	// Planted names the pattern the edge belongs to ("" for background)
	// and Instance numbers the planted instance from 1 (0 for background).
	Planted  string
	Instance int
	// Seq is the edge's 0-based index in the feed.
	Seq int64
}

// Feed is a deterministic stream of payments in time order: CollegeMsg-like
// background traffic with patterns planted at known times. The same
// config yields the same edges. A Feed is not safe for concurrent use.
type Feed struct {
	cfg     FeedConfig
	bg      *stepper
	amounts *rand.Rand
	plants  *rand.Rand

	head    FeedEdge // the next background edge
	pending []FeedEdge
	// nextPlant is the start of the next planted instance in seconds
	// after Start; instances counts those planted so far.
	nextPlant int64
	instances int
	nextAcct  int
	seq       int64
}

// NewFeed checks cfg and returns its feed.
func NewFeed(cfg FeedConfig) (*Feed, error) {
	if cfg.Edges < 0 {
		return nil, fmt.Errorf("synth: feed edges %d must not be negative (0: endless)", cfg.Edges)
	}
	if cfg.Accounts < 2 {
		return nil, fmt.Errorf("synth: feed accounts %d must be at least 2", cfg.Accounts)
	}
	if !(cfg.MeanAmount > 0) || math.IsInf(cfg.MeanAmount, 0) {
		return nil, fmt.Errorf("synth: feed mean amount %v must be positive", cfg.MeanAmount)
	}
	if cfg.PlantEvery < 0 {
		return nil, fmt.Errorf("synth: feed plant-every %v must not be negative (0: no planting)", cfg.PlantEvery)
	}
	if cfg.PlantEvery > 0 && cfg.PlantEvery < 4*time.Second {
		return nil, fmt.Errorf("synth: feed plant-every %v must be at least 4s", cfg.PlantEvery)
	}
	if cfg.Start.IsZero() {
		cfg.Start = time.Unix(0, 0).UTC()
	}
	if cfg.Plant == nil {
		cfg.Plant = Patterns()
	}
	if cfg.PlantEvery > 0 && len(cfg.Plant) == 0 {
		return nil, fmt.Errorf("synth: feed plants every %v but lists no patterns", cfg.PlantEvery)
	}
	for _, p := range cfg.Plant {
		if !slices.Contains(Patterns(), p) {
			return nil, fmt.Errorf("synth: unknown pattern %q (known: %v)", p, Patterns())
		}
	}
	bg, err := newStepper(Config{
		Edges: 1, Nodes: cfg.Accounts, Seed: cfg.Seed, MeanGap: cfg.MeanGap,
		Zipf: cfg.Zipf, Reply: cfg.Reply, Closure: cfg.Closure, Burst: cfg.Burst,
	})
	if err != nil {
		return nil, err
	}
	f := &Feed{
		cfg:      cfg,
		bg:       bg,
		amounts:  rand.New(rand.NewPCG(cfg.Seed, 0x616d6f756e7473)),
		plants:   rand.New(rand.NewPCG(cfg.Seed, 0x706c616e746564)),
		nextAcct: cfg.Accounts,
	}
	f.head = f.background()
	if cfg.PlantEvery > 0 {
		f.nextPlant = f.plantGap() / 2
	}
	return f, nil
}

// Next returns the next edge, or false when a feed of Edges edges is
// done. Edges come in time order; equal times keep the order given.
func (f *Feed) Next() (FeedEdge, bool) {
	if f.cfg.Edges > 0 && f.seq >= int64(f.cfg.Edges) {
		return FeedEdge{}, false
	}
	// Plant every instance that starts no later than the next edge, so
	// none of its edges can be due before an edge already returned.
	for f.cfg.PlantEvery > 0 && f.nextPlant <= f.headSeconds() {
		f.plant(f.nextPlant)
		f.nextPlant += f.plantGap()
	}
	var e FeedEdge
	if len(f.pending) > 0 && f.pending[0].T.Before(f.head.T) {
		e = f.pending[0]
		f.pending = slices.Delete(f.pending, 0, 1)
	} else {
		e = f.head
		f.head = f.background()
	}
	e.Seq = f.seq
	f.seq++
	return e, true
}

// All iterates over the rest of the feed (forever for an endless feed:
// break out of the loop).
func (f *Feed) All() iter.Seq[FeedEdge] {
	return func(yield func(FeedEdge) bool) {
		for {
			e, ok := f.Next()
			if !ok || !yield(e) {
				return
			}
		}
	}
}

// Instances returns the number of planted instances so far; those whose
// start is no later than the last edge returned are complete or under way.
func (f *Feed) Instances() int { return f.instances }

// headSeconds is the time of the next edge due, in seconds after Start.
func (f *Feed) headSeconds() int64 {
	t := f.head.T
	if len(f.pending) > 0 && f.pending[0].T.Before(t) {
		t = f.pending[0].T
	}
	return int64(t.Sub(f.cfg.Start) / time.Second)
}

// background returns the next background edge.
func (f *Feed) background() FeedEdge {
	e := f.bg.next()
	// Log-normal with sigma 1: the median is MeanAmount, and about one
	// payment in 1,500 of a 40 median exceeds 1000.
	amt := f.cfg.MeanAmount * math.Exp(f.amounts.NormFloat64())
	return FeedEdge{
		Src:    account(int(e.Src)),
		Dst:    account(int(e.Dst)),
		T:      f.at(e.T),
		Amount: cents(max(amt, 0.01)),
	}
}

func (f *Feed) at(sec int64) time.Time { return f.cfg.Start.Add(time.Duration(sec) * time.Second) }

// plantGap is the time to the next instance: PlantEvery ±25%, in seconds.
func (f *Feed) plantGap() int64 {
	every := f.cfg.PlantEvery.Seconds()
	return max(int64(every*(0.75+0.5*f.plants.Float64())), 1)
}

// fresh returns n accounts no edge has used yet.
func (f *Feed) fresh(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = account(f.nextAcct)
		f.nextAcct++
	}
	return out
}

// plant schedules the next pattern instance, starting s seconds after Start.
func (f *Feed) plant(s int64) {
	pattern := f.cfg.Plant[f.instances%len(f.cfg.Plant)]
	f.instances++
	r := f.plants
	add := func(src, dst string, sec int64, amount float64) {
		e := FeedEdge{Src: src, Dst: dst, T: f.at(sec), Amount: cents(amount), Planted: pattern, Instance: f.instances}
		// After every pending edge due no later: equal times keep the
		// order of planting.
		i, _ := slices.BinarySearchFunc(f.pending, e.T, func(p FeedEdge, t time.Time) int {
			if p.T.After(t) {
				return 1
			}
			return -1
		})
		f.pending = slices.Insert(f.pending, i, e)
	}
	big := func() float64 { return 1500 + 7500*r.Float64() }
	switch pattern {
	case MoneyRing:
		n := f.fresh(3)
		g1, g2 := 30+r.Int64N(200), 30+r.Int64N(200)
		amt := big()
		add(n[0], n[1], s, amt)
		add(n[1], n[2], s+g1, amt*0.99)
		add(n[2], n[0], s+g1+g2, amt*0.98)
	case FanIn:
		k := 4 + r.IntN(3)
		n := f.fresh(k + 1)
		offsets := r.Perm(56)[:k] // distinct seconds in [0, 55]
		slices.Sort(offsets)
		for i, off := range offsets {
			add(n[1+i], n[0], s+int64(off), 500+490*r.Float64())
		}
	case QuickReturn:
		n := f.fresh(2)
		amt := big()
		add(n[0], n[1], s, amt)
		add(n[1], n[0], s+15+r.Int64N(90), math.Floor(100*amt*(0.95+0.05*r.Float64()))/100)
	case RingWithReturn:
		n := f.fresh(3)
		amt := big()
		back := 10 + r.Int64N(50)
		hop := 70 + r.Int64N(100)
		add(n[0], n[1], s, amt)
		add(n[1], n[0], s+back, 5+45*r.Float64())
		add(n[1], n[2], s+hop, amt*0.99)
		add(n[2], n[0], s+hop+20+r.Int64N(150), amt*0.98)
	}
}

func account(n int) string { return "acct-" + strconv.Itoa(n) }

// cents rounds an amount to cents.
func cents(x float64) float64 { return math.Round(x*100) / 100 }

// stepper is Generate's loop one edge at a time, for endless streams: the
// same config and seed give the same edges as Generate.
type stepper struct {
	cfg    Config
	rng    *rand.Rand
	pick   func() uint32
	t      int64
	recent [stepperRecent]Edge // the last edges, a ring indexed by n
	n      int                 // edges generated so far
}

const stepperRecent = 8 // Generate's "recent"

func newStepper(cfg Config) (*stepper, error) {
	if cfg.Nodes == 0 {
		cfg.Nodes = max(cfg.Edges/30, 3)
	}
	if cfg.Nodes < 2 {
		return nil, fmt.Errorf("synth: nodes %d must be at least 2", cfg.Nodes)
	}
	if !(cfg.MeanGap > 0) || math.IsInf(cfg.MeanGap, 0) {
		return nil, fmt.Errorf("synth: mean gap %v must be positive", cfg.MeanGap)
	}
	if p := cfg.Reply + cfg.Closure + cfg.Burst; !(p >= 0 && p <= 1) || cfg.Reply < 0 || cfg.Closure < 0 || cfg.Burst < 0 {
		return nil, fmt.Errorf("synth: reply %v, closure %v and burst %v must not be negative and sum to at most 1", cfg.Reply, cfg.Closure, cfg.Burst)
	}
	if !(cfg.Zipf >= 0) || math.IsInf(cfg.Zipf, 0) {
		return nil, fmt.Errorf("synth: zipf exponent %v must not be negative", cfg.Zipf)
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x6d6f74696677))
	return &stepper{cfg: cfg, rng: rng, pick: newZipf(rng, cfg.Nodes, cfg.Zipf)}, nil
}

// last returns one of the i most recent edges at random.
func (s *stepper) last(i int) Edge {
	k := s.rng.IntN(min(i, s.n))
	return s.recent[(s.n-1-k)%stepperRecent]
}

// next generates the next edge.
func (s *stepper) next() Edge {
	cfg := &s.cfg
	for {
		var e Edge
		r := s.rng.Float64()
		gap := cfg.MeanGap
		if s.n > 0 && r < cfg.Reply+cfg.Closure+cfg.Burst {
			gap /= 10
		}
		s.t += int64(s.rng.ExpFloat64() * gap)
		switch {
		case s.n > 0 && r < cfg.Reply:
			p := s.last(stepperRecent)
			e = Edge{Src: p.Dst, Dst: p.Src}
		case s.n > 0 && r < cfg.Reply+cfg.Closure:
			p := s.last(stepperRecent)
			q := s.last(stepperRecent)
			e = Edge{Src: p.Src, Dst: q.Dst}
			if q.Src != p.Dst {
				e.Dst = s.pick()
			}
		case s.n > 0 && r < cfg.Reply+cfg.Closure+cfg.Burst:
			p := s.recent[(s.n-1)%stepperRecent]
			e = Edge{Src: p.Src, Dst: s.last(stepperRecent).Dst}
			if s.rng.IntN(2) == 0 {
				e.Dst = s.pick()
			}
		default:
			e = Edge{Src: s.pick(), Dst: s.pick()}
		}
		if e.Src == e.Dst {
			continue
		}
		e.T = s.t
		s.recent[s.n%stepperRecent] = e
		s.n++
		return e
	}
}

package synth

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/motifwatch/motifwatch/window"
)

// Config shapes a synthetic graph. The zero value of each probability is
// taken literally; use Default for CollegeMsg-like settings.
type Config struct {
	Edges int
	Nodes int // 0: Edges/30 (CollegeMsg has ~1,900 nodes for ~60k edges)
	Seed  uint64
	// MeanGap is the mean time in seconds before an edge that starts a new
	// exchange; replies, closures and bursts follow their trigger after a
	// tenth of it on average, which is what makes messaging graphs bursty.
	// Gaps are exponential and rounded down, so equal timestamps occur.
	MeanGap float64
	Zipf    float64 // exponent of node activity
	Reply   float64 // probability an edge answers a recent edge
	Closure float64 // probability an edge closes a triangle
	Burst   float64 // probability the previous sender sends again
}

// Default returns CollegeMsg-like settings for n edges.
func Default(n int, seed uint64) Config {
	return Config{Edges: n, Seed: seed, MeanGap: 600, Zipf: 1.4, Reply: 0.3, Closure: 0.1, Burst: 0.25}
}

// Edge is one generated edge; nodes are named by their decimal id.
type Edge struct {
	Src, Dst uint32
	T        int64
}

// Generate returns the edges of cfg in time order.
func Generate(cfg Config) ([]Edge, error) {
	if cfg.Edges < 0 {
		return nil, fmt.Errorf("synth: edges %d must not be negative", cfg.Edges)
	}
	if cfg.Nodes == 0 {
		cfg.Nodes = max(cfg.Edges/30, 3)
	}
	if cfg.Nodes < 2 {
		return nil, fmt.Errorf("synth: nodes %d must be at least 2", cfg.Nodes)
	}
	if !(cfg.MeanGap > 0) {
		return nil, fmt.Errorf("synth: mean gap %v must be positive", cfg.MeanGap)
	}
	if p := cfg.Reply + cfg.Closure + cfg.Burst; p < 0 || p > 1 {
		return nil, fmt.Errorf("synth: reply+closure+burst = %v must lie in [0, 1]", p)
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x6d6f74696677))
	pick := newZipf(rng, cfg.Nodes, cfg.Zipf)
	edges := make([]Edge, 0, cfg.Edges)
	var t int64
	const recent = 8
	last := func(i int) Edge { return edges[len(edges)-1-rng.IntN(min(i, len(edges)))] }
	for len(edges) < cfg.Edges {
		var e Edge
		r := rng.Float64()
		gap := cfg.MeanGap
		if len(edges) > 0 && r < cfg.Reply+cfg.Closure+cfg.Burst {
			gap /= 10
		}
		t += int64(rng.ExpFloat64() * gap)
		switch {
		case len(edges) > 0 && r < cfg.Reply:
			p := last(recent)
			e = Edge{Src: p.Dst, Dst: p.Src}
		case len(edges) > 0 && r < cfg.Reply+cfg.Closure:
			// u → a contact of a recent contact of u: closes a wedge.
			p := last(recent)
			q := last(recent)
			e = Edge{Src: p.Src, Dst: q.Dst}
			if q.Src != p.Dst {
				e.Dst = pick()
			}
		case len(edges) > 0 && r < cfg.Reply+cfg.Closure+cfg.Burst:
			p := edges[len(edges)-1]
			e = Edge{Src: p.Src, Dst: last(recent).Dst}
			if rng.IntN(2) == 0 {
				e.Dst = pick()
			}
		default:
			e = Edge{Src: pick(), Dst: pick()}
		}
		if e.Src == e.Dst {
			continue
		}
		e.T = t
		edges = append(edges, e)
	}
	return edges, nil
}

// Window generates cfg into a new window with a one-second time unit and
// no attributes.
func Window(cfg Config) (*window.Window, error) {
	edges, err := Generate(cfg)
	if err != nil {
		return nil, err
	}
	w, err := window.New(window.Schema{TimeUnit: time.Second})
	if err != nil {
		return nil, err
	}
	ids := w.IDs()
	for _, e := range edges {
		s, _ := ids.Intern(strconv.FormatUint(uint64(e.Src), 10))
		d, _ := ids.Intern(strconv.FormatUint(uint64(e.Dst), 10))
		if _, err := w.Append(window.Edge{Src: s, Dst: d, T: e.T}); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// newZipf returns a sampler of node ids whose activity follows a Zipf law
// over a random permutation of the ids (so hubs are not just low ids).
func newZipf(rng *rand.Rand, n int, s float64) func() uint32 {
	perm := rng.Perm(n)
	cdf := make([]float64, n)
	sum := 0.0
	for k := range cdf {
		sum += math.Pow(float64(k+1), -s)
		cdf[k] = sum
	}
	return func() uint32 {
		x := rng.Float64() * sum
		i, j := 0, n-1
		for i < j {
			h := (i + j) / 2
			if cdf[h] < x {
				i = h + 1
			} else {
				j = h
			}
		}
		return uint32(perm[i])
	}
}

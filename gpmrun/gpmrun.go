package gpmrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/motifwatch/motifwatch/engine"
	"github.com/motifwatch/motifwatch/gpm"
	"github.com/motifwatch/motifwatch/gpu"
	"github.com/motifwatch/motifwatch/internal/backend"
	"github.com/motifwatch/motifwatch/internal/progress"
)

// Options say what to count and how.
type Options struct {
	// Graph is the undirected edge file; Load the loader's options (its
	// parsers, its cache).
	Graph string
	Load  gpm.LoadOptions

	// The job: app (clique or motif), subgraph size k, and Enumerate > 0
	// to list up to that many subgraphs: to OnSubgraph as they are found,
	// or, without it, into Report.Subgraphs.
	App        gpm.App
	K          int
	Enumerate  int64
	OnSubgraph func(Subgraph) error

	// The engine: backend (default cpu), the CUDA device, CPU workers or
	// GPU warps (0: the engine's default), work redistribution (DM_OPT;
	// off is DM_WC) below Threshold busy, the bound on the enumeration
	// arrays, and the paper's generic clique workflow instead of the
	// pattern-aware one.
	Backend        backend.Backend
	Device         int
	Workers        int
	Balance        bool
	Threshold      float64
	MemoryLimit    int64
	LiteralCliques bool

	// Progress is the interval of progress lines on Log (0: none). Log
	// gets the notes of a run (what was loaded, a fallback to the CPU);
	// nil discards them.
	Progress time.Duration
	Log      io.Writer
}

// Report is a run's outcome (`monitor gpm --format json` prints it).
type Report struct {
	Graph     string          `json:"graph"`
	Vertices  int             `json:"vertices"`
	Edges     int64           `json:"edges"`
	MaxDegree int             `json:"max_degree"`
	App       string          `json:"app"`
	K         int             `json:"k"`
	Backend   backend.Backend `json:"backend"`
	Workers   int             `json:"workers"`
	Balance   bool            `json:"balance"`
	Total     uint64          `json:"total"`
	Patterns  []Pattern       `json:"patterns"`
	// Partial: interrupted (Ctrl-C); the counts are those found so far.
	Partial     bool       `json:"partial,omitempty"`
	Subgraphs   []Subgraph `json:"subgraphs,omitempty"`
	Truncated   bool       `json:"truncated,omitempty"`
	LoadSeconds float64    `json:"load_seconds"`
	// Cache is how the graph cache served the load (hit, written, rebuilt
	// and why; empty when off).
	Cache string `json:"cache,omitempty"`
	// BytesPerEdge is the graph's host memory (CSR and names) per edge;
	// PeakRSS the process's peak resident set size after loading.
	BytesPerEdge float64 `json:"bytes_per_edge"`
	PeakRSS      int64   `json:"peak_rss_bytes"`
	Seconds      float64 `json:"seconds"`
	Stats        Stats   `json:"stats"`
}

// Pattern is one pattern's count.
type Pattern struct {
	Name  string `json:"name,omitempty"`
	Edges string `json:"edges"`
	Count uint64 `json:"count"`
}

// Subgraph is one enumerated subgraph: its vertices' names and pattern.
type Subgraph struct {
	Vertices []string `json:"vertices"`
	Pattern  string   `json:"pattern"`
}

// Stats are the engine's work figures.
type Stats struct {
	Traversals     uint64 `json:"traversals"`
	Rebalances     int64  `json:"rebalances"`
	Moved          int64  `json:"moved"`
	FootprintBytes int64  `json:"footprint_bytes"`
}

// Run counts (or enumerates) o's job in o's graph. When ctx ends during
// counting, Run returns the counts so far, Report.Partial set, where the
// engine keeps them, else an error wrapping ctx's.
func Run(ctx context.Context, o Options) (*Report, error) {
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Backend == "" {
		o.Backend = backend.CPU
	}
	if o.Graph == "" {
		return nil, errors.New("gpm: no graph file")
	}
	job := gpm.Job{App: o.App, K: o.K, Enumerate: o.Enumerate, Progress: new(gpm.Progress)}
	check := job
	check.Sink = func(gpm.Subgraph) error { return nil } // set once the graph is loaded
	if err := check.Validate(); err != nil {
		return nil, err
	}
	start := time.Now()
	g, st, err := gpm.LoadFile(o.Graph, o.Load)
	if err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("gpm: interrupted while loading %s: nothing counted: %w", o.Graph, ctx.Err())
	}
	rep := &Report{Graph: o.Graph, Vertices: g.N(), Edges: g.M(), MaxDegree: g.MaxDegree(), App: string(o.App),
		K: o.K, Backend: o.Backend, Balance: o.Balance, LoadSeconds: time.Since(start).Seconds(), Cache: st.Cache,
		BytesPerEdge: float64(g.Bytes()) / float64(max(g.M(), 1)), PeakRSS: progress.PeakRSS()}
	header, cache := "", ""
	if st.Header {
		header = fmt.Sprintf(", header \"%d %d\"", st.HeaderV, st.HeaderE)
	}
	if st.Cache != "" {
		cache = ", cache " + st.Cache
	}
	fmt.Fprintf(o.Log, "loaded %s: %d vertices, %d edges (%d duplicate and %d self-loop lines dropped%s), max degree %d, in %.2fs, %.0f bytes/edge%s\n",
		o.Graph, g.N(), g.M(), st.Duplicates, st.SelfLoops, header, g.MaxDegree(), rep.LoadSeconds, rep.BytesPerEdge, cache)

	eng, closeEngine, err := engine.GPM(o.Backend,
		gpu.GPMOptions{Device: o.Device, Warps: o.Workers, Balance: o.Balance, Threshold: o.Threshold, MemoryLimit: o.MemoryLimit,
			LiteralCliques: o.LiteralCliques},
		gpm.CPUOptions{Workers: o.Workers, Balance: o.Balance, Threshold: o.Threshold, MemoryLimit: o.MemoryLimit,
			LiteralCliques: o.LiteralCliques},
		func(reason error) {
			fmt.Fprintf(o.Log, "gpm --backend auto: no usable GPU (%v); counting on the CPU\n", reason)
		})
	if err != nil {
		return nil, fmt.Errorf("gpm --backend gpu: %w", err)
	}
	defer closeEngine()
	if o.Enumerate > 0 {
		job.Sink = func(s gpm.Subgraph) error {
			names := make([]string, len(s.Vertices))
			for i, v := range s.Vertices {
				names[i] = g.Name(v)
			}
			sub := Subgraph{Vertices: names, Pattern: s.Pattern.String()}
			if o.OnSubgraph != nil {
				return o.OnSubgraph(sub)
			}
			rep.Subgraphs = append(rep.Subgraphs, sub)
			return nil
		}
	}
	t0 := time.Now()
	_, counts := eng.(*gpm.CPU) // the GPU engine reports its counts at the end
	meter := progress.Meter{What: fmt.Sprintf("gpm %s k=%d (root vertices)", o.App, o.K), Noun: "subgraphs",
		Total: int64(g.N()), Input: g.M(), Counts: counts}
	stop := progress.Every(o.Progress, func() {
		line, warning := meter.Sample(job.Progress.Roots.Load(), job.Progress.Found.Load(), time.Since(t0))
		fmt.Fprintln(o.Log, line)
		if warning != "" {
			fmt.Fprintln(o.Log, warning)
		}
	})
	res, err := eng.Run(ctx, g, job)
	stop()
	switch {
	case err != nil && ctx.Err() != nil && res == nil:
		return nil, fmt.Errorf("gpm: interrupted after %.2fs; the %s engine keeps no partial counts: %w", time.Since(t0).Seconds(), o.Backend, ctx.Err())
	case err != nil && ctx.Err() == nil:
		return nil, err
	}
	rep.Partial = err != nil
	rep.Seconds = time.Since(t0).Seconds()
	rep.Backend, rep.Workers, rep.Total, rep.Truncated = res.Stats.Backend, res.Stats.Workers, res.Total, res.Stopped
	rep.Stats = Stats{Traversals: res.Stats.Traversals, Rebalances: res.Stats.Rebalances, Moved: res.Stats.Moved,
		FootprintBytes: res.Stats.Footprint}
	for _, pc := range res.Patterns {
		rep.Patterns = append(rep.Patterns, Pattern{Name: pc.Pattern.Name(), Edges: pc.Pattern.EdgeList(), Count: pc.Count})
	}
	return rep, nil
}

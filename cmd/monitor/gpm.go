package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/motifwatch/motifwatch/engine"
	"github.com/motifwatch/motifwatch/gpm"
	"github.com/motifwatch/motifwatch/gpu"
	"github.com/motifwatch/motifwatch/internal/backend"
)

// gpmOptions are the flags of `monitor gpm`.
type gpmOptions struct {
	graph       string
	app         string
	k           int
	backend     backend.Backend
	devices     []int
	device      int // the deprecated --device
	workers     int
	progress    time.Duration
	enumerate   int64
	format      string
	balance     string
	threshold   float64
	memoryLimit string
	// cliques is the clique workflow of either backend: pa
	// (pattern-aware) or dm (the paper's generic one).
	cliques string
	cache   cacheFlags
}

func newGpmCmd() *cobra.Command {
	o := gpmOptions{}
	cmd := &cobra.Command{
		Use:   "gpm --graph FILE --app clique|motif -k N [flags]",
		Short: "Count cliques or motifs in a static graph (batch GPM, DuMato-style)",
		Long: `Count k-cliques, or the connected induced k-vertex subgraphs by pattern
(motifs), in an undirected edge file ("u v" lines; comments, duplicates,
reversed edges, self-loops and a "V E" first line are handled), exactly,
on the CPU or a GPU. With --enumerate N, print up to N subgraphs instead.

--balance on (the default) is DuMato's DM_OPT: idle workers get unexplored
extensions moved from busy ones; off is DM_WC, a static split of the roots.
--cliques pa (the default) counts cliques, on the CPU or the GPU, as DuMato's
pattern-aware variant does (each level narrows the last one's candidates); dm
runs the generic workflow of the paper (Extend from the first vertex, Filter).

The file is parsed on every CPU, and the parsed graph kept in a binary cache
(--cache DIR; by default for files of 32 MiB and more, in the user cache
directory) that later runs load while the file is unchanged.

Progress lines (stderr) show the share of root vertices started, the
subgraphs counted so far and an ETA (roots differ in work: a rough one).
Ctrl-C prints the counts so far, marked partial, and exits with status 130.`,
		Example: `  monitor gpm --graph citeseer.edgelist --app motif -k 4
  monitor gpm --graph citeseer.edgelist --app clique -k 12 --format json
  monitor gpm --graph g.txt --app motif -k 5 --enumerate 20 --format csv
  monitor gpm --graph g.txt --app motif -k 7 --backend auto --devices 0`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runGpm(cmd.Context(), o, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.Var(&singleString{value: &o.graph}, "graph", "undirected edge file")
	f.StringVar(&o.app, "app", "", "clique or motif")
	f.IntVarP(&o.k, "k", "k", 0, fmt.Sprintf("subgraph size in vertices (clique: 2-%d, motif: 2-%d)", gpm.MaxCliqueK, gpm.MaxMotifK))
	f.StringVar((*string)(&o.backend), "backend", backend.CPU.String(), backendUsage)
	f.IntSliceVar(&o.devices, "devices", nil, "CUDA device ordinal for --backend gpu|auto (one: gpm runs on one device; default 0)")
	f.IntVar(&o.device, "device", -1, "CUDA device ordinal")
	f.MarkDeprecated("device", "use --devices")
	f.IntVar(&o.workers, "workers", 0, workersUsage)
	f.DurationVar(&o.progress, "progress", 5*time.Second, "interval of progress lines on stderr (0: none)")
	f.Int64Var(&o.enumerate, "enumerate", 0, "print up to N subgraphs instead of only counting")
	f.StringVar(&o.format, "format", "table", "output format: table, json or csv")
	f.StringVar(&o.balance, "balance", "on", "redistribute work to idle workers: on (DM_OPT) or off (DM_WC)")
	f.Float64Var(&o.threshold, "threshold", 0, "redistribute when fewer than this fraction of workers are busy (0: CPU 1, GPU 0.5)")
	f.StringVar(&o.cliques, "cliques", "pa", "clique workflow: pa (pattern-aware) or dm (the paper's generic Extend/Filter)")
	f.StringVar(&o.memoryLimit, "memory-limit", "", "bound on the enumeration arrays, e.g. 512MiB or 8GiB (default: CPU 4GiB, GPU half the device)")
	o.cache.add(f)
	return cmd
}

// gpmReport is the output of `monitor gpm`.
type gpmReport struct {
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
	Patterns  []gpmPattern    `json:"patterns"`
	// Partial: interrupted (Ctrl-C); the counts are those found so far.
	Partial     bool          `json:"partial,omitempty"`
	Subgraphs   []gpmSubgraph `json:"subgraphs,omitempty"`
	Truncated   bool          `json:"truncated,omitempty"`
	LoadSeconds float64       `json:"load_seconds"`
	// Cache is how the graph cache served the load (hit, written, rebuilt
	// and why; empty when off).
	Cache string `json:"cache,omitempty"`
	// BytesPerEdge is the graph's host memory (CSR and names) per edge;
	// PeakRSS the process's peak resident set size so far.
	BytesPerEdge float64         `json:"bytes_per_edge"`
	PeakRSS      int64           `json:"peak_rss_bytes"`
	Seconds      float64         `json:"seconds"`
	Stats        gpmStatsSection `json:"stats"`

	enumerated bool
}

type gpmPattern struct {
	Name  string `json:"name,omitempty"`
	Edges string `json:"edges"`
	Count uint64 `json:"count"`
}

type gpmSubgraph struct {
	Vertices []string `json:"vertices"`
	Pattern  string   `json:"pattern"`
}

type gpmStatsSection struct {
	Traversals     uint64 `json:"traversals"`
	Rebalances     int64  `json:"rebalances"`
	Moved          int64  `json:"moved"`
	FootprintBytes int64  `json:"footprint_bytes"`
}

func (o *gpmOptions) check() (gpm.App, bool, int64, error) {
	app, err := gpm.ParseApp(o.app)
	switch {
	case o.graph == "":
		return "", false, 0, usageError{fmt.Errorf("gpm: give --graph FILE")}
	case o.app == "":
		return "", false, 0, usageError{fmt.Errorf("gpm: give --app clique or --app motif")}
	case err != nil:
		return "", false, 0, usageError{err}
	case o.k == 0:
		return "", false, 0, usageError{fmt.Errorf("gpm: give -k N, the subgraph size")}
	case !slices.Contains(formats, o.format):
		return "", false, 0, usageError{fmt.Errorf("gpm: --format %q: want table, json or csv", o.format)}
	case o.balance != "on" && o.balance != "off":
		return "", false, 0, usageError{fmt.Errorf("gpm: --balance %q: want on or off", o.balance)}
	case o.cliques != "pa" && o.cliques != "dm":
		return "", false, 0, usageError{fmt.Errorf("gpm: --cliques %q: want pa or dm", o.cliques)}
	case o.threshold < 0 || o.threshold > 1:
		return "", false, 0, usageError{fmt.Errorf("gpm: --threshold %g: want a fraction in (0, 1]", o.threshold)}
	case len(o.devices) > 1:
		return "", false, 0, usageError{fmt.Errorf("gpm: --devices %v: gpm runs on one device; give one ordinal", o.devices)}
	}
	if o.device >= 0 && len(o.devices) == 0 {
		o.devices = []int{o.device}
	}
	if err := checkEngineFlags("gpm", o.backend, o.workers, o.devices); err != nil {
		return "", false, 0, err
	}
	if err := checkProgress("gpm", o.progress); err != nil {
		return "", false, 0, err
	}
	if err := o.cache.check("gpm"); err != nil {
		return "", false, 0, err
	}
	if err := (gpm.Job{App: app, K: o.k, Enumerate: o.enumerate, Sink: func(gpm.Subgraph) error { return nil }}).Validate(); err != nil {
		return "", false, 0, usageError{err}
	}
	limit, err := parseBytes(o.memoryLimit)
	if err != nil {
		return "", false, 0, usageError{fmt.Errorf("gpm: --memory-limit: %w", err)}
	}
	return app, o.balance == "on", limit, nil
}

// parseBytes reads "123", "64KiB", "512MiB" or "8GiB"; "" is 0.
func parseBytes(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	mult := int64(1)
	num := s
	for suffix, m := range map[string]int64{"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40} {
		if n, ok := strings.CutSuffix(s, suffix); ok {
			num, mult = n, m
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%q: want a positive size like 512MiB or 8GiB", s)
	}
	return n * mult, nil
}

// engine builds the engine of --backend: with auto, the GPU when one
// opens, else the CPU with a warning on stderr.
func (o *gpmOptions) engine(balance bool, limit int64, stderr io.Writer) (gpm.Engine, func() error, error) {
	device := 0
	if len(o.devices) == 1 {
		device = o.devices[0]
	}
	e, closeEngine, err := engine.GPM(o.backend,
		gpu.GPMOptions{Device: device, Warps: o.workers, Balance: balance, Threshold: o.threshold, MemoryLimit: limit,
			LiteralCliques: o.cliques == "dm"},
		gpm.CPUOptions{Workers: o.workers, Balance: balance, Threshold: o.threshold, MemoryLimit: limit,
			LiteralCliques: o.cliques == "dm"},
		func(reason error) {
			fmt.Fprintf(stderr, "gpm --backend auto: no usable GPU (%v); counting on the CPU\n", reason)
		})
	if err != nil {
		return nil, nil, fmt.Errorf("gpm --backend gpu: %w", err)
	}
	return e, closeEngine, nil
}

func runGpm(ctx context.Context, o gpmOptions, stdout, stderr io.Writer) error {
	app, balance, limit, err := o.check()
	if err != nil {
		return err
	}
	start := time.Now()
	opts := gpm.LoadOptions{}
	opts.CacheDir, opts.CacheMin = o.cache.where()
	g, st, err := gpm.LoadFile(o.graph, opts)
	if err != nil {
		return err
	}
	if ctx.Err() != nil {
		return interruptedError{fmt.Errorf("gpm: interrupted while loading %s: nothing counted", o.graph)}
	}
	rep := &gpmReport{Graph: o.graph, Vertices: g.N(), Edges: g.M(), MaxDegree: g.MaxDegree(), App: string(app),
		K: o.k, Backend: o.backend, Balance: balance, LoadSeconds: time.Since(start).Seconds(), Cache: st.Cache,
		BytesPerEdge: float64(g.Bytes()) / float64(max(g.M(), 1)), PeakRSS: peakRSS()}
	header, cache := "", ""
	if st.Header {
		header = fmt.Sprintf(", header \"%d %d\"", st.HeaderV, st.HeaderE)
	}
	if st.Cache != "" {
		cache = ", cache " + st.Cache
	}
	fmt.Fprintf(stderr, "loaded %s: %d vertices, %d edges (%d duplicate and %d self-loop lines dropped%s), max degree %d, in %.2fs, %.0f bytes/edge%s\n",
		o.graph, g.N(), g.M(), st.Duplicates, st.SelfLoops, header, g.MaxDegree(), rep.LoadSeconds, rep.BytesPerEdge, cache)

	eng, closeEngine, err := o.engine(balance, limit, stderr)
	if err != nil {
		return err
	}
	defer closeEngine()
	job := gpm.Job{App: app, K: o.k, Enumerate: o.enumerate, Progress: new(gpm.Progress)}
	rep.enumerated = o.enumerate > 0
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	if o.enumerate > 0 {
		switch o.format {
		case "table":
			fmt.Fprintln(tw, "VERTICES\tPATTERN")
		case "csv":
			fmt.Fprintln(stdout, "vertices,pattern")
		}
		// The sink streams: in table mode nothing is kept; in JSON mode at
		// most --enumerate subgraphs.
		job.Sink = func(s gpm.Subgraph) error {
			names := make([]string, len(s.Vertices))
			for i, v := range s.Vertices {
				names[i] = g.Name(v)
			}
			switch o.format {
			case "json":
				rep.Subgraphs = append(rep.Subgraphs, gpmSubgraph{Vertices: names, Pattern: s.Pattern.String()})
				return nil
			case "csv":
				return writeCSV(stdout, strings.Join(names, " "), s.Pattern.String())
			}
			_, err := fmt.Fprintf(tw, "%s\t%s\n", strings.Join(names, " "), s.Pattern)
			return err
		}
	}
	t0 := time.Now()
	_, counts := eng.(*gpm.CPU) // the GPU engine reports its counts at the end
	stop := everyTick(o.progress, func() {
		fmt.Fprintln(stderr, progressLine(fmt.Sprintf("gpm %s k=%d (root vertices)", app, o.k), job.Progress.Roots.Load(), int64(g.N()),
			job.Progress.Found.Load(), counts, "subgraphs", time.Since(t0)))
	})
	res, err := eng.Run(ctx, g, job)
	stop()
	switch {
	case err != nil && ctx.Err() != nil && res == nil:
		return interruptedError{fmt.Errorf("gpm: interrupted after %.2fs; the %s engine keeps no partial counts", time.Since(t0).Seconds(), o.backend)}
	case err != nil && ctx.Err() == nil:
		return err
	}
	rep.Partial = err != nil
	rep.Seconds = time.Since(t0).Seconds()
	rep.Backend, rep.Workers, rep.Total, rep.Truncated = res.Stats.Backend, res.Stats.Workers, res.Total, res.Stopped
	rep.Stats = gpmStatsSection{Traversals: res.Stats.Traversals, Rebalances: res.Stats.Rebalances, Moved: res.Stats.Moved,
		FootprintBytes: res.Stats.Footprint}
	for _, pc := range res.Patterns {
		rep.Patterns = append(rep.Patterns, gpmPattern{Name: pc.Pattern.Name(), Edges: pc.Pattern.EdgeList(), Count: pc.Count})
	}
	if err := printGpm(tw, stdout, o.format, rep); err != nil {
		return err
	}
	if rep.Partial {
		return interruptedError{fmt.Errorf("gpm: interrupted after %.2fs: the counts above are partial", time.Since(t0).Seconds())}
	}
	plus := ""
	if rep.Truncated {
		plus = "+"
	}
	fmt.Fprintf(stderr, "gpm: %s k=%d on %s (%d workers, balance %s): %d%s subgraphs, %d patterns in %.2fs (%.3g subgraphs/s), %d rebalances moved %d traversals\n",
		app, o.k, rep.Backend, rep.Workers, o.balance, rep.Total, plus, len(rep.Patterns), rep.Seconds,
		float64(rep.Total)/max(rep.Seconds, 1e-9), rep.Stats.Rebalances, rep.Stats.Moved)
	return nil
}

func printGpm(tw *tabwriter.Writer, stdout io.Writer, format string, r *gpmReport) error {
	switch format {
	case "json":
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	case "csv":
		if r.enumerated {
			fmt.Fprintln(stdout) // after the streamed subgraphs
		}
		if err := writeCSV(stdout, "pattern", "edges", "count"); err != nil {
			return err
		}
		for _, p := range r.Patterns {
			if err := writeCSV(stdout, p.Name, p.Edges, strconv.FormatUint(p.Count, 10)); err != nil {
				return err
			}
		}
		return writeCSV(stdout, "TOTAL", "", strconv.FormatUint(r.Total, 10))
	}
	if r.enumerated {
		fmt.Fprintln(tw) // after the streamed subgraphs
	}
	fmt.Fprintln(tw, "PATTERN\tEDGES\tCOUNT")
	for _, p := range r.Patterns {
		name := p.Name
		if name == "" {
			name = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", name, p.Edges, grouped(p.Count))
	}
	total := grouped(r.Total)
	if r.Truncated {
		total += "+" // --enumerate reached its bound and mining stopped
	}
	if r.Partial {
		total += " (partial: interrupted)"
	}
	fmt.Fprintf(tw, "TOTAL\t\t%s\n", total)
	return tw.Flush()
}

// writeCSV writes one CSV record.
func writeCSV(w io.Writer, fields ...string) error {
	cw := csv.NewWriter(w)
	cw.Write(fields)
	cw.Flush()
	return cw.Error()
}

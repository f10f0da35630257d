package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/motifwatch/motifwatch/gpm"
	"github.com/motifwatch/motifwatch/gpu"
)

// gpmOptions are the flags of `monitor gpm`.
type gpmOptions struct {
	graph       string
	app         string
	k           int
	backend     string
	device      int
	workers     int
	enumerate   int64
	format      string
	balance     string
	threshold   float64
	memoryLimit string
	// cliques is the clique workflow of either backend: pa
	// (pattern-aware) or dm (the paper's generic one).
	cliques string
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
runs the generic workflow of the paper (Extend from the first vertex, Filter).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runGpm(ctx, o, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.graph, "graph", "", "undirected edge file")
	f.StringVar(&o.app, "app", "", "clique or motif")
	f.IntVarP(&o.k, "k", "k", 0, fmt.Sprintf("subgraph size in vertices (clique: 2-%d, motif: 2-%d)", gpm.MaxCliqueK, gpm.MaxMotifK))
	f.StringVar(&o.backend, "backend", "cpu", "cpu or gpu")
	f.IntVar(&o.device, "device", 0, "CUDA device ordinal for --backend gpu")
	f.IntVar(&o.workers, "workers", 0, "CPU workers, or GPU warps (0: one per CPU; 64 warps per multiprocessor)")
	f.Int64Var(&o.enumerate, "enumerate", 0, "print up to N subgraphs instead of only counting")
	f.StringVar(&o.format, "format", "table", "output format: table or json")
	f.StringVar(&o.balance, "balance", "on", "redistribute work to idle workers: on (DM_OPT) or off (DM_WC)")
	f.Float64Var(&o.threshold, "threshold", 0, "redistribute when fewer than this fraction of workers are busy (0: CPU 1, GPU 0.5)")
	f.StringVar(&o.cliques, "cliques", "pa", "clique workflow: pa (pattern-aware) or dm (the paper's generic Extend/Filter)")
	f.StringVar(&o.memoryLimit, "memory-limit", "", "bound on the enumeration arrays, e.g. 512MiB or 8GiB (default: CPU 4GiB, GPU half the device)")
	return cmd
}

// gpmReport is the output of `monitor gpm`.
type gpmReport struct {
	Graph       string          `json:"graph"`
	Vertices    int             `json:"vertices"`
	Edges       int64           `json:"edges"`
	MaxDegree   int             `json:"max_degree"`
	App         string          `json:"app"`
	K           int             `json:"k"`
	Backend     string          `json:"backend"`
	Workers     int             `json:"workers"`
	Balance     bool            `json:"balance"`
	Total       uint64          `json:"total"`
	Patterns    []gpmPattern    `json:"patterns"`
	Subgraphs   []gpmSubgraph   `json:"subgraphs,omitempty"`
	Truncated   bool            `json:"truncated,omitempty"`
	LoadSeconds float64         `json:"load_seconds"`
	Seconds     float64         `json:"seconds"`
	Stats       gpmStatsSection `json:"stats"`

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
	case o.backend != "cpu" && o.backend != "gpu":
		return "", false, 0, usageError{fmt.Errorf("gpm: --backend %q: want cpu or gpu", o.backend)}
	case o.format != "table" && o.format != "json":
		return "", false, 0, usageError{fmt.Errorf("gpm: --format %q: want table or json", o.format)}
	case o.balance != "on" && o.balance != "off":
		return "", false, 0, usageError{fmt.Errorf("gpm: --balance %q: want on or off", o.balance)}
	case o.cliques != "pa" && o.cliques != "dm":
		return "", false, 0, usageError{fmt.Errorf("gpm: --cliques %q: want pa or dm", o.cliques)}
	case o.threshold < 0 || o.threshold > 1:
		return "", false, 0, usageError{fmt.Errorf("gpm: --threshold %g: want a fraction in (0, 1]", o.threshold)}
	case o.workers < 0:
		return "", false, 0, usageError{fmt.Errorf("gpm: --workers %d must not be negative", o.workers)}
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

func (o *gpmOptions) engine(balance bool, limit int64) (gpm.Engine, func() error, error) {
	if o.backend == "gpu" {
		e, err := gpu.NewGPM(gpu.GPMOptions{Device: o.device, Warps: o.workers, Balance: balance,
			Threshold: o.threshold, MemoryLimit: limit, LiteralCliques: o.cliques == "dm"})
		if err != nil {
			return nil, nil, fmt.Errorf("gpm --backend gpu: %w", err)
		}
		return e, e.Close, nil
	}
	return gpm.NewCPU(gpm.CPUOptions{Workers: o.workers, Balance: balance, Threshold: o.threshold, MemoryLimit: limit,
			LiteralCliques: o.cliques == "dm"}),
		func() error { return nil }, nil
}

func runGpm(ctx context.Context, o gpmOptions, stdout, stderr io.Writer) error {
	app, balance, limit, err := o.check()
	if err != nil {
		return err
	}
	start := time.Now()
	g, st, err := gpm.Load(o.graph)
	if err != nil {
		return err
	}
	rep := &gpmReport{Graph: o.graph, Vertices: g.N(), Edges: g.M(), MaxDegree: g.MaxDegree(), App: string(app),
		K: o.k, Backend: o.backend, Balance: balance, LoadSeconds: time.Since(start).Seconds()}
	header := ""
	if st.Header {
		header = fmt.Sprintf(", header \"%d %d\"", st.HeaderV, st.HeaderE)
	}
	fmt.Fprintf(stderr, "loaded %s: %d vertices, %d edges (%d duplicate and %d self-loop lines dropped%s), max degree %d, in %.2fs\n",
		o.graph, g.N(), g.M(), st.Duplicates, st.SelfLoops, header, g.MaxDegree(), rep.LoadSeconds)

	eng, closeEngine, err := o.engine(balance, limit)
	if err != nil {
		return err
	}
	defer closeEngine()
	job := gpm.Job{App: app, K: o.k, Enumerate: o.enumerate}
	rep.enumerated = o.enumerate > 0
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	if o.enumerate > 0 {
		if o.format == "table" {
			fmt.Fprintln(tw, "VERTICES\tPATTERN")
		}
		// The sink streams: in table mode nothing is kept; in JSON mode at
		// most --enumerate subgraphs.
		job.Sink = func(s gpm.Subgraph) error {
			names := make([]string, len(s.Vertices))
			for i, v := range s.Vertices {
				names[i] = g.Name(v)
			}
			if o.format == "json" {
				rep.Subgraphs = append(rep.Subgraphs, gpmSubgraph{Vertices: names, Pattern: s.Pattern.String()})
				return nil
			}
			_, err := fmt.Fprintf(tw, "%s\t%s\n", strings.Join(names, " "), s.Pattern)
			return err
		}
	}
	t0 := time.Now()
	res, err := eng.Run(ctx, g, job)
	if err != nil {
		return err
	}
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
	if format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
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
		fmt.Fprintf(tw, "%s\t%s\t%d\n", name, p.Edges, p.Count)
	}
	total := strconv.FormatUint(r.Total, 10)
	if r.Truncated {
		total += "+" // --enumerate reached its bound and mining stopped
	}
	fmt.Fprintf(tw, "TOTAL\t\t%s\n", total)
	return tw.Flush()
}

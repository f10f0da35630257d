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

	"github.com/motifwatch/motifwatch/gpm"
	"github.com/motifwatch/motifwatch/gpmrun"
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
subgraphs counted so far and an ETA while the recent rate holds steady
("ETA unknown" otherwise: roots differ in work), and warn once when the
count explodes past what the graph's size suggests.
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
	f.Var(&singleString{value: &o.graph}, "graph", "undirected edge file (plain text, gzip, zstd or bzip2)")
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

func runGpm(ctx context.Context, o gpmOptions, stdout, stderr io.Writer) error {
	app, balance, limit, err := o.check()
	if err != nil {
		return err
	}
	device := 0
	if len(o.devices) == 1 {
		device = o.devices[0]
	}
	opts := gpmrun.Options{Graph: o.graph, App: app, K: o.k, Enumerate: o.enumerate,
		Backend: o.backend, Device: device, Workers: o.workers, Balance: balance, Threshold: o.threshold,
		MemoryLimit: limit, LiteralCliques: o.cliques == "dm", Progress: o.progress, Log: stderr}
	opts.Load.CacheDir, opts.Load.CacheMin = o.cache.where()
	// Enumerated subgraphs stream out as found (JSON keeps them in the
	// report), under a header written before the first.
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	headed := false
	header := func() {
		if o.enumerate == 0 || headed {
			return
		}
		headed = true
		switch o.format {
		case "table":
			fmt.Fprintln(tw, "VERTICES\tPATTERN")
		case "csv":
			fmt.Fprintln(stdout, "vertices,pattern")
		}
	}
	if o.enumerate > 0 && o.format != "json" {
		opts.OnSubgraph = func(s gpmrun.Subgraph) error {
			header()
			if o.format == "csv" {
				return writeCSV(stdout, strings.Join(s.Vertices, " "), s.Pattern)
			}
			_, err := fmt.Fprintf(tw, "%s\t%s\n", strings.Join(s.Vertices, " "), s.Pattern)
			return err
		}
	}
	rep, err := gpmrun.Run(ctx, opts)
	switch {
	case err != nil && ctx.Err() != nil:
		return interruptedError{err}
	case err != nil:
		return err
	}
	header()
	if err := printGpm(tw, stdout, o.format, o.enumerate > 0, rep); err != nil {
		return err
	}
	if rep.Partial {
		return interruptedError{fmt.Errorf("gpm: interrupted after %.2fs: the counts above are partial", rep.Seconds)}
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

func printGpm(tw *tabwriter.Writer, stdout io.Writer, format string, enumerated bool, r *gpmrun.Report) error {
	switch format {
	case "json":
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	case "csv":
		if enumerated {
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
	if enumerated {
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

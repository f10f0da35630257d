package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime/pprof"
	"runtime/trace"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/motifwatch/motifwatch/config"
	"github.com/motifwatch/motifwatch/daemon"
	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/internal/backend"
	"github.com/motifwatch/motifwatch/mine"
	"github.com/motifwatch/motifwatch/motif"
)

// mineOptions are the flags of `monitor mine`.
type mineOptions struct {
	cache         cacheFlags
	graph         string
	nodes         string
	synthetic     int
	seed          uint64
	queries       []string
	motifs        []string
	snap3         bool
	grid4         bool
	delta         string
	enumerate     int64
	estimate      float64
	confidence    float64
	estimateSeed  uint64
	workers       int
	backend       backend.Backend
	devices       []int
	format        string
	skipBad       bool
	keepSelfLoops bool
	timeUnit      time.Duration
	explain       bool
	countPhases   bool
	alwaysCount   bool
	progress      time.Duration
	cpuProfile    string
	execTrace     string
	gpu           *gpuFlags
}

func newMineCmd() *cobra.Command {
	o := mineOptions{}
	cmd := &cobra.Command{
		Use:   "mine (--graph FILE | --synthetic N) (--query Q.yaml | --motif NAME | --snap3 | --grid4) [flags]",
		Short: "Mine temporal motifs in an edge file (batch mode)",
		Long: `Mine temporal motifs in a whole edge file ("src dst t [attrs]" lines, SNAP
and Everest text) with the exact parallel CPU engine, and print the counts
(or up to --enumerate N matches per query).

Queries come from YAML files (motifwatch's format or Everest's; the
language is in docs/QUERIES.md), from the built-in library (--motif
M1..M13, M4-A, snap-1-1..snap-6-6, path4-123-fff..path4-213-bbb,
cycle4-*, paw-*; 'monitor motifs' lists them), --snap3 for SNAP's 6x6
grid of 3-edge motif counts, labelled as SNAP's figure, or --grid4 for
every four-node motif of three and four edges on distinct node pairs
(stars, paths, cycles, paws: 216 counts and a TOTAL per family).
Count-mode queries of those 36 shapes or of four-node stars (and --snap3)
are counted by counting algorithms (motif/count3), not enumerated; with
--backend cpu so are two-edge queries, two-node four-edge ones,
four-cycles (M4, M7, cycle4-*) and paws (M3, M9, paw-*), and four-node
paths (M1, M2, path4-*) where a sampled enumeration projects more work
than counting (--explain says which, and why; --always-count counts them
anyway). --estimate 0.02 estimates each count within 2% at --confidence
from a sample of root edges instead (docs/MINING.md).

Every flag is checked, and every query file read, before the graph is
loaded. Progress lines (stderr) show the share of root edges done, the
matches so far and an ETA while the recent rate holds steady ("ETA
unknown" otherwise), and warn once when the count explodes. Ctrl-C
prints the counts so far, marked partial, and exits with status 130.`,
		Example: `  monitor mine --graph CollegeMsg.txt --snap3 --delta 3600
  monitor mine --graph edges.txt --grid4 --delta 1h
  monitor mine --graph edges.txt --motif M4,M4-A --delta 1h --format csv
  monitor mine --graph edges.txt --query fraud.yaml --enumerate 20
  monitor mine --synthetic 100000 --motif M1 --delta 1h --workers 4
  monitor mine --graph edges.txt --motif M4,M6 --delta 1d --estimate 0.02`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runMine(cmd.Context(), o, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.Var(&singleString{value: &o.graph}, "graph", "temporal edge file to mine (plain text, gzip, zstd or bzip2)")
	f.StringVar(&o.nodes, "nodes", "", "optional node attribute file (header: id label ...)")
	f.IntVar(&o.synthetic, "synthetic", 0, "mine a generated CollegeMsg-like graph of N edges instead of --graph")
	f.Uint64Var(&o.seed, "seed", 1, "seed of --synthetic")
	f.StringSliceVar(&o.queries, "query", nil, "query YAML file (motifwatch or Everest format); repeatable")
	f.StringSliceVar(&o.motifs, "motif", nil, "built-in motif name(s), e.g. M4,M4-A; repeatable")
	f.BoolVar(&o.snap3, "snap3", false, "print SNAP's 6x6 grid of 2/3-node 3-edge motif counts")
	f.BoolVar(&o.grid4, "grid4", false, "count every four-node motif of 3 and 4 edges (star4, path4, cycle4, paw) with a TOTAL per family")
	f.StringVar(&o.delta, "delta", "", `motif window: a duration ("1h") or timestamp ticks ("3600"); overrides the queries' own`)
	f.Int64Var(&o.enumerate, "enumerate", 0, "print up to N matches per query instead of only counting")
	f.Float64Var(&o.estimate, "estimate", 0, "estimate each count within this relative error (e.g. 0.02) from a sample of root edges, with an interval at --confidence, instead of counting exactly")
	f.Float64Var(&o.confidence, "confidence", 0.95, "confidence of --estimate's interval")
	f.Uint64Var(&o.estimateSeed, "estimate-seed", 1, "seed of --estimate's sample")
	f.IntVar(&o.workers, "workers", 0, workersUsage)
	f.StringVar((*string)(&o.backend), "backend", backend.CPU.String(), backendUsage)
	f.IntSliceVar(&o.devices, "devices", nil, "CUDA device ordinals for --backend gpu|auto (repeat an ordinal for logical partitions; default: all)")
	f.StringVar(&o.format, "format", "table", "output format: table, json or csv")
	f.BoolVar(&o.skipBad, "skip-bad", false, "count and report malformed lines instead of stopping at the first")
	f.BoolVar(&o.keepSelfLoops, "keep-self-loops", false, "keep self-loop edges (they never match a motif edge)")
	f.DurationVar(&o.timeUnit, "time-unit", time.Second, "duration of one timestamp tick in the graph file")
	f.BoolVar(&o.explain, "explain", false, "print each query's match plan to stderr")
	f.BoolVar(&o.countPhases, "count-phases", false, "print each counting run's passes with their wall and CPU times to stderr (a measurement aid)")
	f.BoolVar(&o.alwaysCount, "always-count", false, "count every counted shape's count-mode query, even where enumerating its matches is cheaper (to test or time the counters)")
	f.DurationVar(&o.progress, "progress", 5*time.Second, "interval of progress lines on stderr (0: none)")
	f.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of loading and mining to this file")
	f.StringVar(&o.execTrace, "trace", "", "write an execution trace of loading and mining to this file (go tool trace)")
	o.gpu = addGPUFlags(f)
	o.cache.add(f)
	return cmd
}

func runMine(ctx context.Context, o mineOptions, stdout, stderr io.Writer) error {
	if err := o.check(); err != nil {
		return err
	}
	if o.cpuProfile != "" {
		f, err := os.Create(o.cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if o.execTrace != "" {
		stop, err := startTrace(o.execTrace)
		if err != nil {
			return err
		}
		defer stop()
	}
	opts := mine.Options{Graph: o.graph, Synthetic: o.synthetic, Seed: o.seed,
		File:       ingest.FileOptions{TimeUnit: o.timeUnit, SkipBad: o.skipBad, KeepSelfLoops: o.keepSelfLoops, NodeFile: o.nodes},
		QueryFiles: o.queries, Motifs: o.motifs, SNAP3: o.snap3, Grid4: o.grid4, Delta: o.delta, Enumerate: o.enumerate,
		Estimate: o.estimate, Confidence: o.confidence, EstimateSeed: o.estimateSeed,
		Backend: o.backend, Workers: o.workers, GPU: daemon.GPUOptions(config.Engine{Devices: o.devices, GPU: o.gpu.options()}),
		Explain: o.explain, Progress: o.progress, Log: stderr, AlwaysCount: o.alwaysCount}
	if o.countPhases {
		opts.CountPhases = stderr
	}
	opts.File.CacheDir, opts.File.CacheMin = o.cache.where()
	report, err := mine.Run(ctx, opts)
	switch {
	case errors.Is(err, mine.ErrNoDelta):
		return usageError{err}
	case err != nil && ctx.Err() != nil:
		return interruptedError{err}
	case err != nil:
		return err
	}
	if err := o.print(stdout, report); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "mine: %d edges, %d queries in %.2fs on the %s, peak RSS %.1f MiB\n",
		report.Edges, len(report.Queries), report.Seconds, strings.ToUpper(report.Backend.String()), float64(report.PeakRSS)/(1<<20))
	if report.Backend == backend.GPU {
		fmt.Fprintf(stderr, "mine: window to the devices in %.3fs, %.1f device bytes per window edge\n", report.UploadSeconds, report.DeviceBytesPerEdge)
	}
	if report.Partial {
		last := report.Queries[len(report.Queries)-1]
		return interruptedError{fmt.Errorf("mine: interrupted during %s: the counts above are partial (%d of %d queries begun)",
			last.Name, len(report.Queries), report.Planned)}
	}
	return nil
}

func (o *mineOptions) check() error {
	switch {
	case o.graph == "" && o.synthetic == 0:
		return usageError{fmt.Errorf("mine: give --graph FILE or --synthetic N")}
	case o.graph != "" && o.synthetic != 0:
		return usageError{fmt.Errorf("mine: --graph and --synthetic exclude each other")}
	case o.synthetic < 0:
		return usageError{fmt.Errorf("mine: --synthetic %d must be positive", o.synthetic)}
	case len(o.queries) == 0 && len(o.motifs) == 0 && !o.snap3 && !o.grid4:
		return usageError{fmt.Errorf("mine: give --query FILE, --motif NAME, --snap3 or --grid4")}
	case o.grid4 && (len(o.queries) > 0 || len(o.motifs) > 0 || o.snap3):
		return usageError{fmt.Errorf("mine: --grid4 prints the fixed four-node family; use it without --query, --motif and --snap3")}
	case o.grid4 && o.enumerate > 0:
		return usageError{fmt.Errorf("mine: --grid4 only counts; drop --enumerate")}
	case o.snap3 && (len(o.queries) > 0 || len(o.motifs) > 0):
		return usageError{fmt.Errorf("mine: --snap3 prints the fixed 6x6 grid; use it without --query and --motif")}
	case !slices.Contains(formats, o.format):
		return usageError{fmt.Errorf("mine: --format %q: want table, json or csv", o.format)}
	case o.enumerate < 0:
		return usageError{fmt.Errorf("mine: --enumerate %d must not be negative", o.enumerate)}
	case o.snap3 && o.enumerate > 0:
		return usageError{fmt.Errorf("mine: --snap3 only counts; drop --enumerate")}
	case o.estimate != 0 && !(o.estimate > 0 && o.estimate < 1):
		return usageError{fmt.Errorf("mine: --estimate %v: want a relative error in (0, 1), e.g. 0.02", o.estimate)}
	case !(o.confidence > 0 && o.confidence < 1):
		return usageError{fmt.Errorf("mine: --confidence %v: want a value in (0, 1), e.g. 0.95", o.confidence)}
	case o.estimate > 0 && o.enumerate > 0:
		return usageError{fmt.Errorf("mine: --estimate only counts; drop --enumerate")}
	case o.estimate > 0 && o.backend != backend.CPU:
		return usageError{fmt.Errorf("mine: --estimate mines its sample root by root on the CPU: use --backend cpu, not %s", o.backend)}
	case o.timeUnit <= 0:
		return usageError{fmt.Errorf("mine: --time-unit %s must be positive", o.timeUnit)}
	}
	if err := o.cache.check("mine"); err != nil {
		return err
	}
	if err := o.gpu.check("mine"); err != nil {
		return err
	}
	if err := checkEngineFlags("mine", o.backend, o.workers, o.devices); err != nil {
		return err
	}
	if err := checkProgress("mine", o.progress); err != nil {
		return err
	}
	for _, name := range o.motifs {
		if _, err := motif.Builtin(name); err != nil {
			return usageError{fmt.Errorf("mine: --motif: %w ('monitor motifs' lists them)", err)}
		}
	}
	if o.delta != "" {
		if _, err := mine.ParseDelta(o.delta); err != nil {
			return usageError{fmt.Errorf("mine: %w", err)}
		}
	}
	return nil
}

func (o *mineOptions) print(stdout io.Writer, r *mine.Report) error {
	switch {
	case o.format == "json":
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	case r.SNAP3 != nil:
		return printSNAP3Grid(stdout, r.SNAP3, r.Queries[0].Delta, o.format == "csv")
	case o.format == "csv":
		return printMineCSV(stdout, r)
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	if estimated(r) {
		fmt.Fprintf(tw, "QUERY\tDELTA\tMATCHES\tINTERVAL (%g%%)\tROOTS SAMPLED\tSECONDS\n", o.confidence*100)
		for _, q := range r.Queries {
			interval, roots := "", ""
			if e := q.Estimate; e != nil {
				interval = fmt.Sprintf("[%s, %s]", grouped(int64(math.Floor(e.Lo))), grouped(int64(math.Ceil(e.Hi))))
				roots = fmt.Sprintf("%s of %s", grouped(e.Sampled), grouped(e.Roots))
				if e.Exact {
					interval = "exact"
				}
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%.3f\n", q.Name, q.Delta, matchCount(q), interval, roots, q.Seconds)
		}
	} else {
		fmt.Fprintln(tw, "QUERY\tDELTA\tMATCHES\tSECONDS")
		for _, q := range r.Queries {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%.3f\n", q.Name, q.Delta, matchCount(q), q.Seconds)
		}
	}
	// Totals only within a family (mine.Total): M1 + M4 counts nothing.
	for _, t := range r.Totals {
		fmt.Fprintf(tw, "TOTAL %s-*\t\t%s\t%.3f\n", t.Family, grouped(t.Matches), t.Seconds)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if r.Partial {
		fmt.Fprintln(stdout, "(partial: interrupted; the last query's count is what was found before it stopped)")
	}
	for _, q := range r.Queries {
		if len(q.Examples) == 0 {
			continue
		}
		of := "of " + grouped(q.Matches)
		if q.Stopped {
			of = "mining stopped there"
		}
		fmt.Fprintf(stdout, "\n%s: first %d matches (%s)\n", q.Name, len(q.Examples), of)
		for i, m := range q.Examples {
			parts := make([]string, len(m))
			for j, e := range m {
				parts[j] = fmt.Sprintf("%s->%s@%d", e.Src, e.Dst, e.T)
			}
			fmt.Fprintf(stdout, "%6d  %s\n", i+1, strings.Join(parts, "  "))
		}
	}
	return nil
}

// matchCount is a query's count as the table shows it: grouped, with a
// "+" when --enumerate stopped mining at its bound, "(partial)" when
// interrupted, and "~" before an estimate from a sample.
func matchCount(q *mine.QueryResult) string {
	s := grouped(q.Matches)
	if q.Estimate != nil && !q.Estimate.Exact {
		s = "~" + s
	}
	if q.Stopped {
		s += "+"
	}
	if q.Partial {
		s += " (partial)"
	}
	return s
}

// printMineCSV writes one CSV row per query, raw numbers.
func printMineCSV(stdout io.Writer, r *mine.Report) error {
	cw := csv.NewWriter(stdout)
	head := []string{"query", "delta", "matches", "truncated", "partial", "seconds"}
	if estimated(r) {
		head = append(head, "estimate", "lo", "hi", "confidence", "exact", "roots_sampled", "roots")
	}
	cw.Write(head)
	for _, q := range r.Queries {
		row := []string{q.Name, q.Delta, strconv.FormatInt(q.Matches, 10), strconv.FormatBool(q.Stopped),
			strconv.FormatBool(q.Partial), strconv.FormatFloat(q.Seconds, 'f', 3, 64)}
		if e := q.Estimate; e != nil {
			f := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
			row = append(row, f(e.Value), f(e.Lo), f(e.Hi), f(e.Confidence), strconv.FormatBool(e.Exact),
				strconv.FormatInt(e.Sampled, 10), strconv.FormatInt(e.Roots, 10))
		} else if estimated(r) {
			row = append(row, "", "", "", "", "", "", "")
		}
		cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}

// estimated reports whether any query of r has an estimate.
func estimated(r *mine.Report) bool {
	return slices.ContainsFunc(r.Queries, func(q *mine.QueryResult) bool { return q.Estimate != nil })
}

// startTrace writes an execution trace (runtime/trace) to path until stop
// is called: the goroutine timeline shows what a profile cannot, such as
// workers idling at a phase's end or stalled in mark assists.
func startTrace(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := trace.Start(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { trace.Stop(); f.Close() }, nil
}

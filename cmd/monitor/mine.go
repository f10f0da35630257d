package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/pprof"
	"runtime/trace"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/motifwatch/motifwatch/alerts"
	"github.com/motifwatch/motifwatch/config"
	"github.com/motifwatch/motifwatch/daemon"
	"github.com/motifwatch/motifwatch/engine"
	"github.com/motifwatch/motifwatch/gpm"
	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/internal/backend"
	"github.com/motifwatch/motifwatch/internal/gcfloor"
	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/synth"
	"github.com/motifwatch/motifwatch/window"
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
	delta         string
	enumerate     int64
	workers       int
	backend       backend.Backend
	devices       []int
	format        string
	skipBad       bool
	keepSelfLoops bool
	timeUnit      time.Duration
	explain       bool
	progress      time.Duration
	cpuProfile    string
	execTrace     string
	gpu           *gpuFlags
}

func newMineCmd() *cobra.Command {
	o := mineOptions{}
	cmd := &cobra.Command{
		Use:   "mine (--graph FILE | --synthetic N) (--query Q.yaml | --motif NAME | --snap3) [flags]",
		Short: "Mine temporal motifs in an edge file (batch mode)",
		Long: `Mine temporal motifs in a whole edge file ("src dst t [attrs]" lines, SNAP
and Everest text) with the exact parallel CPU engine, and print the counts
(or up to --enumerate N matches per query).

Queries come from YAML files (motifwatch's format or Everest's; the
language is in docs/QUERIES.md), from the built-in library (--motif
M1..M13, M4-A, snap-1-1..snap-6-6, path4-123-fff..path4-213-bbb; 'monitor
motifs' lists them), or --snap3 for SNAP's 6x6 grid of 3-edge motif
counts, labelled as SNAP's figure. Count-mode queries of those 36 shapes
or of four-node stars (and --snap3) are counted by counting algorithms
(motif/count3), not enumerated; with --backend cpu so are four-node
paths (M1, M2, path4-*), two-edge queries and two-node four-edge ones
(--explain says which).

Every flag is checked, and every query file read, before the graph is
loaded. Progress lines (stderr) show the share of root edges done, the
matches so far and an ETA. Ctrl-C prints the counts so far, marked
partial, and exits with status 130.`,
		Example: `  monitor mine --graph CollegeMsg.txt --snap3 --delta 3600
  monitor mine --graph edges.txt --motif M4,M4-A --delta 1h --format csv
  monitor mine --graph edges.txt --query fraud.yaml --enumerate 20
  monitor mine --synthetic 100000 --motif M1 --delta 1h --workers 4`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runMine(cmd.Context(), o, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.Var(&singleString{value: &o.graph}, "graph", "temporal edge file to mine")
	f.StringVar(&o.nodes, "nodes", "", "optional node attribute file (header: id label ...)")
	f.IntVar(&o.synthetic, "synthetic", 0, "mine a generated CollegeMsg-like graph of N edges instead of --graph")
	f.Uint64Var(&o.seed, "seed", 1, "seed of --synthetic")
	f.StringSliceVar(&o.queries, "query", nil, "query YAML file (motifwatch or Everest format); repeatable")
	f.StringSliceVar(&o.motifs, "motif", nil, "built-in motif name(s), e.g. M4,M4-A; repeatable")
	f.BoolVar(&o.snap3, "snap3", false, "print SNAP's 6x6 grid of 2/3-node 3-edge motif counts")
	f.StringVar(&o.delta, "delta", "", `motif window: a duration ("1h") or timestamp ticks ("3600"); overrides the queries' own`)
	f.Int64Var(&o.enumerate, "enumerate", 0, "print up to N matches per query instead of only counting")
	f.IntVar(&o.workers, "workers", 0, workersUsage)
	f.StringVar((*string)(&o.backend), "backend", backend.CPU.String(), backendUsage)
	f.IntSliceVar(&o.devices, "devices", nil, "CUDA device ordinals for --backend gpu|auto (repeat an ordinal for logical partitions; default: all)")
	f.StringVar(&o.format, "format", "table", "output format: table, json or csv")
	f.BoolVar(&o.skipBad, "skip-bad", false, "count and report malformed lines instead of stopping at the first")
	f.BoolVar(&o.keepSelfLoops, "keep-self-loops", false, "keep self-loop edges (they never match a motif edge)")
	f.DurationVar(&o.timeUnit, "time-unit", time.Second, "duration of one timestamp tick in the graph file")
	f.BoolVar(&o.explain, "explain", false, "print each query's match plan to stderr")
	f.DurationVar(&o.progress, "progress", 5*time.Second, "interval of progress lines on stderr (0: none)")
	f.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of loading and mining to this file")
	f.StringVar(&o.execTrace, "trace", "", "write an execution trace of loading and mining to this file (go tool trace)")
	o.gpu = addGPUFlags(f)
	o.cache.add(f)
	return cmd
}

// queryRun is one query's outcome.
type queryRun struct {
	Name    string  `json:"name"`
	Delta   string  `json:"delta"`
	Matches int64   `json:"matches"`
	Open    int64   `json:"open,omitempty"`
	Seconds float64 `json:"seconds"`
	Stopped bool    `json:"truncated,omitempty"`
	// Partial: mining was interrupted; Matches are those found so far.
	Partial  bool            `json:"partial,omitempty"`
	Examples [][]matchedEdge `json:"matches_enumerated,omitempty"`
	// IDs are the enumerated matches' ids, as the daemon's alerts carry
	// them for the same file replayed by `monitor produce`.
	IDs []string `json:"match_ids,omitempty"`
}

type matchedEdge struct {
	Src string `json:"src"`
	Dst string `json:"dst"`
	T   int64  `json:"t"`
}

type mineReport struct {
	Graph       string  `json:"graph"`
	Edges       int     `json:"edges"`
	LoadSeconds float64 `json:"load_seconds"`
	// Cache is how the graph cache served the load (hit, written, rebuilt
	// and why; empty when off).
	Cache    string      `json:"cache,omitempty"`
	BadLines int64       `json:"bad_lines,omitempty"`
	Queries  []*queryRun `json:"queries"`
	SNAP3    [][]int64   `json:"snap3,omitempty"`
	// Partial: interrupted (Ctrl-C); the queries listed are those begun.
	Partial bool    `json:"partial,omitempty"`
	Seconds float64 `json:"seconds"`
	// BytesPerEdge is the window's host memory per edge; PeakRSS the
	// process's peak resident set, both figures of BENCHMARKS.md.
	BytesPerEdge float64 `json:"bytes_per_edge"`
	PeakRSS      int64   `json:"peak_rss_bytes"`
	// Backend is the engine that mined (cpu or gpu). With the GPU,
	// UploadSeconds is the window's copy to the devices and the device-side
	// adjacency build (query seconds then count mining alone), and
	// DeviceBytesPerEdge the device memory the mirror takes per edge.
	Backend            backend.Backend `json:"backend"`
	UploadSeconds      float64         `json:"upload_seconds,omitempty"`
	DeviceBytesPerEdge float64         `json:"device_bytes_per_edge,omitempty"`
}

func runMine(ctx context.Context, o mineOptions, stdout, stderr io.Writer) error {
	if err := o.check(); err != nil {
		return err
	}
	// Query files before the graph: a bad query fails in a moment, not
	// after a long load.
	queries, err := o.collectQueries()
	if err != nil {
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
	start := time.Now()
	w, report, err := o.load(stderr)
	if err != nil {
		return err
	}
	if ctx.Err() != nil {
		return interruptedError{fmt.Errorf("mine: interrupted while loading %s: nothing mined", o.graph)}
	}
	engine, err := engine.Select(o.backend, o.workers, daemon.GPUOptions(config.Engine{Devices: o.devices, GPU: o.gpu.options()}), slog.New(slog.NewTextHandler(stderr, nil)))
	if err != nil {
		return err
	}
	defer engine.Close()
	report.Backend = engine.Backend
	if engine.GPU != nil {
		// Upload and device-side adjacency build, timed apart from mining.
		t0 := time.Now()
		if err := engine.GPU.Prepare(ctx, w); err != nil {
			return err
		}
		report.UploadSeconds = time.Since(t0).Seconds()
		for _, st := range engine.GPU.Stats() {
			report.DeviceBytesPerEdge = float64(st.WindowBytes) / float64(max(st.WindowEdges, 1))
		}
	}
	plans := make([]*motif.Plan, len(queries))
	for i, q := range queries {
		p, err := motif.Compile(q, w)
		if err != nil {
			return err
		}
		plans[i] = p
	}
	if o.enumerate == 0 {
		engine.Expect(plans...) // counted families announced together are counted in one run
	}
	for i, q := range queries {
		p := plans[i]
		if o.explain {
			fmt.Fprint(stderr, p)
			if c, ok := engine.Counted(p); ok && o.enumerate == 0 {
				fmt.Fprintf(stderr, "  counted, not enumerated: shape %v (motif/count3)\n", c)
			}
		}
		run, err := o.mineOne(ctx, engine, w, p, stderr)
		if err != nil {
			return fmt.Errorf("mining %s: %w", q.Name, err)
		}
		report.Queries = append(report.Queries, run)
		if run.Partial {
			report.Partial = true
			break
		}
	}
	report.Seconds = time.Since(start).Seconds()
	report.BytesPerEdge = w.BytesPerEdge()
	report.PeakRSS = peakRSS()
	if o.snap3 && !report.Partial {
		report.SNAP3 = make([][]int64, 6)
		for i := range 6 {
			report.SNAP3[i] = make([]int64, 6)
			for j := range 6 {
				report.SNAP3[i][j] = report.Queries[i*6+j].Matches
			}
		}
	}
	if err := o.print(stdout, report); err != nil {
		return err
	}
	var total int64
	for _, r := range report.Queries {
		total += r.Matches
	}
	fmt.Fprintf(stderr, "mine: %d edges, %d queries, %d matches in %.2fs on the %s, peak RSS %.1f MiB\n",
		report.Edges, len(report.Queries), total, report.Seconds, strings.ToUpper(report.Backend.String()), float64(report.PeakRSS)/(1<<20))
	if report.Backend == backend.GPU {
		fmt.Fprintf(stderr, "mine: window to the devices in %.3fs, %.1f device bytes per window edge\n", report.UploadSeconds, report.DeviceBytesPerEdge)
	}
	if report.Partial {
		last := report.Queries[len(report.Queries)-1]
		return interruptedError{fmt.Errorf("mine: interrupted during %s: the counts above are partial (%d of %d queries begun)",
			last.Name, len(report.Queries), len(queries))}
	}
	return nil
}

func (o *mineOptions) check() error {
	if o.backend == "" {
		o.backend = backend.CPU // options built in code, as the tests do
	}
	switch {
	case o.graph == "" && o.synthetic == 0:
		return usageError{fmt.Errorf("mine: give --graph FILE or --synthetic N")}
	case o.graph != "" && o.synthetic != 0:
		return usageError{fmt.Errorf("mine: --graph and --synthetic exclude each other")}
	case o.synthetic < 0:
		return usageError{fmt.Errorf("mine: --synthetic %d must be positive", o.synthetic)}
	case len(o.queries) == 0 && len(o.motifs) == 0 && !o.snap3:
		return usageError{fmt.Errorf("mine: give --query FILE, --motif NAME or --snap3")}
	case o.snap3 && (len(o.queries) > 0 || len(o.motifs) > 0):
		return usageError{fmt.Errorf("mine: --snap3 prints the fixed 6x6 grid; use it without --query and --motif")}
	case !slices.Contains(formats, o.format):
		return usageError{fmt.Errorf("mine: --format %q: want table, json or csv", o.format)}
	case o.enumerate < 0:
		return usageError{fmt.Errorf("mine: --enumerate %d must not be negative", o.enumerate)}
	case o.snap3 && o.enumerate > 0:
		return usageError{fmt.Errorf("mine: --snap3 only counts; drop --enumerate")}
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
		if _, err := parseDelta(o.delta); err != nil {
			return usageError{fmt.Errorf("mine: %w", err)}
		}
	}
	return nil
}

// loadHeapPerByte is the Go heap a batch load of an edge file reaches per
// byte of the file, about: 934 MiB for tgraphgen's 10M-edge file of 235
// MB with the collector off (2-core dev VM, 2026-12-03).
const loadHeapPerByte = 4

func (o *mineOptions) load(stderr io.Writer) (*window.Window, *mineReport, error) {
	if o.synthetic > 0 {
		w, err := synth.Window(synth.Default(o.synthetic, o.seed))
		if err != nil {
			return nil, nil, err
		}
		return w, &mineReport{Graph: fmt.Sprintf("synthetic:%d:seed=%d", o.synthetic, o.seed), Edges: w.Len()}, nil
	}
	start := time.Now()
	last := start
	opts := ingest.FileOptions{TimeUnit: o.timeUnit, SkipBad: o.skipBad, KeepSelfLoops: o.keepSelfLoops, NodeFile: o.nodes}
	opts.CacheDir, opts.CacheMin = o.cache.where()
	if o.progress > 0 {
		opts.Progress = func(lines int64) {
			if now := time.Now(); now.Sub(last) >= o.progress {
				last = now
				fmt.Fprintf(stderr, "loading %s: %d lines, %.1fs\n", o.graph, lines, now.Sub(start).Seconds())
			}
		}
	}
	if fi, err := os.Stat(o.graph); err == nil {
		// A load holds about four bytes of heap per byte of text at its
		// peak (parse chunks, dictionaries, the window): no collection
		// before that, as it would free little and stall the parsers.
		gcfloor.Raise(loadHeapPerByte * fi.Size())
	}
	w, st, err := ingest.LoadFile(o.graph, opts)
	if err != nil {
		return nil, nil, err
	}
	warnLoaded(stderr, o.graph, st, o.timeUnit)
	if w.Len() == 0 {
		return nil, nil, fmt.Errorf("mine: %s: %w (%d lines: comments, a header or self-loops only)", o.graph, gpm.ErrNoEdges, st.Lines)
	}
	secs := time.Since(start).Seconds()
	cache := ""
	if st.Cache != "" {
		cache = ", cache " + st.Cache
	}
	fmt.Fprintf(stderr, "loaded %s: %d edges (%d self-loops dropped) in %.2fs, %.0f bytes/edge%s\n",
		o.graph, w.Len(), st.SelfLoops, secs, w.BytesPerEdge(), cache)
	return w, &mineReport{Graph: o.graph, Edges: w.Len(), BadLines: st.Bad, LoadSeconds: secs, Cache: st.Cache}, nil
}

// collectQueries gathers the queries of --query, --motif and --snap3 and
// applies --delta.
func (o *mineOptions) collectQueries() ([]*motif.Query, error) {
	var qs []*motif.Query
	for _, path := range o.queries {
		got, err := loadQueryFile(path)
		if err != nil {
			return nil, err
		}
		qs = append(qs, got...)
	}
	for _, name := range o.motifs {
		q, err := motif.Builtin(name)
		if err != nil {
			return nil, usageError{err}
		}
		qs = append(qs, q)
	}
	if o.snap3 {
		grid := motif.SNAPGrid()
		for i := range 6 {
			for j := range 6 {
				qs = append(qs, grid[i][j])
			}
		}
	}
	if o.delta != "" {
		d, err := parseDelta(o.delta)
		if err != nil {
			return nil, usageError{err}
		}
		for _, q := range qs {
			q.Delta = d
		}
	}
	for _, q := range qs {
		if q.Delta == (motif.Span{}) {
			return nil, usageError{fmt.Errorf("mine: motif %s has no delta: give --delta (e.g. --delta 1h)", q.Name)}
		}
	}
	return qs, nil
}

// loadQueryFile reads motifwatch query YAML, or Everest's when the file
// has a top-level `pattern` key.
func loadQueryFile(path string) ([]*motif.Query, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var probe map[string]any
	if yaml.Unmarshal(data, &probe) == nil {
		if _, ok := probe["pattern"]; ok {
			q, _, err := motif.ImportEverest(path)
			if err != nil {
				return nil, err
			}
			return []*motif.Query{q}, nil
		}
	}
	return motif.ParseQueries(data, path)
}

// parseDelta reads a --delta value: a Go duration or a count of ticks.
func parseDelta(s string) (motif.Span, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n <= 0 {
			return motif.Span{}, fmt.Errorf("--delta %s: must be positive", s)
		}
		return motif.TicksSpan(n), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return motif.Span{}, fmt.Errorf("--delta %q: want a duration like 1h or a number of timestamp ticks", s)
	}
	if d <= 0 {
		return motif.Span{}, fmt.Errorf("--delta %s: must be positive", s)
	}
	return motif.DurationSpan(d), nil
}

func (o *mineOptions) mineOne(ctx context.Context, engine *engine.Selected, w *window.Window, p *motif.Plan, stderr io.Writer) (*queryRun, error) {
	run := &queryRun{Name: p.Query.Name, Delta: p.Query.Delta.String()}
	req := motif.Request{Range: motif.WholeWindow(w), Horizon: motif.Batch, Progress: new(atomic.Int64), Found: new(atomic.Int64)}
	if o.enumerate > 0 {
		req.Sink = motif.SinkFunc(func(m *motif.Match) error {
			if int64(len(run.Examples)) >= o.enumerate {
				return motif.ErrStop
			}
			edges := make([]matchedEdge, len(m.Edges))
			ids := make([]alerts.Edge, len(m.Edges))
			for i, pos := range m.Edges {
				edges[i] = matchedEdge{Src: w.IDs().Name(w.Src(pos)), Dst: w.IDs().Name(w.Dst(pos)), T: w.T(pos)}
				// seq is the window position: what `monitor produce` writes.
				ids[i] = alerts.Edge{Src: edges[i].Src, Dst: edges[i].Dst, T: edges[i].T, Seq: pos}
			}
			run.Examples = append(run.Examples, edges)
			run.IDs = append(run.IDs, alerts.MatchID(run.Name, ids, true))
			return nil
		})
	}
	start := time.Now()
	// The CPU engine reports its running count; the GPU's comes at the end.
	counts := engine.Backend == backend.CPU
	stop := everyTick(o.progress, func() {
		fmt.Fprintln(stderr, progressLine("mining "+run.Name+" (root edges)", req.Progress.Load(), int64(w.Len()),
			req.Found.Load(), counts, "matches", time.Since(start)))
	})
	res, err := engine.Mine(ctx, w, p, req)
	stop()
	if err != nil && ctx.Err() != nil {
		// Interrupted: keep what was counted.
		run.Matches, run.Open, run.Partial = res.Matches, res.Open, true
		run.Seconds = time.Since(start).Seconds()
		return run, nil
	}
	if err != nil {
		return nil, err
	}
	run.Matches, run.Open, run.Stopped = res.Matches, res.Open, res.Stopped
	if res.Stopped {
		// Workers run ahead of the sink; what is known is the bound reached.
		run.Matches = int64(len(run.Examples))
	}
	run.Seconds = time.Since(start).Seconds()
	return run, nil
}

func (o *mineOptions) print(stdout io.Writer, r *mineReport) error {
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
	fmt.Fprintln(tw, "QUERY\tDELTA\tMATCHES\tSECONDS")
	var total int64
	var secs float64
	for _, q := range r.Queries {
		total += q.Matches
		secs += q.Seconds
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.3f\n", q.Name, q.Delta, matchCount(q), q.Seconds)
	}
	if len(r.Queries) > 1 {
		fmt.Fprintf(tw, "TOTAL\t\t%s\t%.3f\n", grouped(total), secs)
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
// "+" when --enumerate stopped mining at its bound and "(partial)" when
// interrupted.
func matchCount(q *queryRun) string {
	s := grouped(q.Matches)
	if q.Stopped {
		s += "+"
	}
	if q.Partial {
		s += " (partial)"
	}
	return s
}

// printMineCSV writes one CSV row per query, raw numbers.
func printMineCSV(stdout io.Writer, r *mineReport) error {
	cw := csv.NewWriter(stdout)
	cw.Write([]string{"query", "delta", "matches", "truncated", "partial", "seconds"})
	for _, q := range r.Queries {
		cw.Write([]string{q.Name, q.Delta, strconv.FormatInt(q.Matches, 10), strconv.FormatBool(q.Stopped),
			strconv.FormatBool(q.Partial), strconv.FormatFloat(q.Seconds, 'f', 3, 64)})
	}
	cw.Flush()
	return cw.Error()
}

// warnLoaded prints what loading an edge file found that the user may
// not expect: the malformed lines --skip-bad skipped (with samples), empty
// attribute values, and timestamps that look written in a finer unit than
// --time-unit.
func warnLoaded(stderr io.Writer, path string, st ingest.FileStats, unit time.Duration) {
	if st.Bad > 0 {
		fmt.Fprintf(stderr, "loading %s: skipped %d malformed lines, e.g.:\n", path, st.Bad)
		for _, e := range st.BadSamples {
			fmt.Fprintf(stderr, "  %v\n", e)
		}
	}
	if st.EmptyValues > 0 {
		fmt.Fprintf(stderr, "loading %s: warning: %s empty attribute %s, e.g. %v; queries see them as missing (docs/QUERIES.md, \"Missing attributes\")\n",
			path, grouped(st.EmptyValues), pluralWord(st.EmptyValues, "value"), st.FirstEmpty)
	}
	if finer, ok := ingest.SuspectTimeUnit(st.LargestT, unit); ok {
		fmt.Fprintf(stderr, "loading %s: warning: timestamps look like %s, not %s: %d (line %d) is %d digits; give --time-unit %s if so\n",
			path, unitWord(finer), unitWord(unit.String()), st.LargestT, st.LargestTLine, len(strconv.FormatUint(absT(st.LargestT), 10)), finer)
	}
}

func absT(t int64) uint64 {
	if t < 0 {
		return uint64(-(t + 1)) + 1
	}
	return uint64(t)
}

// unitWord names a time unit: "1ms" → "milliseconds".
func unitWord(u string) string {
	switch u {
	case "1s":
		return "seconds"
	case "1ms":
		return "milliseconds"
	case "1µs":
		return "microseconds"
	case "1ns":
		return "nanoseconds"
	}
	return "ticks of " + u
}

func pluralWord(n int64, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}

// peakRSS returns the process's peak resident set size in bytes (0 where
// the platform does not report it).
func peakRSS() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Maxrss * 1024 // Linux reports kilobytes
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

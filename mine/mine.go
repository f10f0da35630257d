package mine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/motifwatch/motifwatch/engine"
	"github.com/motifwatch/motifwatch/gpu"
	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/internal/backend"
	"github.com/motifwatch/motifwatch/internal/progress"
	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/motif/count3"
)

// Options say what to mine and how. The zero value of a field is its
// default where it has one.
type Options struct {
	// Graph is the temporal edge file; File its loader's options (time
	// unit, malformed lines, self-loops, node file, cache; Run sets
	// Progress). Synthetic > 0 mines a generated CollegeMsg-like graph of
	// that many edges (Seed) instead.
	Graph     string
	File      ingest.FileOptions
	Synthetic int
	Seed      uint64

	// The queries: query files (motifwatch's YAML or Everest's), built-in
	// motifs by name, SNAP's 36 3-edge motifs (Report.SNAP3 then holds the
	// grid), the four-node family of three and four edges (Grid4: stars,
	// paths, cycles and paws, count3.Grid4); Delta ("1h" or ticks,
	// ParseDelta) overrides their windows.
	QueryFiles []string
	Motifs     []string
	SNAP3      bool
	Grid4      bool
	Delta      string

	// Enumerate > 0 keeps up to that many matches per query instead of
	// only counting.
	Enumerate int64

	// Estimate > 0 estimates each count instead (motif/estimate): the
	// value with an interval at Confidence (0: 0.95) whose half-width is
	// at most Estimate of the value, from a sample of root edges drawn
	// with EstimateSeed. Shapes that motif/count3 counts are counted
	// exactly (faster than a sample), and reported as exact estimates.
	Estimate     float64
	Confidence   float64
	EstimateSeed uint64

	// The engine: backend (default cpu), CPU workers (0: one per CPU),
	// and the GPU engine's devices and tuning.
	Backend backend.Backend
	Workers int
	GPU     gpu.Options

	// Explain writes each query's match plan to Log; Progress is the
	// interval of progress lines there (0: none). Log gets the notes of
	// a run (what was loaded, warnings); nil discards them.
	Explain  bool
	Progress time.Duration
	Log      io.Writer
	// CountPhases, if set, receives a line per counting run timing its
	// passes (count3.Options.Phases).
	CountPhases io.Writer
	// AlwaysCount counts every counted shape's count-mode query without
	// weighing enumeration against counting (count3.Options.AlwaysCount):
	// to test or time the counters where enumerating is cheaper.
	AlwaysCount bool
}

// QueryResult is one query's outcome.
type QueryResult struct {
	Name    string  `json:"name"`
	Delta   string  `json:"delta"`
	Matches int64   `json:"matches"`
	Open    int64   `json:"open,omitempty"`
	Seconds float64 `json:"seconds"`
	Stopped bool    `json:"truncated,omitempty"`
	// Partial: mining was interrupted; Matches are those found so far.
	Partial  bool     `json:"partial,omitempty"`
	Examples [][]Edge `json:"matches_enumerated,omitempty"`
	// IDs are the enumerated matches' ids, as the daemon's alerts carry
	// them for the same file replayed by `monitor produce`.
	IDs []string `json:"match_ids,omitempty"`
	// Estimate is the estimate (Options.Estimate); Matches is then its
	// value rounded.
	Estimate *Estimate `json:"estimate,omitempty"`

	// cell is the counted shape the query is (family), when it is one.
	cell   count3.Cell
	family string
	delta  int64
}

// Edge is one edge of an enumerated match.
type Edge struct {
	Src string `json:"src"`
	Dst string `json:"dst"`
	T   int64  `json:"t"`
}

// Report is a run's outcome (`monitor mine --format json` prints it).
type Report struct {
	Graph       string  `json:"graph"`
	Edges       int     `json:"edges"`
	LoadSeconds float64 `json:"load_seconds"`
	// Cache is how the graph cache served the load (hit, written, rebuilt
	// and why; empty when off).
	Cache    string         `json:"cache,omitempty"`
	BadLines int64          `json:"bad_lines,omitempty"`
	Queries  []*QueryResult `json:"queries"`
	SNAP3    [][]int64      `json:"snap3,omitempty"`
	// Totals sum the counts within a family of shapes whose members
	// count disjoint sets of edge sequences (Total); counts of unrelated
	// motifs are never added up.
	Totals []Total `json:"totals,omitempty"`
	// Partial: interrupted (Ctrl-C); the queries listed are those begun,
	// of Planned.
	Partial bool    `json:"partial,omitempty"`
	Planned int     `json:"-"`
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

// Run mines o's queries in o's graph. Query files are read before the
// graph is loaded, so a bad query fails in a moment. When ctx ends during
// mining, Run returns the counts so far, Report.Partial set; when it ends
// during loading, an error wrapping ctx's.
func Run(ctx context.Context, o Options) (*Report, error) {
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Backend == "" {
		o.Backend = backend.CPU
	}
	switch {
	case o.Graph == "" && o.Synthetic <= 0:
		return nil, errors.New("mine: no graph: give an edge file or a synthetic size")
	case o.Graph != "" && o.Synthetic > 0:
		return nil, errors.New("mine: an edge file and a synthetic graph exclude each other")
	case o.Enumerate < 0:
		return nil, fmt.Errorf("mine: enumerate %d must not be negative", o.Enumerate)
	case o.Estimate != 0 && !(o.Estimate > 0 && o.Estimate < 1):
		return nil, fmt.Errorf("mine: estimate %v: want a relative error in (0, 1)", o.Estimate)
	case o.Confidence != 0 && !(o.Confidence > 0 && o.Confidence < 1):
		return nil, fmt.Errorf("mine: confidence %v: want a value in (0, 1)", o.Confidence)
	case o.SNAP3 && (len(o.QueryFiles) > 0 || len(o.Motifs) > 0 || o.Enumerate > 0):
		return nil, errors.New("mine: the SNAP grid is counted alone: no other queries, no enumeration")
	case o.Grid4 && (len(o.QueryFiles) > 0 || len(o.Motifs) > 0 || o.SNAP3 || o.Enumerate > 0):
		return nil, errors.New("mine: the four-node family is counted alone: no other queries, no enumeration")
	}
	queries, err := o.queries()
	if err != nil {
		return nil, err
	}
	for _, q := range queries {
		if o.epsilon(q) > 0 && o.Enumerate > 0 {
			return nil, fmt.Errorf("mine: query %s has an estimate, which only counts: no enumeration", q.Name)
		}
		if o.epsilon(q) > 0 && o.Backend != backend.CPU {
			return nil, fmt.Errorf("mine: query %s: an estimate mines its sample root by root on the CPU: backend %s cannot (use cpu)", q.Name, o.Backend)
		}
	}
	start := time.Now()
	w, report, err := o.load()
	if err != nil {
		return nil, err
	}
	report.Planned = len(queries)
	if ctx.Err() != nil {
		return nil, fmt.Errorf("mine: interrupted while loading %s: nothing mined: %w", o.Graph, ctx.Err())
	}
	eng, err := engine.Select(o.Backend, o.Workers, o.GPU, slog.New(slog.NewTextHandler(o.Log, nil)))
	if err != nil {
		return nil, err
	}
	defer eng.Close()
	report.Backend = eng.Backend
	if c3, ok := eng.Engine.(*count3.Engine); ok {
		if o.CountPhases != nil {
			c3.TimePhases(o.CountPhases)
		}
		if o.Explain {
			c3.Explain(o.Log) // per query: counted or enumerated, and why
		}
		c3.AlwaysCount(o.AlwaysCount)
	}
	if eng.GPU != nil {
		// Upload and device-side adjacency build, timed apart from mining.
		t0 := time.Now()
		if err := eng.GPU.Prepare(ctx, w); err != nil {
			return nil, err
		}
		report.UploadSeconds = time.Since(t0).Seconds()
		for _, st := range eng.GPU.Stats() {
			report.DeviceBytesPerEdge = float64(st.WindowBytes) / float64(max(st.WindowEdges, 1))
		}
	}
	plans := make([]*motif.Plan, len(queries))
	for i, q := range queries {
		p, err := motif.Compile(q, w)
		if err != nil {
			return nil, err
		}
		plans[i] = p
	}
	if o.Enumerate == 0 {
		eng.Expect(plans...) // counted families announced together are counted in one run
	}
	for i, q := range queries {
		p := plans[i]
		if o.Explain {
			fmt.Fprint(o.Log, p)
			_, counted := eng.Counted(p)
			if eps := o.epsilon(q); eps > 0 && !counted {
				fmt.Fprintf(o.Log, "  estimated within %g from a sample of root edges (motif/estimate)\n", eps)
			} else if !counted && o.Enumerate == 0 {
				fmt.Fprintln(o.Log, "  enumerated: motif/count3 has no counter for this query")
			} // else the counting engine says which, and why, as it mines
		}
		run, err := o.mineOne(ctx, eng, w, p)
		if err != nil {
			return nil, fmt.Errorf("mining %s: %w", q.Name, err)
		}
		if c, ok := count3.Shape(p); ok && (run.Estimate == nil || run.Estimate.Exact) {
			run.cell, run.family, run.delta = c, family(c), count3.Delta(p)
		}
		report.Queries = append(report.Queries, run)
		if run.Partial {
			report.Partial = true
			break
		}
	}
	report.Seconds = time.Since(start).Seconds()
	report.BytesPerEdge = w.BytesPerEdge()
	report.PeakRSS = progress.PeakRSS()
	report.Totals = totals(report.Queries)
	if o.SNAP3 && !report.Partial {
		report.SNAP3 = make([][]int64, 6)
		for i := range 6 {
			report.SNAP3[i] = make([]int64, 6)
			for j := range 6 {
				report.SNAP3[i][j] = report.Queries[i*6+j].Matches
			}
		}
	}
	return report, nil
}

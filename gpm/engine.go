package gpm

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/motifwatch/motifwatch/internal/backend"
)

// App is a GPM algorithm.
type App string

// The algorithms of the paper's Algorithm 4.
const (
	// Clique counts k-cliques.
	Clique App = "clique"
	// Motif counts the connected induced subgraphs on k vertices by
	// pattern (isomorphism class).
	Motif App = "motif"
)

// MaxCliqueK is the largest clique size: Ext.Adj has 32 bits.
const MaxCliqueK = 32

// ParseApp reads "clique" or "motif".
func ParseApp(s string) (App, error) {
	switch a := App(s); a {
	case Clique, Motif:
		return a, nil
	}
	return "", fmt.Errorf("gpm: app %q: want clique or motif", s)
}

// Errors.
var (
	// ErrMemory: the enumeration arrays would exceed the memory limit
	// (see Footprint).
	ErrMemory = errors.New("gpm: enumeration does not fit the memory limit")
	// ErrStop, returned by a Sink, ends the enumeration early without error.
	ErrStop = errors.New("gpm: stop")
)

// Job is one static mining task.
type Job struct {
	App App
	K   int
	// Enumerate > 0 hands up to Enumerate subgraphs to Sink, then stops;
	// 0 only counts.
	Enumerate int64
	Sink      func(Subgraph) error
	// Progress, if set, is advanced while the job runs, for a caller's
	// progress lines. Engines that cannot report leave it at zero.
	Progress *Progress
}

// Progress is a running job's advance, read from another goroutine.
type Progress struct {
	// Roots counts the root vertices whose traversals have started, of
	// the graph's N(): a rough fraction of the work (roots differ in it).
	Roots atomic.Int64
	// Found counts the subgraphs counted or enumerated so far.
	Found atomic.Int64
}

// Subgraph is one enumerated subgraph: its vertices (in the input graph's
// ids, in traversal order) and its canonical pattern. Vertices is reused
// after the Sink returns.
type Subgraph struct {
	Vertices []uint32
	Pattern  Pattern
}

// Validate checks the app and k.
func (j Job) Validate() error {
	if _, err := ParseApp(string(j.App)); err != nil {
		return err
	}
	hi := MaxCliqueK
	if j.App == Motif {
		hi = MaxMotifK
	}
	if j.K < 2 || j.K > hi {
		return fmt.Errorf("gpm: %s k = %d: want 2 to %d", j.App, j.K, hi)
	}
	if j.Enumerate < 0 {
		return fmt.Errorf("gpm: enumerate %d must not be negative", j.Enumerate)
	}
	if j.Enumerate > 0 && j.Sink == nil {
		return errors.New("gpm: enumerate needs a Sink")
	}
	return nil
}

// PatternCount is one pattern's count.
type PatternCount struct {
	Pattern Pattern
	Count   uint64
}

// Result is a job's outcome. Counts are exact unless Stopped.
type Result struct {
	App   App
	K     int
	Total uint64
	// Patterns holds each pattern found with its count, largest first (one
	// entry, the k-clique, for Clique).
	Patterns []PatternCount
	// Stopped: the Enumerate bound was reached; the counts are those of
	// the subgraphs enumerated.
	Stopped bool
	Stats   Stats
}

// Stats describe a run.
type Stats struct {
	// Backend is the engine that ran: backend.CPU or backend.GPU.
	Backend backend.Backend
	Workers int
	// Traversals is the number of workflow iterations (traversals
	// extended).
	Traversals uint64
	// Rebalances counts the stops for redistribution; Moved the
	// traversals (extension arrays) moved to idle workers.
	Rebalances, Moved int64
	// Footprint is the bound on the enumeration memory checked at launch.
	Footprint int64
}

// Engine mines a job on a graph: the CPU engine here, the GPU engine in
// package gpu. When ctx ends mid-run, Run returns ctx's error and, where
// the engine can, the counts so far (a partial Result; nil otherwise).
type Engine interface {
	Run(ctx context.Context, g *Graph, job Job) (*Result, error)
}

// Footprint is the memory the enumeration may need with the given number
// of concurrent traversals, in bytes, per the paper's bound O(traversals ×
// max degree × k²): each of the k levels of a TE holds at most the summed
// degree of ≤ k traversal vertices, 8 bytes an entry; plus each
// traversal's per-vertex scratch (8 bytes a vertex) and, for motifs, its
// pattern tally. g is the graph enumerated (Ranked for cliques).
func Footprint(g *Graph, job Job, traversals int) int64 {
	return int64(traversals) * (teBytes(g, job) + scratchBytes(g, job))
}

// teBytes is one TE's extension arrays: max degree × k² entries of 8 B.
func teBytes(g *Graph, job Job) int64 {
	return int64(max(g.MaxDegree(), 1)) * int64(job.K) * int64(job.K) * 8
}

// scratchBytes is one traversal's Extend scratch and, for motifs, tally.
func scratchBytes(g *Graph, job Job) int64 {
	b := 8 * int64(g.N())
	if job.App == Motif {
		b += rawCountsBytes(job.K)
	}
	return b
}

// checkMemory returns ErrMemory, with the figures, when the footprint
// exceeds limit.
func checkMemory(g *Graph, job Job, traversals int, limit int64) (int64, error) {
	need := Footprint(g, job, traversals)
	if limit > 0 && need > limit {
		return need, fmt.Errorf("%w: %s k=%d needs %s (%d traversals × max degree %d × k² %d × 8 B, plus %d B per traversal of scratch and tallies) but the limit is %s; use fewer workers, a smaller k or a larger limit",
			ErrMemory, job.App, job.K, bytesText(need), traversals, g.MaxDegree(), job.K*job.K,
			scratchBytes(g, job), bytesText(limit))
	}
	return need, nil
}

func bytesText(b int64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	}
	return fmt.Sprintf("%d B", b)
}

// Finish turns per-raw-code tallies into the sorted pattern counts of a
// result: the one place where canonical labels are computed, once per
// distinct raw code. Engines call it with their merged tallies.
func Finish(res *Result, raw *RawCounts) {
	canon := NewCanonizer(res.K)
	byPattern := map[uint64]uint64{}
	raw.Each(func(code, n uint64) {
		byPattern[canon.Canonical(code).Code] += n
	})
	res.Patterns = res.Patterns[:0]
	res.Total = 0
	for code, n := range byPattern {
		res.Patterns = append(res.Patterns, PatternCount{Pattern{K: res.K, Code: code}, n})
		res.Total += n
	}
	sortPatterns(res.Patterns)
}

func sortPatterns(ps []PatternCount) {
	slices.SortFunc(ps, func(a, b PatternCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Pattern.Code, b.Pattern.Code))
	})
}

// CliqueResult fills a clique result with its single pattern.
func CliqueResult(res *Result, count uint64) {
	res.Total = count
	res.Patterns = nil
	if count > 0 {
		res.Patterns = []PatternCount{{CliquePattern(res.K), count}}
	}
}

// CliquePattern returns the k-clique (all ones; see Pattern.Has).
func CliquePattern(k int) Pattern {
	if PairBit(0, k) >= 64 {
		return Pattern{K: k, Code: ^uint64(0)}
	}
	return Pattern{K: k, Code: 1<<PairBit(0, k) - 1}
}

// Count returns the count of the pattern named name ("triangle",
// "4-cycle", …) or with that edge list, 0 if absent.
func (r *Result) Count(name string) uint64 {
	for _, pc := range r.Patterns {
		if pc.Pattern.Name() == name || pc.Pattern.EdgeList() == name {
			return pc.Count
		}
	}
	return 0
}

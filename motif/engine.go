package motif

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"github.com/motifwatch/motifwatch/window"
)

// ErrStop, returned by a Sink, ends mining early without an error: the
// caller has seen enough matches (e.g. `mine --enumerate N`).
var ErrStop = errors.New("motif: stop mining")

// Range selects matches by the position of their LAST edge: Lo <= p < Hi.
type Range struct{ Lo, Hi int64 }

// WholeWindow is the range of every edge of w: batch mining.
func WholeWindow(w *window.Window) Range { return Range{w.First(), w.End()} }

// Batch is the Horizon of a window that will receive no more edges.
const Batch int64 = math.MaxInt64

// Request is one mining call.
type Request struct {
	Range Range
	// Horizon: every edge with t <= Horizon is already in the window. An
	// anti-edge interval that ends after it cannot be decided yet: such a
	// match is Open. Use Batch when the window is complete.
	Horizon int64
	// Sink receives every match (final and open); nil counts only.
	Sink Sink
	// Progress, if set, is advanced by the number of root positions
	// finished (masked ones included), so a caller can report progress of
	// a long run from another goroutine.
	Progress *atomic.Int64
	// Found, if set, is advanced by the final matches counted so far, as
	// each worker finishes a share of roots or a stolen subtree: the
	// running count a progress line shows. Engines without it leave it.
	Found *atomic.Int64
	// RootMask, if not nil, selects the root edges to mine: the position
	// Range.Lo+i is a root only if RootMask[i] is true. Its length must be
	// Range.Hi-Range.Lo. Matches whose last edge is masked are neither
	// reported nor counted, and masked positions do not count in
	// Result.Roots. A scaled-out daemon mines only the matches whose last
	// edge comes from the partitions it owns, in one call per batch
	// however the partitions interleave. Every engine honours it.
	RootMask []bool
	// Budget, if positive, bounds the call's work in steps: one per root
	// edge, per candidate edge tried at a later step, and per run of last-
	// step candidates tallied without visiting them. The count depends
	// only on the window, plan and request (not on timing or workers), so
	// a call whose full work is within the budget is never cut short;
	// past it the engine stops, reports Result.Truncated, and the matches
	// reported (and counted) are a subset. Engines check it at intervals
	// (the CPU engine every 1024 steps per worker, the GPU every few
	// hundred per warp), so a call stops a little past the budget, and one
	// whose work is only that little above it may finish.
	Budget int64
	// Deadline, if set, stops mining at that wall-clock time like an
	// exhausted Budget: a backstop, not deterministic.
	Deadline time.Time
}

// ErrRootMask is returned by Mine for a RootMask whose length is not
// Range.Hi-Range.Lo.
var ErrRootMask = errors.New("motif: root mask length differs from the range")

// CheckRootMask returns ErrRootMask (wrapped with the lengths) unless
// req.RootMask is nil or as long as req.Range: engines call it first.
func (req *Request) CheckRootMask() error {
	if req.RootMask == nil {
		return nil
	}
	if n := req.Range.Hi - req.Range.Lo; int64(len(req.RootMask)) != max(n, 0) {
		return fmt.Errorf("%w: %d entries for range [%d, %d)", ErrRootMask, len(req.RootMask), req.Range.Lo, req.Range.Hi)
	}
	return nil
}

// Match is one match. The slices are reused after Sink.Match returns:
// copy what you keep.
type Match struct {
	// Edges holds the window position of the graph edge matched to each
	// motif edge, in motif (temporal) order.
	Edges []int64
	// Nodes holds the dense graph node mapped to each motif node.
	Nodes []uint32
	// Open marks a match whose anti-edge intervals reach past the request's
	// Horizon; it is valid if no forbidden edge arrives by OpenUntil.
	Open      bool
	OpenUntil int64
}

// Sink consumes matches. Calls are serialised; a Sink never runs
// concurrently with itself.
type Sink interface {
	Match(m *Match) error
}

// SinkFunc adapts a function to Sink.
type SinkFunc func(m *Match) error

// Match calls f(m).
func (f SinkFunc) Match(m *Match) error { return f(m) }

// Result summarises a mining call.
type Result struct {
	// Matches counts final matches; Open counts matches held open by
	// anti-edge intervals past the horizon (not included in Matches).
	Matches, Open int64
	// Roots counts root edges examined; Splits counts subtrees handed from
	// a busy worker to an idle one.
	Roots, Splits int64
	// Stopped reports that the sink ended mining with ErrStop.
	Stopped bool
	// Steps counts the work done, in Request.Budget's steps.
	Steps int64
	// Truncated reports that mining stopped at Request.Budget or
	// Request.Deadline: matches were left unreported (and uncounted).
	Truncated bool
}

// Add accumulates r2 into r (for summing per-partition results).
func (r *Result) Add(r2 Result) {
	r.Matches += r2.Matches
	r.Open += r2.Open
	r.Roots += r2.Roots
	r.Splits += r2.Splits
	r.Stopped = r.Stopped || r2.Stopped
	r.Steps += r2.Steps
	r.Truncated = r.Truncated || r2.Truncated
}

// Limited reports that the request has a budget or a deadline.
func (req *Request) Limited() bool { return req.Budget > 0 || !req.Deadline.IsZero() }

// Engine mines a compiled plan over a window. The CPU engine and the GPU
// engine implement it and must agree exactly.
type Engine interface {
	Mine(ctx context.Context, w *window.Window, p *Plan, req Request) (Result, error)
}

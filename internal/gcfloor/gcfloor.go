// Package gcfloor holds off the garbage collector until the heap reaches
// a floor, for short batch runs. Imported (blank) by command monitor, it
// costs nothing to call: its init does the work, early in the program's
// initialisation (packages initialise in import-path order once their
// imports are done, and this one imports only the runtime's helpers), so
// the other packages' initialisers and a small run's load and count
// allocate without a collection.
//
// Go's default (GOGC=100, a 4 MiB first goal) collects three or four times
// while `monitor mine` starts, loads a 60 k-edge file and counts it, about
// a sixth of that process's CPU (BENCHMARKS.md, "Fixed costs of a small
// run"). Here collection is off (GOGC=off) under a memory limit of Floor,
// so the first collection comes when the Go runtime's memory nears Floor;
// a cleanup on an object that collection frees then restores GOGC=100 and
// the previous limit, and every later collection is the default's. A
// large run differs only in having skipped its first few collections
// (their goals all lie below Floor), so its peak resident set is the
// default's; a small run's peak is its allocations, at most about Floor.
//
// It never overrides what the user set: with GOGC in the environment it
// does nothing, and a GOMEMLIMIT below Floor is the limit it uses (and
// restores).
//
// It also owns the memory limit of a long run: `monitor run` sets the
// daemon's memory budget (config.MemoryBudget) as the limit with Limit,
// which keeps the collector from letting the heap reach twice what is
// live (GOGC=100) when the caps are full. A GOMEMLIMIT in the
// environment wins.
package gcfloor

import (
	"os"
	"runtime"
	"runtime/debug"
	"sync"
)

// Floor is the Go runtime memory (bytes) up to which no collection runs.
const Floor = 64 << 20

// restored is closed once the default settings are back (for tests).
var restored = make(chan struct{})

// state is what Raise needs: the limit to keep under (the user's
// GOMEMLIMIT, or none) and whether the floor still holds.
var state struct {
	mu      sync.Mutex
	holding bool
	limit   int64 // the user's limit, restored after the first collection
	floor   int64 // the floor now
}

// sentinel is the object whose collection marks the first cycle; the
// pointer keeps it out of the tiny allocator, whose blocks free late.
type sentinel struct {
	p *int
	_ [16]byte
}

func init() {
	if _, set := os.LookupEnv("GOGC"); set {
		close(restored)
		return
	}
	limit := debug.SetMemoryLimit(-1) // GOMEMLIMIT, or math.MaxInt64
	gogc := debug.SetGCPercent(-1)    // 100: GOGC is unset
	debug.SetMemoryLimit(min(limit, Floor))
	state.holding, state.limit, state.floor = true, limit, Floor
	runtime.AddCleanup(new(sentinel), func(int) {
		state.mu.Lock()
		defer state.mu.Unlock()
		state.holding = false
		debug.SetGCPercent(gogc)
		debug.SetMemoryLimit(state.limit) // the user's, or Limit's since
		close(restored)
	}, 0)
}

// Raise lifts the floor to n bytes while it still holds (no collection
// has run yet), for a batch run that knows how much it is about to
// allocate: `monitor mine` loading a file, whose parse, dictionaries and
// window grow the heap in one go. Collections while the heap only grows
// find little to free and slow the parsers through their mark assists
// (a 10M-edge load on two cores spent about a sixth of its wall time in
// three early cycles). It never goes above the
// user's GOMEMLIMIT, does nothing once the first collection has run (the
// defaults are back) or when GOGC is set, and after that first
// collection, when the heap nears n, the defaults come back as before.
func Raise(n int64) {
	state.mu.Lock()
	defer state.mu.Unlock()
	if !state.holding || n <= state.floor {
		return
	}
	state.floor = n
	debug.SetMemoryLimit(min(state.limit, n))
}

// Limit makes n bytes the Go runtime's memory limit from now on (once
// the floor is gone, if it still holds: the limit is then the lower of
// the two), unless GOMEMLIMIT is set in the environment, which it keeps
// (ok false). undo restores the limit before the call (for a caller
// that runs in a process that lives on, such as a test).
func Limit(n int64) (undo func(), ok bool) {
	if os.Getenv("GOMEMLIMIT") != "" || n <= 0 {
		return func() {}, false
	}
	state.mu.Lock()
	defer state.mu.Unlock()
	if state.holding {
		prev := state.limit
		state.limit = n
		debug.SetMemoryLimit(min(n, state.floor))
		return func() {
			state.mu.Lock()
			defer state.mu.Unlock()
			state.limit = prev
			if state.holding {
				debug.SetMemoryLimit(min(prev, state.floor))
			} else {
				debug.SetMemoryLimit(prev)
			}
		}, true
	}
	prev := debug.SetMemoryLimit(n)
	return func() { debug.SetMemoryLimit(prev) }, true
}

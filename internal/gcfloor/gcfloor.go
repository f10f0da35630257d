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
package gcfloor

import (
	"os"
	"runtime"
	"runtime/debug"
)

// Floor is the Go runtime memory (bytes) up to which no collection runs.
const Floor = 64 << 20

// restored is closed once the default settings are back (for tests).
var restored = make(chan struct{})

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
	runtime.AddCleanup(new(sentinel), func(int) {
		debug.SetGCPercent(gogc)
		debug.SetMemoryLimit(limit)
		close(restored)
	}, 0)
}

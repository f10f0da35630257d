package count3

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// phases times a Count's passes for Options.Phases: one line per Count
// with its phases' wall times, the process's CPU time in each (all
// threads, the collector's included: on a shared machine the steadier
// figure) and, for the phases that run workers, each worker's busy time
// (median / max), so that a run on a many-core host tells a slow phase
// from an unbalanced one. A measurement aid: off (nil), a phase mark is a
// nil check.
type phases struct {
	to    io.Writer
	name  string
	start time.Time
	last  time.Time
	cpu   time.Duration    // the process's CPU time at the last mark
	busy  []paddedDuration // per worker, since the last mark
	out   strings.Builder
}

type paddedDuration struct {
	d time.Duration
	_ [56]byte
}

func newPhases(fam Families, workers int, to io.Writer) *phases {
	if to == nil {
		return nil
	}
	var names []string
	if fam&Stars != 0 {
		names = append(names, "stars")
	}
	if fam&Triangles != 0 {
		names = append(names, "triangles")
	}
	if fam&Small != 0 {
		names = append(names, "small")
	}
	if fam&Paths != 0 {
		names = append(names, "paths")
	}
	if fam&Cycles4 != 0 {
		names = append(names, "cycles4")
	}
	if fam&Paws != 0 {
		names = append(names, "paws")
	}
	now := time.Now()
	return &phases{to: to, name: strings.Join(names, "+"), start: now, last: now, cpu: processCPU(), busy: make([]paddedDuration, workers)}
}

// add records worker wk busy for d in the current phase.
func (p *phases) add(wk int, d time.Duration) { p.busy[wk].d += d }

// mark ends the current phase, named name.
func (p *phases) mark(name string) {
	if p == nil {
		return
	}
	now, cpu := time.Now(), processCPU()
	fmt.Fprintf(&p.out, " %s %.1f (cpu %.0f)", name, ms(now.Sub(p.last)), ms(cpu-p.cpu))
	p.cpu = cpu
	var busy []time.Duration
	for i := range p.busy {
		if p.busy[i].d > 0 {
			busy = append(busy, p.busy[i].d)
		}
		p.busy[i].d = 0
	}
	if len(busy) > 0 {
		slices.Sort(busy)
		fmt.Fprintf(&p.out, " [%.0f/%.0f]", ms(busy[len(busy)/2]), ms(busy[len(busy)-1]))
	}
	p.last = time.Now() // the summary's own time is not the next phase's
}

// done prints the phases.
func (p *phases) done() {
	if p == nil {
		return
	}
	fmt.Fprintf(p.to, "count3 phases (%s, ms wall (cpu) [busy median/max]):%s total %.1f\n", p.name, p.out.String(), ms(time.Since(p.start)))
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

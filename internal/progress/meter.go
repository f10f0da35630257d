package progress

import (
	"fmt"
	"strings"
	"time"
)

// A Meter words a long run's progress lines from samples of its work
// done, taken every interval. Its ETA is honest rather than linear: the
// share done (roots started or finished) is a poor measure of the work
// when units differ in cost — a clique count's last 3% of roots can hold
// most of its work — so the ETA comes from the recent rate only, and is
// printed only while the projected finish holds still across samples
// and recent units cost (in count per unit) about what earlier ones did;
// otherwise the line says "ETA unknown". It also warns, once, when the
// count runs far past what the input's size suggests.
type Meter struct {
	// What and Noun name the run and its count ("gpm clique k=5 (root
	// vertices)", "subgraphs"); Total is the units of work (roots), Input
	// the input's size in edges (0: no explosion warning). Counts says
	// whether the engine reports its count as it goes.
	What, Noun string
	Total      int64
	Input      int64
	Counts     bool

	samples []sample        // (elapsed, done), from (0, 0)
	ends    []time.Duration // the last projections of the finish, elapsed
	warned  bool
}

type sample struct {
	at          time.Duration
	done, found int64
}

const (
	// rateSpan is how many samples back the rate is taken over: recent
	// enough to see a run slow down, long enough to smooth a tick's noise.
	rateSpan = 3
	// stableSamples projections of the finish must agree before an ETA is
	// printed, within stableSpread of the time left (and 5% of the time
	// taken, so that a steady run keeps its ETA near its end).
	stableSamples = 3
	stableSpread  = 0.25
	// costGrowth bounds the count per unit of recent units over that of
	// all units so far for the share to price the rest.
	costGrowth = 4
	// ExplodeFactor is the count per input edge past which a run is
	// warned of: counts of a few hundred per edge are usual (citeseer's
	// 4-motifs: 80), a clique count that explodes reaches thousands per
	// edge within seconds.
	ExplodeFactor = 10_000
)

// Sample records the run's state at elapsed and returns its progress
// line, and a warning line ("" if none) the first time the count exceeds
// ExplodeFactor per input edge.
func (m *Meter) Sample(done, found int64, elapsed time.Duration) (line, warning string) {
	if len(m.samples) == 0 {
		m.samples = append(m.samples, sample{})
	}
	m.samples = append(m.samples, sample{elapsed, done, found})
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %.1f%%", m.What, 100*float64(done)/float64(max(m.Total, 1)))
	if m.Counts {
		fmt.Fprintf(&b, ", %s %s so far", Grouped(found), m.Noun)
	}
	fmt.Fprintf(&b, ", %s", elapsed.Round(100*time.Millisecond))
	if left, ok := m.eta(); ok {
		fmt.Fprintf(&b, ", ETA %s", left.Round(time.Second))
	} else {
		b.WriteString(", ETA unknown")
	}
	if m.Counts && m.Input > 0 && !m.warned && found > ExplodeFactor*m.Input {
		m.warned = true
		warning = fmt.Sprintf("%s: warning: %s %s from %s input edges after %s (%s per edge): the count is exploding, and the run may take far longer than its share done suggests; Ctrl-C prints the counts so far",
			m.What, Grouped(found), m.Noun, Grouped(m.Input), elapsed.Round(100*time.Millisecond), Grouped(found/m.Input))
	}
	return b.String(), warning
}

// eta projects the finish from the rate over the last rateSpan samples
// and returns the time left when the last stableSamples projections
// agree.
func (m *Meter) eta() (time.Duration, bool) {
	n := len(m.samples)
	now, from := m.samples[n-1], m.samples[max(n-1-rateSpan, 0)]
	if now.done >= m.Total || now.done <= from.done || now.at <= from.at {
		// All units begun with the run still going, or no advance: the
		// rest of the work cannot be read from the share.
		m.ends = m.ends[:0]
		return 0, false
	}
	if m.Counts && now.found > 0 {
		// Weighed by observed cost: when the recent units cost far more
		// than the average one so far, the work grows faster than the
		// share and the units left cannot be priced by those done.
		recent := float64(now.found-from.found) / float64(now.done-from.done)
		average := float64(now.found) / float64(now.done)
		if recent > costGrowth*average {
			m.ends = m.ends[:0]
			return 0, false
		}
	}
	rate := float64(now.done-from.done) / float64(now.at-from.at)
	end := now.at + time.Duration(float64(m.Total-now.done)/rate)
	m.ends = append(m.ends, end)
	if len(m.ends) > stableSamples {
		m.ends = m.ends[1:]
	}
	if len(m.ends) < stableSamples {
		return 0, false
	}
	lo, hi := m.ends[0], m.ends[0]
	for _, e := range m.ends {
		lo, hi = min(lo, e), max(hi, e)
	}
	left := end - now.at
	if float64(hi-lo) > stableSpread*float64(left)+0.05*float64(now.at) {
		return 0, false
	}
	return left, true
}

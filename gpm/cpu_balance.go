package gpm

import (
	"context"
	"math"
	"slices"
	"sync"
	"time"
)

// coord is the paper's CPU-side load balancer (Section IV-D), for
// goroutines instead of warps: it reads how many workers are busy; when
// fewer than the threshold are (rebalance), it raises the park signal so
// every worker stops at its next Control, in a consistent state (between
// two workflow iterations, its TE describing exactly the work left);
// then it moves work from donors to idle workers round-robin
// (redistribute) and lets them all go on.
type coord struct {
	mu   sync.Mutex
	cond *sync.Cond

	workers   []*worker
	sig       *signal
	threshold int
	interval  time.Duration

	// Under mu:
	parked, idle int
	epoch        uint64 // bumped at each resume: parked workers wait for it
	done         bool

	rebalances, moved int64
	// idleCh nudges the coordinator when a worker runs out of work, so it
	// reacts at once instead of at its next poll (and the run ends as
	// soon as the last worker is idle).
	idleCh chan struct{}
}

func newCoord(workers []*worker, o CPUOptions, sig *signal) *coord {
	c := &coord{workers: workers, sig: sig, interval: o.Interval,
		threshold: int(math.Ceil(o.Threshold * float64(len(workers)))), idleCh: make(chan struct{}, 1)}
	c.cond = sync.NewCond(&c.mu)
	return c
}

// park holds a worker while a redistribution runs.
func (c *coord) park() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.parked++
	c.cond.Broadcast()
	e := c.epoch
	for c.epoch == e && !c.done {
		c.cond.Wait()
	}
	c.parked--
}

// waitWork reports a worker whose TE is exhausted and waits for work: true
// when the coordinator loaded some into its TE, false when the run is
// over.
func (c *coord) waitWork(w *worker) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.idle++
	c.cond.Broadcast()
	select {
	case c.idleCh <- struct{}{}:
	default:
	}
	for !w.given && !c.done {
		c.cond.Wait()
	}
	if w.given {
		w.given = false
		return true
	}
	return false
}

// wake ends the run after an abort: parked and idle workers return.
func (c *coord) wake() {
	c.mu.Lock()
	c.done = true
	c.cond.Broadcast()
	c.mu.Unlock()
}

// run is the coordinator loop; it returns when every worker is idle (the
// enumeration is complete) or the run aborts.
func (c *coord) run(ctx context.Context) {
	n := len(c.workers)
	wait := c.interval
	t := time.NewTimer(wait)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			c.sig.abort()
			c.wake()
			return
		case <-t.C:
		case <-c.idleCh:
		}
		if c.sig.v.Load() == sigAbort {
			c.wake()
			return
		}
		c.mu.Lock()
		busy := n - c.idle
		switch {
		case busy == 0:
			c.done = true
			c.cond.Broadcast()
			c.mu.Unlock()
			return
		case busy >= c.threshold || c.idle == 0:
			c.mu.Unlock()
			t.Reset(c.interval)
			continue
		}
		// Rebalance: stop every busy worker in a consistent state. A
		// compare-and-swap, not a store: an abort (an error, the enumerate
		// bound) since the check above must not be overwritten, or the
		// aborted workers, neither parked nor idle, would be waited for
		// forever.
		if !c.sig.v.CompareAndSwap(sigRun, sigPark) {
			c.done = true
			c.cond.Broadcast()
			c.mu.Unlock()
			return
		}
		for c.parked+c.idle < n && c.sig.v.Load() != sigAbort && !c.done {
			c.cond.Wait()
		}
		moved := 0
		if c.sig.v.Load() != sigAbort {
			moved = c.redistribute()
			c.sig.v.CompareAndSwap(sigPark, sigRun)
		}
		c.rebalances++
		c.moved += int64(moved)
		c.epoch++
		c.cond.Broadcast()
		c.mu.Unlock()
		// Back off while donors have nothing to give (their last
		// traversals are running), so stops do not eat the run.
		if moved == 0 {
			wait = min(2*wait, 50*time.Millisecond)
		} else {
			wait = c.interval
		}
		t.Reset(wait)
	}
}

// redistribute moves work to idle workers while there are idle workers
// and donors: each idle worker in turn gets a traversal split off the
// next donor in round-robin order. Called with every worker stopped.
func (c *coord) redistribute() int {
	var idle, donors []*worker
	for _, w := range c.workers {
		switch {
		case !w.te.Control():
			if !w.given {
				idle = append(idle, w)
			}
		case w.te.splittable() >= 0:
			donors = append(donors, w)
		}
	}
	moved := 0
	for d := 0; len(idle) > 0 && len(donors) > 0; {
		d %= len(donors)
		share, ok := donors[d].te.Split()
		if !ok {
			donors = slices.Delete(donors, d, d+1)
			continue
		}
		w := idle[0]
		idle = idle[1:]
		w.te.Load(share, w.app.genEdges())
		if w.te.Control() {
			w.given = true
			c.idle--
			moved++
		}
		d++
	}
	return moved
}

package cpu

import (
	"sync"
	"sync/atomic"

	"github.com/motifwatch/motifwatch/window"
)

// sched hands out work to the workers of one Mine call: root edges first,
// in chunks claimed with an atomic counter (cheap, and dynamic, so a slow
// root does not hold up a pre-assigned share), then subtrees that busy
// workers split off when they see idle ones. Mining ends when the roots
// are exhausted, the task queue is empty and no worker is busy.
type sched struct {
	nextRoot atomic.Int64
	hi       int64
	chunk    int64

	idle atomic.Int32 // workers waiting for a task: the hint to split
	stop atomic.Bool  // set on motif.ErrStop, sink error or cancellation

	mu     sync.Mutex
	cond   *sync.Cond
	tasks  []*task
	active int // workers not waiting
	done   bool
}

// task is a subtree split off a busy worker: the remaining candidates of
// step d, with the partial match they extend.
type task struct {
	d      int
	cands  []window.Adj // already within the step's position and time bounds
	pos    []int64
	tm     []int64
	node   []uint32
	openAt int64
}

func newSched(lo, hi int64, workers int) *sched {
	s := &sched{hi: hi, active: workers}
	s.nextRoot.Store(lo)
	n := hi - lo
	s.chunk = min(max(n/int64(workers*256), 1), 4096)
	s.cond = sync.NewCond(&s.mu)
	return s
}

// roots claims the next chunk of root positions; ok is false when none remain.
func (s *sched) roots() (lo, hi int64, ok bool) {
	lo = s.nextRoot.Add(s.chunk) - s.chunk
	if lo >= s.hi {
		return 0, 0, false
	}
	return lo, min(lo+s.chunk, s.hi), true
}

// push offers a subtree to idle workers.
func (s *sched) push(t *task) {
	s.mu.Lock()
	s.tasks = append(s.tasks, t)
	s.mu.Unlock()
	s.cond.Signal()
}

// next blocks until a task is available (returned) or mining is over (nil).
func (s *sched) next() *task {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.active--
	for len(s.tasks) == 0 && !s.done {
		if s.active == 0 || s.stop.Load() {
			s.done = true
			s.cond.Broadcast()
			break
		}
		s.idle.Add(1)
		s.cond.Wait()
		s.idle.Add(-1)
	}
	if s.done && (len(s.tasks) == 0 || s.stop.Load()) {
		return nil
	}
	t := s.tasks[len(s.tasks)-1]
	s.tasks = s.tasks[:len(s.tasks)-1]
	s.active++
	return t
}

// halt stops every worker as soon as it next looks.
func (s *sched) halt() {
	s.stop.Store(true)
	s.mu.Lock()
	s.cond.Broadcast()
	s.mu.Unlock()
}

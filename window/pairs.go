package window

import (
	"runtime"
	"sync"
)

// IndexPairs builds the pair index (see Between) if it is not built yet;
// from then on Append and eviction maintain it. Between and Pairs call it
// on first use, so calling it is only a way to choose when the cost is
// paid: on a bulk-loaded window it groups each node's out-list by
// destination, with one goroutine per CPU, into one allocation. Safe to
// call from concurrent readers (one builds, the others wait).
func (w *Window) IndexPairs() {
	w.pairsMu.Lock()
	defer w.pairsMu.Unlock()
	if w.pairsOn.Load() {
		return
	}
	w.buildPairs(runtime.GOMAXPROCS(0))
	w.pairsOn.Store(true)
}

// pairRun is one ordered pair's list in the shared allocation.
type pairRun struct {
	key        uint64
	start, len int
}

// buildPairs groups the live out-edges of every node by destination. Each
// pair's list keeps the out-list's (t, seq) order, and lists lie
// node after node in one []Adj of the window's length.
func (w *Window) buildPairs(workers int) {
	back := make([]Adj, w.Len())
	starts := make([]int, len(w.out)+1)
	for u := range w.out {
		starts[u+1] = starts[u] + len(w.out[u].live())
	}
	total := starts[len(w.out)]
	workers = max(1, min(workers, total/bulkParallelMin+1))
	runs := make([][]pairRun, workers)
	var wg sync.WaitGroup
	u0 := 0
	for k := range workers {
		// Nodes [u0, u1) hold about a workers-th of the edges.
		u1 := u0
		for u1 < len(w.out) && starts[u1] < total*(k+1)/workers {
			u1++
		}
		if k == workers-1 {
			u1 = len(w.out)
		}
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			runs[k] = w.groupPairs(lo, hi, starts, back)
		}(u0, u1)
		u0 = u1
	}
	wg.Wait()
	n := 0
	for _, r := range runs {
		n += len(r)
	}
	w.pairs = newPairTable(n)
	w.pairLists = make([]adjList, 0, n)
	w.pairFree = nil
	for _, rs := range runs {
		for _, r := range rs {
			w.pairs.put(r.key, int32(len(w.pairLists)))
			w.pairLists = append(w.pairLists, adjList{ents: back[r.start : r.start+r.len : r.start+r.len]})
		}
	}
}

// groupPairs writes the pair lists of nodes [lo, hi) into back, node u's
// from starts[u], and returns their runs.
func (w *Window) groupPairs(lo, hi int, starts []int, back []Adj) []pairRun {
	type group struct {
		other    uint32
		start, n int
	}
	var runs []pairRun
	var groups []group
	slot := make(map[uint32]int)
	for u := lo; u < hi; u++ {
		list := w.out[u].live()
		if len(list) == 0 {
			continue
		}
		if len(slot) > 64 {
			slot = make(map[uint32]int) // clear would keep a hub's buckets
		} else {
			clear(slot)
		}
		groups = groups[:0]
		for _, a := range list {
			g, ok := slot[a.Other]
			if !ok {
				g = len(groups)
				slot[a.Other] = g
				groups = append(groups, group{other: a.Other})
			}
			groups[g].n++
		}
		at := starts[u]
		for g := range groups {
			groups[g].start = at
			runs = append(runs, pairRun{key: pairKey(uint32(u), groups[g].other), start: at, len: groups[g].n})
			at += groups[g].n
		}
		for _, a := range list {
			g := &groups[slot[a.Other]]
			back[g.start] = a
			g.start++
		}
	}
	return runs
}

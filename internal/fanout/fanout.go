package fanout

import "sync"

// Range returns the k-th of n contiguous ranges [lo, hi) that cut [0,
// size) into near-equal parts (sizes differ by at most one); the ranges
// of k = 0 … n−1 cover [0, size) in order.
func Range(size, n, k int) (lo, hi int) {
	return size * k / n, size * (k + 1) / n
}

// Each calls fn(k) for every k in [0, n), each call on its own goroutine
// (on the caller's when n ≤ 1), and returns when all have returned.
func Each(n int, fn func(k int)) {
	if n <= 1 {
		fn(0)
		return
	}
	var wg sync.WaitGroup
	for k := range n {
		wg.Go(func() { fn(k) })
	}
	wg.Wait()
}

// Ranges calls fn(k, lo, hi) for the k-th of n ranges of [0, size) (see
// Range), each call on its own goroutine (on the caller's when n ≤ 1),
// and returns when all have returned.
func Ranges(size, n int, fn func(k, lo, hi int)) {
	if n <= 1 {
		fn(0, 0, size)
		return
	}
	Each(n, func(k int) {
		lo, hi := Range(size, n, k)
		fn(k, lo, hi)
	})
}

package fanout

import (
	"sync/atomic"
	"testing"
)

// The ranges of every split cover [0, size) exactly once, in order, and
// differ in size by at most one.
func TestRangesCoverOnce(t *testing.T) {
	for _, size := range []int{0, 1, 2, 7, 64, 1000, 1001} {
		for _, n := range []int{1, 2, 3, 4, 7, 16, 33} {
			seen := make([]atomic.Int32, size)
			lens := make([]int, n)
			Ranges(size, n, func(k, lo, hi int) {
				if wlo, whi := Range(size, n, k); n > 1 && (lo != wlo || hi != whi) {
					t.Errorf("size %d, n %d: range %d is [%d, %d), Range says [%d, %d)", size, n, k, lo, hi, wlo, whi)
				}
				lens[k] = hi - lo
				for i := lo; i < hi; i++ {
					seen[i].Add(1)
				}
			})
			for i := range seen {
				if c := seen[i].Load(); c != 1 {
					t.Fatalf("size %d, n %d: index %d covered %d times", size, n, i, c)
				}
			}
			if n > 1 {
				lo, hi := size, 0
				for _, l := range lens {
					lo, hi = min(lo, l), max(hi, l)
				}
				if hi-lo > 1 {
					t.Errorf("size %d, n %d: range sizes from %d to %d", size, n, lo, hi)
				}
			}
			prev := 0
			for k := range n {
				lo, hi := Range(size, n, k)
				if lo != prev || hi < lo {
					t.Fatalf("size %d, n %d: range %d is [%d, %d) after %d", size, n, k, lo, hi, prev)
				}
				prev = hi
			}
			if n > 1 && prev != size {
				t.Fatalf("size %d, n %d: ranges end at %d", size, n, prev)
			}
		}
	}
}

func TestEachRunsEveryWorkerOnce(t *testing.T) {
	for _, n := range []int{0, 1, 2, 9} {
		calls := make([]atomic.Int32, max(n, 1))
		Each(n, func(k int) { calls[k].Add(1) })
		for k := range calls {
			if c := calls[k].Load(); c != 1 {
				t.Errorf("n %d: worker %d called %d times", n, k, c)
			}
		}
	}
}

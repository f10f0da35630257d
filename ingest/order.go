package ingest

import (
	"math"
	"math/bits"

	"github.com/motifwatch/motifwatch/internal/fanout"
)

// parallelSortMin is the number of edges from which timeOrder and
// inTimeOrder use several goroutines (a variable for tests).
var parallelSortMin = 1 << 16

// timeOrder returns keys whose i fields list the indices of ts in
// (ts[i], i) order: by time, equal times in index (file) order.
//
// It is an LSD radix sort of (t - min(ts), i) pairs over the bits that the
// time span needs (3 passes of 10 bits for 10^8 s), so its cost does not
// depend on how disordered the input is. Measured on 10M edges, against
// slices.SortStableFunc and slices.SortFunc on (t, i): 0.19 s vs 0.11 s vs
// 0.56 s on a nearly sorted input (one edge in 16 late by up to 100 s),
// 0.35 s vs 4.0 s vs 2.5 s on a shuffled one (one goroutine). With
// workers > 1 each pass counts and scatters contiguous ranges of keys on
// their own goroutines (see radixSort).
func timeOrder(ts []int64, workers int) []timeKey {
	n := len(ts)
	if n < parallelSortMin {
		workers = 1
	}
	workers = max(1, min(workers, n))
	los, his := make([]int64, workers), make([]int64, workers)
	fanout.Ranges(n, workers, func(k, a, b int) {
		lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
		for _, t := range ts[a:b] {
			lo, hi = min(lo, t), max(hi, t)
		}
		los[k], his[k] = lo, hi
	})
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for k := range workers {
		lo, hi = min(lo, los[k]), max(hi, his[k])
	}
	keys := make([]timeKey, n)
	fanout.Ranges(n, workers, func(_, a, b int) {
		for i := a; i < b; i++ {
			keys[i] = timeKey{uint64(ts[i] - lo), int64(i)} // wraps to the right unsigned span
		}
	})
	if n > 1 {
		radixSort(keys, uint64(hi-lo), workers)
	}
	return keys
}

type timeKey struct {
	t uint64 // time minus the smallest time
	i int64
}

// radixSort sorts keys by t, stably, given that every t is at most span.
// Each pass splits the keys into workers contiguous ranges: each range's
// digits are counted on its own goroutine, the counts turned into
// offsets digit by digit and range by range (so a range's keys of one
// digit land after those of the ranges before it: the pass stays
// stable), and each range scattered on its own goroutine.
func radixSort(keys []timeKey, span uint64, workers int) {
	nb := bits.Len64(span)
	if nb == 0 {
		return
	}
	n := len(keys)
	workers = max(1, min(workers, n))
	passes := (nb + 10) / 11
	digit := (nb + passes - 1) / passes
	mask := uint64(1)<<digit - 1
	counts := make([][]int, workers)
	for k := range counts {
		counts[k] = make([]int, 1<<digit)
	}
	src, dst := keys, make([]timeKey, n)
	for shift := 0; shift < nb; shift += digit {
		fanout.Ranges(n, workers, func(k, a, b int) {
			count := counts[k]
			clear(count)
			for _, key := range src[a:b] {
				count[(key.t>>shift)&mask]++
			}
		})
		sum := 0
		for d := range 1 << digit {
			for _, count := range counts {
				c := count[d]
				count[d] = sum
				sum += c
			}
		}
		fanout.Ranges(n, workers, func(k, a, b int) {
			count := counts[k]
			for _, key := range src[a:b] {
				d := (key.t >> shift) & mask
				dst[count[d]] = key
				count[d]++
			}
		})
		src, dst = dst, src
	}
	if &src[0] != &keys[0] {
		fanout.Ranges(n, workers, func(_, a, b int) { copy(keys[a:b], src[a:b]) })
	}
}

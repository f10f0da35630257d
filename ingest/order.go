package ingest

import (
	"math"
	"math/bits"
)

// timeOrder returns keys whose i fields list the indices of ts in
// (ts[i], i) order: by time, equal times in index (file) order.
//
// It is an LSD radix sort of (t - min(ts), i) pairs over the bits that the
// time span needs (3 passes of 10 bits for 10^8 s), so its cost does not
// depend on how disordered the input is. Measured on 10M edges, against
// slices.SortStableFunc and slices.SortFunc on (t, i): 0.19 s vs 0.11 s vs
// 0.56 s on a nearly sorted input (one edge in 16 late by up to 100 s),
// 0.35 s vs 4.0 s vs 2.5 s on a shuffled one.
func timeOrder(ts []int64) []timeKey {
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for _, t := range ts {
		lo, hi = min(lo, t), max(hi, t)
	}
	keys := make([]timeKey, len(ts))
	for i, t := range ts {
		keys[i] = timeKey{uint64(t - lo), int64(i)} // wraps to the right unsigned span
	}
	if len(ts) > 1 {
		radixSort(keys, uint64(hi-lo))
	}
	return keys
}

type timeKey struct {
	t uint64 // time minus the smallest time
	i int64
}

// radixSort sorts keys by t, stably, given that every t is at most span.
func radixSort(keys []timeKey, span uint64) {
	nb := bits.Len64(span)
	if nb == 0 {
		return
	}
	passes := (nb + 10) / 11
	digit := (nb + passes - 1) / passes
	mask := uint64(1)<<digit - 1
	count := make([]int, 1<<digit)
	src, dst := keys, make([]timeKey, len(keys))
	for shift := 0; shift < nb; shift += digit {
		clear(count)
		for _, k := range src {
			count[(k.t>>shift)&mask]++
		}
		sum := 0
		for d, c := range count {
			count[d] = sum
			sum += c
		}
		for _, k := range src {
			d := (k.t >> shift) & mask
			dst[count[d]] = k
			count[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &keys[0] {
		copy(keys, src)
	}
}

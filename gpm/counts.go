package gpm

// denseBits is the largest raw code width tallied in a flat array: k ≤ 7
// (21 pairs, 2 Mi counters, 16 MiB). Wider codes use a map.
const denseBits = 21

// RawCounts tallies subgraphs by raw code (their induced edges in
// traversal order, before canonical labelling): a flat array indexed by
// code while codes are short, so the hot Aggregate step is one increment;
// a map beyond. Counters are 64-bit. Not safe for concurrent use: each
// worker has its own and they are merged.
type RawCounts struct {
	dense  []uint64
	sparse map[uint64]uint64
}

// NewRawCounts returns an empty tally for codes of k-vertex subgraphs.
func NewRawCounts(k int) *RawCounts {
	if PairBit(0, k) <= denseBits {
		return &RawCounts{dense: make([]uint64, 1<<PairBit(0, k))}
	}
	return &RawCounts{sparse: map[uint64]uint64{}}
}

func rawCountsBytes(k int) int64 {
	if PairBit(0, k) <= denseBits {
		return 8 << PairBit(0, k)
	}
	return 0 // grows with the distinct raw codes met; not bounded in advance
}

// Add adds n to code's count.
func (c *RawCounts) Add(code, n uint64) {
	if c.dense != nil {
		c.dense[code] += n
		return
	}
	c.sparse[code] += n
}

// Merge adds o's counts.
func (c *RawCounts) Merge(o *RawCounts) {
	o.Each(func(code, n uint64) { c.Add(code, n) })
}

// Each calls f for every code with a non-zero count.
func (c *RawCounts) Each(f func(code, n uint64)) {
	for code, n := range c.dense {
		if n != 0 {
			f(uint64(code), n)
		}
	}
	for code, n := range c.sparse {
		f(code, n)
	}
}

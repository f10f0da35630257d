package window

import (
	"math/bits"
	"math/rand/v2"
	"unsafe"
)

// pairTable maps an ordered node pair's key (pairKey) to its index in
// pairLists. It is an open-addressing table with linear probing, keys and
// values in two flat arrays, at most 7/8 full: the engines look a pair up
// for every closing edge they try, and there a Go map cost 2.2× the time
// per random lookup and 1.5× the bytes per entry (window's
// BenchmarkPairLookup). Deletion shifts the entries after it back (no
// tombstones), so lookups never slow down with churn. Keys are mixed with
// a per-table random seed, so that no choice of node pairs (ids are
// assigned in arrival order, which a producer controls) can pile keys
// into one probe run.
type pairTable struct {
	keys []uint64 // emptyKey where free
	vals []int32
	n    int
	// shift maps a mixed key to a slot: its top bits.
	shift uint
	seed  uint64
	// The key equal to emptyKey (pair MaxUint32→MaxUint32) is kept apart.
	hasEmptyKey bool
	emptyKeyVal int32
}

const emptyKey = ^uint64(0)

// minPairSlots is the smallest table.
const minPairSlots = 16

// newPairTable returns a table with room for n entries.
func newPairTable(n int) pairTable {
	t := pairTable{seed: rand.Uint64()}
	t.alloc(max(minPairSlots, 1<<bits.Len(uint(n*8/7))))
	return t
}

func (t *pairTable) alloc(slots int) {
	t.keys = make([]uint64, slots)
	for i := range t.keys {
		t.keys[i] = emptyKey
	}
	t.vals = make([]int32, slots)
	t.shift = uint(64 - bits.TrailingZeros(uint(slots)))
}

// slot is k's home slot.
func (t *pairTable) slot(k uint64) uint64 {
	// A bijective 64-bit mixer (splitmix64's finaliser) of the seeded key.
	x := k + t.seed
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x >> t.shift
}

// len returns the number of entries.
func (t *pairTable) len() int { return t.n }

// get returns k's value.
func (t *pairTable) get(k uint64) (int32, bool) {
	if k == emptyKey {
		return t.emptyKeyVal, t.hasEmptyKey
	}
	if t.keys == nil {
		return 0, false
	}
	mask := uint64(len(t.keys) - 1)
	for i := t.slot(k); ; i = (i + 1) & mask {
		switch t.keys[i] {
		case k:
			return t.vals[i], true
		case emptyKey:
			return 0, false
		}
	}
}

// put sets k's value.
func (t *pairTable) put(k uint64, v int32) {
	if k == emptyKey {
		if !t.hasEmptyKey {
			t.n++
		}
		t.hasEmptyKey, t.emptyKeyVal = true, v
		return
	}
	if t.keys == nil {
		*t = newPairTable(0)
	}
	if (t.n+1)*8 > len(t.keys)*7 {
		t.resize(2 * len(t.keys))
	}
	mask := uint64(len(t.keys) - 1)
	for i := t.slot(k); ; i = (i + 1) & mask {
		switch t.keys[i] {
		case k:
			t.vals[i] = v
			return
		case emptyKey:
			t.keys[i], t.vals[i] = k, v
			t.n++
			return
		}
	}
}

// del removes k, if present.
func (t *pairTable) del(k uint64) {
	if k == emptyKey {
		if t.hasEmptyKey {
			t.n--
		}
		t.hasEmptyKey, t.emptyKeyVal = false, 0
		return
	}
	if t.keys == nil {
		return
	}
	mask := uint64(len(t.keys) - 1)
	i := t.slot(k)
	for ; t.keys[i] != k; i = (i + 1) & mask {
		if t.keys[i] == emptyKey {
			return
		}
	}
	// Backward shift: move each later entry of the run whose home slot is
	// not cyclically in (i, j] into the hole, so every entry stays
	// reachable from its home without passing a free slot.
	for j := (i + 1) & mask; t.keys[j] != emptyKey; j = (j + 1) & mask {
		home := t.slot(t.keys[j])
		if (j-home)&mask >= (j-i)&mask {
			t.keys[i], t.vals[i] = t.keys[j], t.vals[j]
			i = j
		}
	}
	t.keys[i] = emptyKey
	t.n--
}

// resize rehashes into slots slots.
func (t *pairTable) resize(slots int) {
	keys, vals := t.keys, t.vals
	t.alloc(slots)
	mask := uint64(slots - 1)
	for s, k := range keys {
		if k == emptyKey {
			continue
		}
		i := t.slot(k)
		for t.keys[i] != emptyKey {
			i = (i + 1) & mask
		}
		t.keys[i], t.vals[i] = k, vals[s]
	}
}

// each calls fn for every entry, in no particular order.
func (t *pairTable) each(fn func(k uint64, v int32)) {
	for i, k := range t.keys {
		if k != emptyKey {
			fn(k, t.vals[i])
		}
	}
	if t.hasEmptyKey {
		fn(emptyKey, t.emptyKeyVal)
	}
}

// bytes is the table's memory.
func (t *pairTable) bytes() int64 {
	return int64(cap(t.keys))*int64(unsafe.Sizeof(uint64(0))) + int64(cap(t.vals))*int64(unsafe.Sizeof(int32(0)))
}

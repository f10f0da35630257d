package textfile

import (
	"fmt"
	"hash/maphash"
	"math"
	"slices"
	"sync"
)

// Dict gives byte strings codes 0, 1, … in the order of their first Code.
// The zero value is ready to use; NewDict makes one that is faster on
// integers.
//
// Most edge files name vertices by small decimal integers: those whose
// text is canonical (no sign, no leading zero) and below the dict's bound
// are looked up by value in a slice, several times faster than hashing
// the bytes and probing a map of hundreds of thousands of strings; their
// canonical text keeps "7" and "007" apart.
type Dict struct {
	codes    map[string]uint32
	small    []uint32 // small[i]: 1 + the code of the integer i, 0 if none yet
	smallMax int      // integers below it are looked up in small; fixed
	names    []string
}

// smallMax bounds the integers looked up by value (4M: 16 MiB of slice at
// most per dict).
const smallMax = 1 << 22

// NewDict returns a dict for a chunk of about chunkBytes bytes (0:
// unknown) that looks integers up by value below chunkBytes/8, within 64
// Ki and 4 Mi: its slice (grown only as far as the largest integer seen)
// then takes at most half as many bytes as the chunk, about what the
// chunk's parsed lines take, even with one chunk per CPU on a many-core
// host.
func NewDict(chunkBytes int64) Dict {
	if chunkBytes <= 0 {
		return Dict{smallMax: smallMax}
	}
	return Dict{smallMax: int(min(smallMax, max(1<<16, chunkBytes/8)))}
}

// Code returns b's code, giving it the next one if b is new. A dict holds
// at most math.MaxUint32 strings; callers check Len first.
func (d *Dict) Code(b []byte) uint32 {
	if i, ok := smallInt(b); ok && i < d.smallMax {
		if i < len(d.small) {
			if c := d.small[i]; c != 0 {
				return c - 1
			}
		} else {
			d.small = slices.Grow(d.small, min(d.smallMax, max(i+1, 2*len(d.small)))-len(d.small))
			d.small = d.small[:cap(d.small)]
		}
		c := uint32(len(d.names))
		d.small[i] = c + 1
		d.names = append(d.names, string(b))
		return c
	}
	if c, ok := d.codes[string(b)]; ok { // no allocation for known strings
		return c
	}
	if d.codes == nil {
		d.codes = make(map[string]uint32)
	}
	c := uint32(len(d.names))
	v := string(b)
	d.codes[v] = c
	d.names = append(d.names, v)
	return c
}

// smallInt returns the value of b if b is the canonical decimal text of
// an integer below smallMax.
func smallInt[T string | []byte](b T) (int, bool) {
	if len(b) == 0 || len(b) > 7 || b[0] == '0' && len(b) > 1 {
		return 0, false
	}
	n := 0
	for i := range len(b) {
		if c := b[i]; c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(b[i]-'0')
	}
	return n, n < smallMax
}

// Len returns how many strings have a code.
func (d *Dict) Len() int { return len(d.names) }

// Names returns the strings by code; it aliases the dict.
func (d *Dict) Names() []string { return d.names }

// Merge numbers the strings of dicts, the dictionaries of consecutive
// chunks of one file in file order, in the order of their first
// appearance in the file, as one dictionary over the whole file would:
// ids[p][c] is the file-wide id of code c of dicts[p], and names lists the
// strings by id. It runs on up to workers goroutines: the strings are
// sharded (integers that every dict looks up by value, by ranges of
// values; the rest by hash), each shard finds its strings' first
// appearances on its own, and ids follow from counting first appearances
// per dict.
func Merge(dicts []*Dict, workers int) (ids [][]uint32, names []string, err error) {
	ids = make([][]uint32, len(dicts))
	if len(dicts) == 1 { // one pass: codes are ids
		ids[0] = make([]uint32, dicts[0].Len())
		for c := range ids[0] {
			ids[0][c] = uint32(c)
		}
		return ids, dicts[0].names, nil
	}
	shards := max(1, workers)
	// Integers below byValue are in every dict's slice: their first
	// appearance is found by value, without hashing or a map.
	byValue, span := smallMax, 0
	for _, d := range dicts {
		byValue = min(byValue, d.smallMax)
		span = max(span, len(d.small))
	}
	span = min(span, byValue)
	seed := maphash.MakeSeed()
	// bucket[p][s]: the codes of dicts[p] whose string falls in shard s,
	// ascending (strings other than the integers below byValue).
	bucket := make([][][]uint32, len(dicts))
	first := make([][]bool, len(dicts)) // the code is the string's first appearance
	ForEach(len(dicts), workers, func(p int) {
		d := dicts[p]
		ids[p] = make([]uint32, d.Len())
		first[p] = make([]bool, d.Len())
		bucket[p] = make([][]uint32, shards)
		for c, name := range d.names {
			if i, ok := smallInt(name); ok && i < byValue {
				continue
			}
			s := maphash.String(seed, name) % uint64(shards)
			bucket[p][s] = append(bucket[p][s], uint32(c))
		}
	})
	// valueRange is the s-th of shards ranges of the integers below span.
	valueRange := func(s int) (lo, hi int) { return span * s / shards, span * (s + 1) / shards }
	// firstByValue returns the first dict holding integer i, and its code
	// there (-1 if none does).
	firstByValue := func(i int) (p int, c uint32) {
		for p, d := range dicts {
			if i < len(d.small) && d.small[i] != 0 {
				return p, d.small[i] - 1
			}
		}
		return -1, 0
	}
	// Per shard, in file order: the first appearance of each string, as
	// (dict, code) in firsts; every code's ids entry holds, for now, the
	// index of its string's first appearance in firsts.
	firsts := make([][]uint64, shards)
	ForEach(shards, workers, func(s int) {
		lo, hi := valueRange(s)
		for i := lo; i < hi; i++ {
			if p, c := firstByValue(i); p >= 0 {
				first[p][c] = true
			}
		}
		hint := 0
		for p := range dicts {
			hint = max(hint, len(bucket[p][s]))
		}
		seen := make(map[string]uint32, 2*hint)
		for p, d := range dicts {
			for _, c := range bucket[p][s] {
				name := d.names[c]
				k, ok := seen[name]
				if !ok {
					k = uint32(len(firsts[s]))
					seen[name] = k
					firsts[s] = append(firsts[s], uint64(p)<<32|uint64(c))
					first[p][c] = true
				}
				ids[p][c] = k
			}
		}
	})
	// A first appearance's id: the first appearances in earlier dicts,
	// plus those before it in its own.
	base := make([]int, len(dicts)+1)
	ForEach(len(dicts), workers, func(p int) {
		for _, f := range first[p] {
			if f {
				base[p+1]++
			}
		}
	})
	for p := range dicts {
		base[p+1] += base[p]
	}
	if base[len(dicts)] > math.MaxUint32 {
		return nil, nil, fmt.Errorf("more than %d distinct strings", uint32(math.MaxUint32))
	}
	names = make([]string, base[len(dicts)])
	ForEach(len(dicts), workers, func(p int) {
		id := uint32(base[p])
		for c, f := range first[p] {
			if f {
				ids[p][c] = id
				names[id] = dicts[p].names[c]
				id++
			}
		}
	})
	// The other appearances take the id of their first.
	ForEach(shards, workers, func(s int) {
		lo, hi := valueRange(s)
		for i := lo; i < hi; i++ {
			p0, c0 := firstByValue(i)
			if p0 < 0 {
				continue
			}
			id := ids[p0][c0]
			for p := p0 + 1; p < len(dicts); p++ {
				if d := dicts[p]; i < len(d.small) && d.small[i] != 0 {
					ids[p][d.small[i]-1] = id
				}
			}
		}
		for p := range dicts {
			for _, c := range bucket[p][s] {
				if !first[p][c] {
					f := firsts[s][ids[p][c]]
					ids[p][c] = ids[f>>32][uint32(f)]
				}
			}
		}
	})
	return ids, names, nil
}

// ForEach calls fn(0), …, fn(n-1) on up to workers goroutines.
func ForEach(n, workers int, fn func(i int)) {
	var wg sync.WaitGroup
	next := make(chan int, n)
	for i := range n {
		next <- i
	}
	close(next)
	for range min(n, max(1, workers)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				fn(i)
			}
		}()
	}
	wg.Wait()
}

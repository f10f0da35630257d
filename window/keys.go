package window

import (
	"hash/maphash"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Key names a node through a Keys dictionary: its generation in the high
// 32 bits, its number in that generation in the low 32; 0 is no key. A
// generation number belongs to one generation of one Keys in the process
// (they come from one counter), so a key never means two names.
type Key uint64

func (k Key) gen() uint32 { return uint32(k >> 32) }

// SameNode reports whether keys a and b name the same node, when they
// can tell (ok): both keys of one generation. A caller compares the
// names otherwise.
func SameNode(a, b Key) (same, ok bool) {
	if a == 0 || a.gen() != b.gen() {
		return false, false
	}
	return a == b, true
}
func (k Key) num() uint32 { return uint32(k) }

// keyGens numbers the generations of every Keys in the process.
var keyGens atomic.Uint32

// Keys is a dictionary of node names that the goroutines decoding edges
// in parallel share (ingest.DecodeOptions.NodeKeys): each name gets a
// Key there, off the daemon's serial path, so that the window's writer
// finds the name's dense id by an array index (IDs.InternKey) instead of
// hashing the name and comparing it in a string-keyed map, and a decoder
// reuses the dictionary's copy of a name instead of allocating one per
// edge. Keys only speeds up: an edge without a key, or with one of an
// older generation, is interned by name as before.
//
// The dictionary forgets no names within a generation; once it holds
// more than its limit (SetLimit: about twice the nodes live in the
// window) the next new name starts a new generation, empty, and the old
// one is garbage once the edges keyed by it are gone. It is safe for
// concurrent use.
type Keys struct {
	cur   atomic.Pointer[keyGen]
	limit atomic.Int64
	seed  maphash.Seed
}

// defaultKeyLimit bounds a generation until SetLimit is called.
const defaultKeyLimit = 1 << 22

// keyShards spreads the dictionary's lock: decoders of different
// partitions rarely wait for each other.
const keyShards = 64

type keyGen struct {
	gen  uint32
	next atomic.Uint32 // numbers handed out
	// names is the bytes the runtime allocated for the generation's
	// copies of the names (stringBytes), for Bytes.
	names  atomic.Int64
	shards [keyShards]keyShard
}

// keyVal is a name's number and the dictionary's copy of the name (the
// map's key is the same string: a lookup by bytes gets it back).
type keyVal struct {
	name string
	n    uint32
}

type keyShard struct {
	mu sync.RWMutex
	m  map[string]keyVal
	_  [32]byte // a cache line per shard (RWMutex 24 + map 8 + 32)
}

// NewKeys returns an empty dictionary.
func NewKeys() *Keys {
	k := &Keys{seed: maphash.MakeSeed()}
	k.limit.Store(defaultKeyLimit)
	k.cur.Store(newKeyGen())
	return k
}

func newKeyGen() *keyGen {
	g := &keyGen{gen: keyGens.Add(1)}
	for i := range g.shards {
		g.shards[i].m = make(map[string]keyVal)
	}
	return g
}

// SetLimit sets the number of names after which the next new name starts
// a new generation (at least 1, at most 2^31).
func (k *Keys) SetLimit(n int) { k.limit.Store(int64(min(max(n, 1), 1<<31))) }

// Len returns the number of names in the current generation.
func (k *Keys) Len() int { return int(k.cur.Load().next.Load()) }

// Limit returns the number of names after which a new generation starts
// (SetLimit).
func (k *Keys) Limit() int { return int(k.limit.Load()) }

// Renew starts a new, empty generation now if the current one holds more
// names than the limit, as the next new name would: the window's memory
// cap calls it after lowering the limit, so that the names of nodes gone
// from the window are not kept until one more name comes. The old
// generation is garbage once the edges keyed by it are gone. It reports
// whether it did.
func (k *Keys) Renew() bool {
	g := k.cur.Load()
	if int64(g.next.Load()) <= k.limit.Load() {
		return false
	}
	return k.cur.CompareAndSwap(g, newKeyGen())
}

// keySlot is a slot of a shard's map: the name's string header and its
// keyVal, padded.
const keySlot = int64(unsafe.Sizeof(struct {
	k string
	v keyVal
}{}))

// Bytes bounds the heap the current generation holds: its maps (counted
// as mapBytes does, from each shard's entries: a generation never
// deletes) and its copies of the names. A name that a live node of the
// window also holds is counted here and in the window's dictionary, so
// the two together overcount it a little, never undercount.
func (k *Keys) Bytes() int64 {
	g := k.cur.Load()
	b := int64(unsafe.Sizeof(*g)) + g.names.Load()
	for i := range g.shards {
		s := &g.shards[i]
		s.mu.RLock()
		n := len(s.m)
		s.mu.RUnlock()
		b += mapBytes(n, keySlot)
	}
	return b
}

// Of returns name's key and the dictionary's copy of the name (equal to
// name).
func (k *Keys) Of(name string) (Key, string) {
	g := k.cur.Load()
	s := &g.shards[maphash.String(k.seed, name)%keyShards]
	s.mu.RLock()
	v, ok := s.m[name]
	s.mu.RUnlock()
	if ok {
		return g.key(v.n), v.name
	}
	return k.add(g, s, name)
}

// OfBytes is Of for a name in bytes: it allocates only for a name the
// generation does not hold yet (the copy it returns is the dictionary's).
func (k *Keys) OfBytes(name []byte) (Key, string) {
	g := k.cur.Load()
	s := &g.shards[maphash.Bytes(k.seed, name)%keyShards]
	s.mu.RLock()
	v, ok := s.m[string(name)] // no allocation: the compiler optimises the lookup
	s.mu.RUnlock()
	if ok {
		return g.key(v.n), v.name
	}
	return k.add(g, s, string(name))
}

func (g *keyGen) key(n uint32) Key { return Key(uint64(g.gen)<<32 | uint64(n)) }

// add puts a name new to the lookup into g under s's lock.
func (k *Keys) add(g *keyGen, s *keyShard, name string) (Key, string) {
	s.mu.Lock()
	if v, ok := s.m[name]; ok {
		s.mu.Unlock()
		return g.key(v.n), v.name
	}
	if n := int64(g.next.Load()); n >= k.limit.Load() || n >= 1<<32-1 {
		s.mu.Unlock()
		// Full: later names go to a new generation (one: a decoder that
		// lost the race to start it uses the winner's).
		k.cur.CompareAndSwap(g, newKeyGen())
		g = k.cur.Load()
		s = &g.shards[maphash.String(k.seed, name)%keyShards]
		s.mu.Lock()
		if v, ok := s.m[name]; ok {
			s.mu.Unlock()
			return g.key(v.n), v.name
		}
	}
	n := g.next.Add(1) - 1
	s.m[name] = keyVal{name: name, n: n}
	g.names.Add(stringBytes(len(name)))
	s.mu.Unlock()
	return g.key(n), name
}

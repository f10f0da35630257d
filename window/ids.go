package window

import (
	"fmt"
	"math"
	"sync"
)

// IDs maps external node ids (strings) to dense uint32 ids and back.
// Dense ids are reused after Release, so arrays indexed by node id stay
// as small as the number of nodes alive at once.
type IDs struct {
	byName map[string]uint32
	names  []string
	free   []uint32
	live   int
	// mapPeak is the most entries byName has held since it was made: a
	// Go map keeps the memory of its peak (bytes).
	mapPeak int

	// InternKey's table: byKey[n] is the id that the name of Key (keyGen,
	// n) got, valid while stamps[id] still equals its stamp. stamps[id]
	// changes whenever id is released, so an entry of a released id,
	// whatever name took the id since, is never taken for a live one.
	keyGen uint32
	byKey  []keyEntry
	stamps []uint32
}

type keyEntry struct{ id, stamp uint32 }

// NewIDs returns an empty dictionary.
func NewIDs() *IDs { return &IDs{byName: make(map[string]uint32)} }

// Intern returns the dense id of name, assigning one if it is new.
// The second result reports whether the id was new.
func (d *IDs) Intern(name string) (uint32, bool) {
	if id, ok := d.byName[name]; ok {
		return id, false
	}
	var id uint32
	if n := len(d.free); n > 0 {
		id = d.free[n-1]
		d.free = d.free[:n-1]
		d.names[id] = name
	} else {
		id = uint32(len(d.names))
		d.names = append(d.names, name)
		d.stamps = append(d.stamps, 1)
	}
	d.byName[name] = id
	d.mapPeak = max(d.mapPeak, len(d.byName))
	d.live++
	return id, true
}

// InternKey is Intern for a name with its key from a Keys dictionary (0:
// none): the same id, found by an array index when the key's generation
// is the newest this dictionary has seen and the name was interned with
// that key before, while its id stayed live.
func (d *IDs) InternKey(k Key, name string) (uint32, bool) {
	gen, n := k.gen(), k.num()
	if gen == d.keyGen && int(n) < len(d.byKey) {
		if e := d.byKey[n]; e.stamp != 0 && d.stamps[e.id] == e.stamp {
			return e.id, false
		}
	}
	id, isNew := d.Intern(name)
	if gen == 0 || gen < d.keyGen {
		return id, isNew // no key, or an older generation's
	}
	if gen > d.keyGen {
		d.keyGen = gen
		clear(d.byKey)
		d.byKey = d.byKey[:0]
	}
	if int(n) >= len(d.byKey) {
		d.byKey = growKeys(d.byKey, int(n)+1)
	}
	d.byKey[n] = keyEntry{id: id, stamp: d.stamps[id]}
	return id, isNew
}

// KeyID returns the id InternKey would return for a name with key k
// when it finds it by k alone (ok false: InternKey would look the name
// up, or intern it). It only reads: goroutines may call it at once while
// nothing interns or releases.
func (d *IDs) KeyID(k Key) (id uint32, ok bool) {
	gen, n := k.gen(), k.num()
	if gen == d.keyGen && int(n) < len(d.byKey) {
		if e := d.byKey[n]; e.stamp != 0 && d.stamps[e.id] == e.stamp {
			return e.id, true
		}
	}
	return 0, false
}

// growKeys lengthens t to n entries (new ones empty), at least doubling
// its capacity when it moves.
func growKeys(t []keyEntry, n int) []keyEntry {
	old := len(t)
	if n > cap(t) {
		t = append(t[:cap(t)], make([]keyEntry, max(n, 2*cap(t))-cap(t))...)
	}
	t = t[:n]
	clear(t[old:])
	return t
}

// forgetKeys empties InternKey's table.
func (d *IDs) forgetKeys() {
	d.byKey = nil
	d.keyGen = 0
}

// InternBytes is Intern for a byte slice; it allocates only for new names.
func (d *IDs) InternBytes(name []byte) (uint32, bool) {
	if id, ok := d.byName[string(name)]; ok { // no allocation: compiler optimises the lookup
		return id, false
	}
	return d.Intern(string(name))
}

// Lookup returns the dense id of name, if it is live.
func (d *IDs) Lookup(name string) (uint32, bool) {
	id, ok := d.byName[name]
	return id, ok
}

// Name returns the external id of a dense id.
func (d *IDs) Name(id uint32) string { return d.names[id] }

// Release frees a dense id for reuse.
func (d *IDs) Release(id uint32) {
	delete(d.byName, d.names[id])
	d.names[id] = ""
	if d.stamps[id]++; d.stamps[id] == 0 {
		// 2^32 releases of one id: stamps would repeat, so every entry of
		// the key table goes (and 0 stays "no entry").
		d.stamps[id] = 1
		d.forgetKeys()
	}
	d.free = append(d.free, id)
	d.live--
}

// Len returns the number of live ids.
func (d *IDs) Len() int { return d.live }

// Cap returns one past the largest dense id ever handed out: the length
// arrays indexed by dense id need.
func (d *IDs) Cap() int { return len(d.names) }

// bytes bounds the heap held by the dictionary: the names (shared with
// the decoders' Keys, which count them too), the name map at its peak,
// and the arrays indexed by dense id or key.
func (d *IDs) bytes() int64 {
	var b int64
	for _, s := range d.names {
		b += stringBytes(len(s))
	}
	b += mapBytes(d.mapPeak, nameSlot) + int64(cap(d.names))*16 + int64(cap(d.free))*4
	b += int64(cap(d.byKey))*8 + int64(cap(d.stamps))*4
	return b
}

// Adopt gives the names the ids 0, 1, … of an empty dictionary (one that
// never interned a name), as interning them in that order would. The ids
// are assigned before it returns (Cap and Name see them); the name index
// that Intern, Lookup and Release use is built on another goroutine, so
// that a bulk load can fill the window meanwhile: the caller calls the
// returned function before any of those (it waits for the index) and
// drops the dictionary if it reports an error (a name given twice).
// names is kept, not copied.
func (d *IDs) Adopt(names []string) (wait func() error, err error) {
	if len(d.names) != 0 || len(d.byName) != 0 {
		return nil, fmt.Errorf("adopt %d names: the dictionary is not empty (%d ids)", len(names), len(d.names))
	}
	if len(names) > math.MaxUint32 {
		return nil, fmt.Errorf("adopt %d names: more than %d", len(names), uint32(math.MaxUint32))
	}
	d.names = names
	d.stamps = make([]uint32, len(names))
	for i := range d.stamps {
		d.stamps[i] = 1
	}
	d.live = len(names)
	done := make(chan error, 1)
	m := make(map[string]uint32, len(names))
	go func() {
		for i, s := range names {
			if _, dup := m[s]; dup {
				done <- fmt.Errorf("node id %q given twice", s)
				return
			}
			m[s] = uint32(i)
		}
		done <- nil
	}()
	var once sync.Once
	return func() error {
		once.Do(func() {
			err = <-done
			d.byName, d.mapPeak = m, len(m)
		})
		return err
	}, nil
}

package window

// IDs maps external node ids (strings) to dense uint32 ids and back.
// Dense ids are reused after Release, so arrays indexed by node id stay
// as small as the number of nodes alive at once.
type IDs struct {
	byName map[string]uint32
	names  []string
	free   []uint32
	live   int
}

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
	}
	d.byName[name] = id
	d.live++
	return id, true
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
	d.free = append(d.free, id)
	d.live--
}

// Len returns the number of live ids.
func (d *IDs) Len() int { return d.live }

// Cap returns one past the largest dense id ever handed out: the length
// arrays indexed by dense id need.
func (d *IDs) Cap() int { return len(d.names) }

// bytes estimates the heap held by the dictionary.
func (d *IDs) bytes() int64 {
	var b int64
	for _, s := range d.names {
		b += int64(len(s))
	}
	// map entry: key header (16) + value (4) + overhead (~20); names slice header 16.
	b += int64(len(d.byName))*40 + int64(cap(d.names))*16 + int64(cap(d.free))*4
	return b
}

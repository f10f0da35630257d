package window

// Strings interns attribute values of string kind. Code 0 is always the
// empty string, which is what a missing string attribute reads as.
//
// Two kinds of value live here. Pinned values (Intern: query literals,
// node labels, batch files) stay for the life of the window. Edge values
// (Code) stay while a live edge holds them: Append counts the holders and
// eviction releases a value with its last holder, so a stream of
// never-repeating values (an id in an attribute, a nonce) cannot grow the
// dictionary without bound; its code is reused.
type Strings struct {
	byValue map[string]uint32
	values  []string
	refs    []int32 // live edges holding each code; pinnedRef: never released
	free    []uint32
	// mapPeak is the most entries byValue has held (bytes).
	mapPeak int
}

const pinnedRef = -1

func newStrings() *Strings {
	return &Strings{byValue: map[string]uint32{"": 0}, values: []string{""}, refs: []int32{pinnedRef}}
}

// Intern returns the code of v, pinned: it is never released.
func (s *Strings) Intern(v string) uint32 {
	c := s.Code(v)
	s.refs[c] = pinnedRef
	return c
}

// Code returns the code of v for an edge about to be appended: the value
// stays while some live edge holds it (see the type's doc). A code taken
// for an edge that is then not appended stays until some edge with that
// value is appended and evicted.
func (s *Strings) Code(v string) uint32 {
	if c, ok := s.byValue[v]; ok {
		return c
	}
	var c uint32
	if n := len(s.free); n > 0 {
		c, s.free = s.free[n-1], s.free[:n-1]
		s.values[c], s.refs[c] = v, 0
	} else {
		c = uint32(len(s.values))
		s.values = append(s.values, v)
		s.refs = append(s.refs, 0)
	}
	s.byValue[v] = c
	s.mapPeak = max(s.mapPeak, len(s.byValue))
	return c
}

// hold counts one more live edge holding code c.
func (s *Strings) hold(c uint32) {
	if int(c) < len(s.refs) && s.refs[c] != pinnedRef {
		s.refs[c]++
	}
}

// drop counts one live edge fewer holding code c, releasing an unpinned
// value with its last holder.
func (s *Strings) drop(c uint32) {
	if int(c) >= len(s.refs) || s.refs[c] == pinnedRef || s.refs[c] == 0 {
		return
	}
	if s.refs[c]--; s.refs[c] == 0 {
		delete(s.byValue, s.values[c])
		s.values[c] = ""
		s.free = append(s.free, c)
	}
}

// Value returns the string of a code.
func (s *Strings) Value(code uint32) string { return s.values[code] }

// Len returns the number of distinct values held.
func (s *Strings) Len() int { return len(s.values) - len(s.free) }

// bytes bounds the heap the dictionary holds (see IDs.bytes).
func (s *Strings) bytes() int64 {
	var b int64
	for _, v := range s.values {
		b += stringBytes(len(v))
	}
	return b + mapBytes(s.mapPeak, nameSlot) + int64(cap(s.values))*16 + int64(cap(s.refs))*4 + int64(cap(s.free))*4
}

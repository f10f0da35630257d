package stream

import (
	"slices"
	"unsafe"
)

// edgeMeta is what the window does not keep but alerts need: where the
// edge came from, and its identity.
type edgeMeta struct {
	seq       int64
	offset    int64
	partition int32
	hasSeq    bool
}

// edgeMetas holds the edgeMeta of every window edge, by position: list[i]
// describes the edge at position off+i; the entries before the window's
// First() are evicted (compact).
type edgeMetas struct {
	list []edgeMeta
	off  int64
	// lastBatch is the last batch's appended edges (compact keeps room
	// for a batch like it).
	lastBatch int
}

// at returns the metadata of the live edge at position pos.
func (m *edgeMetas) at(pos int64) *edgeMeta { return &m.list[pos-m.off] }

// grow adds n entries for the edges about to be appended at position
// first, and returns them for the caller to fill.
func (m *edgeMetas) grow(first int64, n int) []edgeMeta {
	if len(m.list) == 0 {
		m.off = first
	}
	at := len(m.list)
	m.list = slices.Grow(m.list, n)[:at+n]
	return m.list[at:]
}

// drop removes the last n entries (edges grow made room for that did
// not go in).
func (m *edgeMetas) drop(n int) { m.list = m.list[:len(m.list)-n] }

// compact drops the metadata of evicted edges (first is the window's
// First()), amortised O(1) per edge like the window's columns: the
// evicted entries stay in front of the live ones until they are at
// least half of them all (and 1,024), then the live ones move to the
// front; the array is replaced by a smaller one only when its capacity
// is more than twice the live entries and a batch like the last.
// (Slicing the evicted entries off instead shortened the capacity by as
// much: the next batch's appends then regrew the array, a copy and an
// allocation of the whole window's metadata per batch.)
func (m *edgeMetas) compact(first int64) {
	dead := int(first - m.off)
	if dead <= 0 {
		return
	}
	live := len(m.list) - dead
	switch {
	case cap(m.list) > 2*(live+m.lastBatch)+1024:
		l := make([]edgeMeta, live, live+m.lastBatch+1024)
		copy(l, m.list[dead:])
		m.list = l
	case live == 0 || (dead >= 1024 && 2*dead >= len(m.list)):
		m.list = m.list[:copy(m.list, m.list[dead:])]
	default:
		return // the evicted entries wait in front
	}
	m.off += int64(dead)
}

// bytes is the memory the entries hold.
func (m *edgeMetas) bytes() int64 { return int64(cap(m.list)) * int64(unsafe.Sizeof(edgeMeta{})) }

package window

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
)

// ErrOutOfOrder is returned by Append for an edge older than the newest one.
var ErrOutOfOrder = errors.New("edge older than the window's newest edge")

// Edge is an edge to append. Src and Dst are dense ids from the window's
// IDs; Attrs has one value per schema edge attribute (string values as
// codes from Strings), or is nil when the schema has none.
type Edge struct {
	Src, Dst uint32
	T        int64
	Attrs    []float64
}

// Adj is one entry of a vertex's adjacency list: the edge at time T whose
// other endpoint is Other, at stream position AdjBase() + Rel (see Pos).
// Keeping T and Other inline lets the miner filter candidates without
// touching the edge columns; storing the position as a 32-bit offset
// keeps an entry at 16 bytes (24 with an int64), a third of the window's
// memory per edge.
type Adj struct {
	T     int64
	Rel   uint32
	Other uint32
}

type adjList struct {
	ents []Adj
	head int
}

func (l *adjList) live() []Adj { return l.ents[l.head:] }

// push appends a. A list that is full first moves its live entries to
// the front when the evicted ones before head are at least a quarter of
// it, or else grows to half again its live entries, copying only those:
// a node that always has live edges would otherwise grow its list by
// doubling, carrying its evicted prefix along, until popFront compacts
// it (the window's lists held three times their live entries).
// Amortised O(1) per entry either way.
func (l *adjList) push(a Adj) {
	if len(l.ents) == cap(l.ents) {
		l.room(1)
	}
	l.ents = append(l.ents, a)
}

// room makes space for k more entries, as push does for one.
func (l *adjList) room(k int) {
	if len(l.ents)+k <= cap(l.ents) {
		return
	}
	live := len(l.ents) - l.head
	if l.head > 0 && 4*l.head >= len(l.ents) {
		n := copy(l.ents, l.ents[l.head:])
		l.ents, l.head = l.ents[:n], 0
		if n+k <= cap(l.ents) {
			return
		}
	}
	need := live + k
	ents := make([]Adj, live, need+need/2+1)
	copy(ents, l.ents[l.head:])
	l.ents, l.head = ents, 0
}

// Window is a sliding window of temporal edges; see the package doc.
type Window struct {
	schema  Schema
	ids     *IDs
	strings *Strings

	// Columns. Index i holds the edge at position off+i; the first head
	// entries are evicted and await compaction.
	off   int64
	head  int
	src   []uint32
	dst   []uint32
	t     []int64
	attrs [][]float64

	out, in   []adjList
	nodeAttrs [][]float64
	// adjBase is the position that Adj.Rel counts from; it moves up to
	// First() (rewriting every live entry) when an append would take End()
	// past adjBase + maxRel.
	adjBase int64

	// pairs indexes the live edges of each ordered node pair (src<<32|dst)
	// into pairLists, so "edges u→v between two positions" is a binary
	// search: closing edges of cyclic motifs, anti-edge checks and the
	// CPU engine's count-only last step all ask exactly that. It is built
	// on the first Between or Pairs call (pairsOn, under pairsMu, so that
	// concurrent readers build it once) and maintained from then on: the
	// GPU engine never asks, and a window it mines saves the index's
	// ~40 bytes per edge.
	pairsOn   atomic.Bool
	pairsMu   sync.Mutex
	pairs     pairTable
	pairLists []adjList
	pairFree  []int32

	// workers share a large batch's appending and evicting (batch.go);
	// the eviction's scratch: a mark per node (evictGen: this eviction's),
	// the ids to release per worker and merged.
	workers   int
	evictMark []uint32
	evictGen  uint32
	evictKeys [][]uint64
	evictAll  []uint64
}

func pairKey(u, v uint32) uint64 { return uint64(u)<<32 | uint64(v) }

// New returns an empty window with the given schema.
func New(s Schema) (*Window, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	w := &Window{schema: s, ids: NewIDs(), strings: newStrings()}
	w.attrs = make([][]float64, len(s.EdgeAttrs))
	w.nodeAttrs = make([][]float64, len(s.NodeAttrs))
	return w, nil
}

// Schema returns the window's schema.
func (w *Window) Schema() *Schema { return &w.schema }

// IDs returns the node id dictionary.
func (w *Window) IDs() *IDs { return w.ids }

// Strings returns the string attribute dictionary.
func (w *Window) Strings() *Strings { return w.strings }

// First returns the position of the oldest live edge.
func (w *Window) First() int64 { return w.off + int64(w.head) }

// End returns one past the position of the newest edge: the position the
// next appended edge will get.
func (w *Window) End() int64 { return w.off + int64(len(w.t)) }

// Len returns the number of live edges.
func (w *Window) Len() int { return len(w.t) - w.head }

// Src, Dst and T read the edge at position p (First() <= p < End()).
func (w *Window) Src(p int64) uint32 { return w.src[p-w.off] }
func (w *Window) Dst(p int64) uint32 { return w.dst[p-w.off] }
func (w *Window) T(p int64) int64    { return w.t[p-w.off] }

// EdgeAttr reads edge attribute column col of the edge at position p.
func (w *Window) EdgeAttr(col int, p int64) float64 { return w.attrs[col][p-w.off] }

// NodeAttr reads node attribute column col of node v (NaN, or the code of
// "" for string columns, when unset).
func (w *Window) NodeAttr(col int, v uint32) float64 {
	c := w.nodeAttrs[col]
	if int(v) >= len(c) {
		return w.missing(w.schema.NodeAttrs[col].Kind)
	}
	return c[v]
}

func (w *Window) missing(k Kind) float64 {
	if k == String {
		return 0
	}
	return math.NaN()
}

// SetNodeAttr sets node attribute column col of node v.
func (w *Window) SetNodeAttr(col int, v uint32, val float64) {
	c := w.nodeAttrs[col]
	for int(v) >= len(c) {
		c = append(c, w.missing(w.schema.NodeAttrs[col].Kind))
	}
	c[v] = val
	w.nodeAttrs[col] = c
}

// Out returns v's live out-edges in (t, seq) order. The slice aliases the
// window: valid until the next Append or Evict, not to be modified.
func (w *Window) Out(v uint32) []Adj {
	if int(v) >= len(w.out) {
		return nil
	}
	return w.out[v].live()
}

// In returns v's live in-edges in (t, seq) order, like Out.
func (w *Window) In(v uint32) []Adj {
	if int(v) >= len(w.in) {
		return nil
	}
	return w.in[v].live()
}

// Between returns the live edges u→v in (t, seq) order, like Out.
func (w *Window) Between(u, v uint32) []Adj {
	if !w.pairsOn.Load() {
		w.IndexPairs()
	}
	i, ok := w.pairs.get(pairKey(u, v))
	if !ok {
		return nil
	}
	return w.pairLists[i].live()
}

// Pairs returns the number of distinct ordered node pairs with live edges.
func (w *Window) Pairs() int {
	if !w.pairsOn.Load() {
		w.IndexPairs()
	}
	return w.pairs.len()
}

// LastT returns the time of the newest edge, or math.MinInt64 when empty.
func (w *Window) LastT() int64 {
	if w.Len() == 0 {
		return math.MinInt64
	}
	return w.t[len(w.t)-1]
}

// AdjBase returns the position that adjacency entries' Rel counts from.
// It changes only in Append, AppendColumns and eviction's callers'
// appends, never while readers run.
func (w *Window) AdjBase() int64 { return w.adjBase }

// Pos returns the stream position of adjacency entry a.
func (w *Window) Pos(a Adj) int64 { return w.adjBase + int64(a.Rel) }

// RelPos returns position p on the scale of Adj.Rel, for comparing with
// entries: p - AdjBase(), or -1 for any p below AdjBase() (every entry is
// after it).
func (w *Window) RelPos(p int64) int64 {
	if p < w.adjBase {
		return -1
	}
	return p - w.adjBase
}

// maxRel is the largest Adj.Rel (a variable for tests).
var maxRel int64 = math.MaxUint32

// ErrTooLarge is returned by an append that would make the window span
// more than 2^32 positions.
var ErrTooLarge = errors.New("window would hold more than 2^32 edges")

// makeRelRoom moves adjBase up so that n more edges fit under maxRel.
func (w *Window) makeRelRoom(n int) error {
	end := w.End() + int64(n) - 1
	if end-w.adjBase <= maxRel {
		return nil
	}
	base := w.First()
	if end-base > maxRel {
		return fmt.Errorf("append %d edges to %d: %w", n, w.Len(), ErrTooLarge)
	}
	d := uint32(base - w.adjBase)
	shift := func(lists []adjList) {
		for i := range lists {
			live := lists[i].live()
			for j := range live {
				live[j].Rel -= d
			}
		}
	}
	shift(w.out)
	shift(w.in)
	if w.pairsOn.Load() {
		w.pairs.each(func(_ uint64, i int32) {
			live := w.pairLists[i].live()
			for j := range live {
				live[j].Rel -= d
			}
		})
	}
	w.adjBase = base
	return nil
}

// SearchTime returns the position of the first live edge with T >= t
// (End() if none).
func (w *Window) SearchTime(t int64) int64 {
	live := w.t[w.head:]
	i := sort.Search(len(live), func(i int) bool { return live[i] >= t })
	return w.First() + int64(i)
}

// Append adds e as the newest edge and returns its position. Edges must
// arrive in non-decreasing time; ties keep arrival order.
func (w *Window) Append(e Edge) (int64, error) {
	if n := len(w.t); n > w.head && e.T < w.t[n-1] {
		return 0, fmt.Errorf("append t=%d after t=%d: %w", e.T, w.t[n-1], ErrOutOfOrder)
	}
	if len(e.Attrs) != len(w.attrs) {
		return 0, fmt.Errorf("append: %d attribute values for %d columns", len(e.Attrs), len(w.attrs))
	}
	if int(e.Src) >= w.ids.Cap() || int(e.Dst) >= w.ids.Cap() {
		return 0, fmt.Errorf("append: node id %d/%d was not interned", e.Src, e.Dst)
	}
	if err := w.makeRelRoom(1); err != nil {
		return 0, err
	}
	p := w.End()
	rel := uint32(p - w.adjBase)
	w.src = append(w.src, e.Src)
	w.dst = append(w.dst, e.Dst)
	w.t = append(w.t, e.T)
	for i, v := range e.Attrs {
		w.attrs[i] = append(w.attrs[i], v)
		if w.schema.EdgeAttrs[i].Kind == String {
			w.strings.hold(uint32(v))
		}
	}
	w.grow(max(e.Src, e.Dst))
	w.out[e.Src].push(Adj{T: e.T, Rel: rel, Other: e.Dst})
	w.in[e.Dst].push(Adj{T: e.T, Rel: rel, Other: e.Src})
	if w.pairsOn.Load() {
		w.addPair(e.Src, e.Dst, e.T, rel)
	}
	return p, nil
}

// addPair adds the edge s→d at time t and relative position rel to the
// pair index.
func (w *Window) addPair(s, d uint32, t int64, rel uint32) {
	key := pairKey(s, d)
	i, ok := w.pairs.get(key)
	if !ok {
		if n := len(w.pairFree); n > 0 {
			i, w.pairFree = w.pairFree[n-1], w.pairFree[:n-1]
		} else {
			i = int32(len(w.pairLists))
			w.pairLists = append(w.pairLists, adjList{})
		}
		w.pairs.put(key, i)
	}
	w.pairLists[i].push(Adj{T: t, Rel: rel, Other: d})
}

// grow makes room for node v's adjacency lists.
func (w *Window) grow(v uint32) {
	if n := int(v) + 1; n > len(w.out) {
		w.out = growLists(w.out, n)
		w.in = growLists(w.in, n)
	}
}

// growLists lengthens lists to n empty lists, at least doubling its
// capacity when it must move (as append does).
func growLists(lists []adjList, n int) []adjList {
	old := len(lists)
	if n > cap(lists) {
		lists = slices.Grow(lists, max(n, 2*cap(lists))-old)
	}
	lists = lists[:n]
	clear(lists[old:]) // capacity past len may hold lists from before a reslice
	return lists
}

// EvictBefore removes every edge with T < t and returns how many left.
func (w *Window) EvictBefore(t int64) int {
	live := w.t[w.head:]
	return w.evict(sort.Search(len(live), func(i int) bool { return live[i] >= t }))
}

// EvictTo removes every edge with position < p and returns how many left.
func (w *Window) EvictTo(p int64) int {
	n := int(min(max(p-w.First(), 0), int64(w.Len())))
	return w.evict(n)
}

func (w *Window) evictOne() {
	s, d := w.src[w.head], w.dst[w.head]
	for i, a := range w.schema.EdgeAttrs {
		if a.Kind == String {
			w.strings.drop(uint32(w.attrs[i][w.head]))
		}
	}
	w.head++
	popFront(&w.out[s])
	popFront(&w.in[d])
	if w.pairsOn.Load() {
		w.popPair(s, d)
	}
	w.releaseIfIdle(s)
	if d != s {
		w.releaseIfIdle(d)
	}
}

// releaseIfIdle gives back the id of a node whose last edge just left.
func (w *Window) releaseIfIdle(v uint32) {
	if len(w.out[v].live()) != 0 || len(w.in[v].live()) != 0 {
		return
	}
	w.ids.Release(v)
	for _, l := range [2]*adjList{&w.out[v], &w.in[v]} {
		if cap(l.ents) > 64 {
			l.ents = nil // a former hub: give its memory back
		} else {
			l.ents = l.ents[:0]
		}
		l.head = 0
	}
	for col := range w.nodeAttrs {
		if int(v) < len(w.nodeAttrs[col]) {
			w.nodeAttrs[col][v] = w.missing(w.schema.NodeAttrs[col].Kind)
		}
	}
}

func popFront(l *adjList) {
	l.head++
	switch {
	case l.head == len(l.ents):
		l.ents, l.head = l.ents[:0], 0
	case l.head >= 4 && 2*l.head >= len(l.ents):
		n := copy(l.ents, l.ents[l.head:])
		l.ents, l.head = l.ents[:n], 0
	}
}

// compact drops evicted column entries once they are at least half the
// columns, so eviction costs amortised O(1) per edge.
func (w *Window) compact() {
	if w.head < 1024 || 4*w.head < len(w.t) {
		return
	}
	n := copy(w.src, w.src[w.head:])
	w.src = w.src[:n]
	copy(w.dst, w.dst[w.head:])
	w.dst = w.dst[:n]
	copy(w.t, w.t[w.head:])
	w.t = w.t[:n]
	for i := range w.attrs {
		copy(w.attrs[i], w.attrs[i][w.head:])
		w.attrs[i] = w.attrs[i][:n]
	}
	w.off += int64(w.head)
	w.head = 0
}

// popPair removes the oldest edge s→d from the pair index.
func (w *Window) popPair(s, d uint32) {
	key := pairKey(s, d)
	i, _ := w.pairs.get(key)
	popFront(&w.pairLists[i])
	if len(w.pairLists[i].live()) == 0 {
		w.pairs.del(key)
		if cap(w.pairLists[i].ents) > 64 {
			w.pairLists[i].ents = nil
		}
		w.pairFree = append(w.pairFree, i)
	}
}

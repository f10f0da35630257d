package gpm

import (
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/motifwatch/motifwatch/internal/bincache"
	"github.com/motifwatch/motifwatch/internal/textfile"
)

// The graph cache keeps the CSR that LoadFile built from an edge file, so
// that loading the same file again reads two arrays instead of parsing
// text, merging ids and deduplicating edges. One cache file per input
// path lives in the cache directory, "<base>.<hash of the path>.mwg"
// (beside ingest's ".mwc" edge caches, which hold another thing).
//
// Frame and key are bincache's (magic "MWGRAPH\n"); the header holds the
// key, the LoadStats, the vertex names in id order and the array lengths;
// the body is the offsets ([]i64, N+1) then the neighbour lists ([]u32).
// A cache is used only when its key matches the input exactly, its
// lengths and checksum are right and its arrays make a valid CSR
// (offsets ascending from 0, every list strictly ascending, in range,
// without self-loops); anything else is rebuilt from the text.
const (
	graphMagic   = "MWGRAPH\n"
	graphVersion = 1
)

// graphCache is the cache of one input file.
type graphCache struct {
	path string
	key  bincache.Key
	why  error // why the cache file could not be used, once read failed
}

// openCache returns the cache of the input f (at inputPath) in dir.
func openCache(dir, inputPath string, f *textfile.File) (*graphCache, error) {
	path, err := bincache.Path(dir, inputPath, ".mwg")
	if err != nil {
		return nil, err
	}
	key, err := bincache.KeyOf(f, f.Info)
	if err != nil {
		return nil, err
	}
	return &graphCache{path: path, key: key}, nil
}

// errInputChanged says a cache was built from another input (not damage).
var errInputChanged = errors.New("input changed")

// read loads the graph and the stats of its parse; any error means the
// cache cannot be used (fs.ErrNotExist: there is none yet).
func (c *graphCache) read() (*Graph, LoadStats, error) {
	var st LoadStats
	cr, err := bincache.Open(c.path, graphMagic, graphVersion)
	if err != nil {
		return nil, st, err
	}
	defer cr.Close()
	d := &bincache.Decoder{B: cr.Header}
	if key := bincache.DecodeKey(d); d.Err == nil && key != c.key {
		return nil, st, errInputChanged
	}
	st.Lines, st.EdgeLines, st.SelfLoops, st.Duplicates = d.I64(), d.I64(), d.I64(), d.I64()
	st.Header, st.HeaderV, st.HeaderE = d.Bool(), d.I64(), d.I64()
	names := d.Strs()
	nadj := d.I64()
	if err := d.Done(); err != nil {
		return nil, st, fmt.Errorf("header: %w", err)
	}
	n := int64(len(names))
	if want := 8*(n+1) + 4*nadj; nadj < 0 || cr.BodySize() != want {
		return nil, st, fmt.Errorf("body of %d bytes, want %d for %d vertices and %d list entries", cr.BodySize(), want, n, nadj)
	}
	g := &Graph{off: make([]int64, n+1), adj: make([]uint32, nadj), names: names}
	for _, b := range [][]byte{bincache.AsBytes(g.off), bincache.AsBytes(g.adj)} {
		if err := cr.ReadFull(b); err != nil {
			return nil, st, err
		}
	}
	if err := cr.Verify(); err != nil {
		return nil, st, err
	}
	if err := g.check(); err != nil {
		return nil, st, err
	}
	return g, st, nil
}

// check verifies that g's arrays form a CSR the engines can index without
// fault, and sets its maximum degree.
func (g *Graph) check() error {
	n := g.N()
	if g.off[0] != 0 || g.off[n] != int64(len(g.adj)) {
		return fmt.Errorf("offsets span [%d, %d), want [0, %d)", g.off[0], g.off[n], len(g.adj))
	}
	for v := range n {
		if g.off[v+1] < g.off[v] {
			return fmt.Errorf("offsets of vertex %d descend", v)
		}
		list := g.Neighbors(uint32(v))
		for i, u := range list {
			if int(u) >= n || u == uint32(v) || i > 0 && u <= list[i-1] {
				return fmt.Errorf("neighbour list of vertex %d is not ascending in range without itself", v)
			}
		}
		g.maxDeg = max(g.maxDeg, len(list))
	}
	return nil
}

// write stores g and the stats of its parse. It returns how the cache
// served the load, for LoadStats.Cache.
func (c *graphCache) write(g *Graph, st LoadStats) string {
	e := &bincache.Encoder{}
	c.key.Encode(e)
	for _, v := range []int64{st.Lines, st.EdgeLines, st.SelfLoops, st.Duplicates} {
		e.I64(v)
	}
	e.Bool(st.Header)
	e.I64(st.HeaderV)
	e.I64(st.HeaderE)
	e.Strs(g.names)
	e.I64(int64(len(g.adj)))
	err := bincache.Write(c.path, graphMagic, graphVersion, e.B, func(w io.Writer) error {
		for _, b := range [][]byte{bincache.AsBytes(g.off), bincache.AsBytes(g.adj)} {
			if _, err := w.Write(b); err != nil {
				return err
			}
		}
		return nil
	})
	switch {
	case err != nil:
		return "not written: " + err.Error()
	case c.why != nil && !errors.Is(c.why, fs.ErrNotExist):
		return "rebuilt (" + c.why.Error() + ")"
	}
	return "written"
}

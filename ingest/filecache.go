package ingest

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/motifwatch/motifwatch/internal/bincache"
	"github.com/motifwatch/motifwatch/window"
)

// The edge cache keeps the parsed, time-ordered edges of a file in binary
// form, so that loading the same file again reads columns instead of
// parsing text. One cache file per input path (and self-loop option)
// lives in the cache directory, named "<base>.<hash of the path>.mwc".
//
// Layout (little-endian):
//
//	magic "MWEDGES\n", format version u32, header length u32, header
//	(the key: input size, mtime, SHA-256 of its first and last 1 MiB,
//	self-loop option; stats; attribute names and kinds; bad-line
//	samples; node ids and string values in code order),
//	columns src []u32, dst []u32, t []i64, then each attribute []f64,
//	CRC-32C of everything before it (u32).
//
// A cache is used only when its key matches the input exactly and its
// size and checksum are right; anything else (another version, a
// truncated or corrupted file, a changed input) is rebuilt from the text.
// It is written to a temporary file and renamed into place, so readers
// never see a half-written one.

const (
	cacheMagic   = "MWEDGES\n"
	cacheVersion = 1
)

// cacheKey identifies the input a cache was built from.
type cacheKey struct {
	bincache.Key
	keepSelfLoops bool
}

// edgeCache is the cache of one input file.
type edgeCache struct {
	path string // the cache file
	key  cacheKey
}

// openCache returns the cache of the input f (at inputPath) in dir.
func openCache(dir, inputPath string, f *os.File, fi os.FileInfo, opts *FileOptions) (*edgeCache, error) {
	suffix := ".mwc"
	if opts.KeepSelfLoops {
		suffix = ".loops.mwc"
	}
	path, err := bincache.Path(dir, inputPath, suffix)
	if err != nil {
		return nil, err
	}
	key, err := bincache.KeyOf(f, fi)
	if err != nil {
		return nil, err
	}
	return &edgeCache{path: path, key: cacheKey{Key: key, keepSelfLoops: opts.KeepSelfLoops}}, nil
}

// cached is what a cache file holds besides the columns.
type cached struct {
	st    FileStats
	names []string
	kinds []window.Kind
	ids   []string
	strs  []string // codes 1.. (code 0 is always "")
	cols  window.Columns
}

// errCacheKey says a cache was built from another input (not damage).
var errCacheKey = errors.New("input changed")

// read loads the cache file; any error means it cannot be used.
func (c *edgeCache) read() (*cached, error) {
	cr, err := bincache.Open(c.path, cacheMagic, cacheVersion)
	if err != nil {
		return nil, err
	}
	defer cr.Close()
	d := &bincache.Decoder{B: cr.Header}
	key := cacheKey{Key: bincache.DecodeKey(d), keepSelfLoops: d.Bool()}
	if d.Err == nil && key != c.key {
		return nil, errCacheKey
	}
	cc := &cached{}
	st := &cc.st
	st.Lines, st.Comments, st.Headers, st.SelfLoops, st.Bad, st.Bytes = d.I64(), d.I64(), d.I64(), d.I64(), d.I64(), d.I64()
	for range d.Count() {
		line, reason := int(d.I64()), d.Str()
		st.BadSamples = append(st.BadSamples, &LineError{Line: line, Reason: reason})
	}
	st.EmptyValues, st.LargestT, st.LargestTLine = d.I64(), d.I64(), int(d.I64())
	if d.Bool() {
		line, reason := int(d.I64()), d.Str()
		st.FirstEmpty = &LineError{Line: line, Reason: reason}
	}
	for range d.Count() {
		cc.kinds = append(cc.kinds, window.Kind(d.U32()))
		cc.names = append(cc.names, d.Str())
	}
	cc.ids = d.Strs()
	cc.strs = d.Strs()
	n := d.I64()
	if err := d.Done(); err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	if want := n * (16 + 8*int64(len(cc.names))); n < 0 || cr.BodySize() != want {
		return nil, fmt.Errorf("body of %d bytes, want %d for %d edges", cr.BodySize(), want, n)
	}
	cc.cols = window.Columns{Src: make([]uint32, n), Dst: make([]uint32, n), T: make([]int64, n)}
	// Columns go straight from the file into their slices (the bufio
	// reader only passes through what it has buffered).
	for _, b := range [][]byte{bincache.AsBytes(cc.cols.Src), bincache.AsBytes(cc.cols.Dst), bincache.AsBytes(cc.cols.T)} {
		if err := cr.ReadFull(b); err != nil {
			return nil, err
		}
	}
	for range cc.names {
		col := make([]float64, n)
		if err := cr.ReadFull(bincache.AsBytes(col)); err != nil {
			return nil, err
		}
		cc.cols.Attrs = append(cc.cols.Attrs, col)
	}
	if err := cr.Verify(); err != nil {
		return nil, err
	}
	return cc, nil
}

// build turns a read cache into a window; a cache whose contents the
// window refuses (ids out of range, times out of order) is damaged.
func (cc *cached) build(opts *FileOptions, nodes *nodeTable) (*window.Window, error) {
	s := window.Schema{TimeUnit: opts.TimeUnit}
	for i, name := range cc.names {
		if cc.kinds[i] > window.String {
			return nil, fmt.Errorf("attribute %q has kind %d", name, cc.kinds[i])
		}
		s.EdgeAttrs = append(s.EdgeAttrs, window.Attr{Name: name, Kind: cc.kinds[i]})
	}
	if nodes != nil {
		s.NodeAttrs = nodes.attrs
	}
	w, err := window.New(s)
	if err != nil {
		return nil, err
	}
	// The ids at once; their name index (which finds a repeated id) is
	// built while the adjacency fills.
	indexed, err := w.IDs().Adopt(cc.ids)
	if err != nil {
		return nil, err
	}
	for i, v := range cc.strs {
		if c := w.Strings().Intern(v); int(c) != i+1 {
			return nil, fmt.Errorf("string value %q repeated", v)
		}
	}
	for a, k := range cc.kinds {
		if k != window.String {
			continue
		}
		for _, v := range cc.cols.Attrs[a] {
			if v < 0 || v > float64(len(cc.strs)) || v != float64(int(v)) {
				return nil, fmt.Errorf("string code %v out of range", v)
			}
		}
	}
	_, err = w.AppendColumns(cc.cols, opts.Workers)
	if ierr := indexed(); err == nil {
		err = ierr
	}
	if err != nil {
		return nil, err
	}
	return w, nil
}

// write stores w (just loaded, before node attributes) and st.
func (c *edgeCache) write(w *window.Window, st *FileStats) error {
	header, err := encodeHeader(c.key, w, st)
	if err != nil {
		return err
	}
	return bincache.Write(c.path, cacheMagic, cacheVersion, header, func(bw io.Writer) error {
		src, dst, ts := w.Columns(w.First(), w.End())
		cols := [][]byte{bincache.AsBytes(src), bincache.AsBytes(dst), bincache.AsBytes(ts)}
		for col := range w.Schema().EdgeAttrs {
			cols = append(cols, bincache.AsBytes(w.EdgeAttrColumn(col, w.First(), w.End())))
		}
		for _, b := range cols {
			if _, err := bw.Write(b); err != nil {
				return err
			}
		}
		return nil
	})
}

func encodeHeader(key cacheKey, w *window.Window, st *FileStats) ([]byte, error) {
	e := &bincache.Encoder{}
	key.Encode(e)
	e.Bool(key.keepSelfLoops)
	for _, v := range []int64{st.Lines, st.Comments, st.Headers, st.SelfLoops, st.Bad, st.Bytes} {
		e.I64(v)
	}
	e.U32(uint32(len(st.BadSamples)))
	for _, err := range st.BadSamples {
		var le *LineError
		if !errors.As(err, &le) {
			return nil, fmt.Errorf("bad-line sample %v is not a line error", err)
		}
		e.I64(int64(le.Line))
		e.Str(le.Reason)
	}
	e.I64(st.EmptyValues)
	e.I64(st.LargestT)
	e.I64(int64(st.LargestTLine))
	e.Bool(st.FirstEmpty != nil)
	if st.FirstEmpty != nil {
		e.I64(int64(st.FirstEmpty.Line))
		e.Str(st.FirstEmpty.Reason)
	}
	attrs := w.Schema().EdgeAttrs
	e.U32(uint32(len(attrs)))
	for _, a := range attrs {
		e.U32(uint32(a.Kind))
		e.Str(a.Name)
	}
	e.U32(uint32(w.IDs().Cap()))
	for id := range uint32(w.IDs().Cap()) {
		e.Str(w.IDs().Name(id))
	}
	e.U32(uint32(w.Strings().Len() - 1))
	for code := uint32(1); code < uint32(w.Strings().Len()); code++ {
		e.Str(w.Strings().Value(code))
	}
	e.I64(int64(w.Len()))
	return e.B, nil
}

// fromCache loads the window from the cache, or says why it cannot be
// used (fs.ErrNotExist when there is none yet). A cache that counted
// malformed lines serves only loads that skip them: otherwise the text
// is parsed again to stop at the first.
func fromCache(c *edgeCache, name string, opts *FileOptions, nodes *nodeTable) (*window.Window, FileStats, error) {
	cc, err := c.read()
	if err != nil {
		return nil, FileStats{}, err
	}
	if cc.st.Bad > 0 && !opts.SkipBad {
		return nil, FileStats{}, errors.New("it skipped malformed lines")
	}
	w, err := cc.build(opts, nodes)
	if err != nil {
		return nil, FileStats{}, err
	}
	for _, e := range cc.st.BadSamples {
		e.(*LineError).File = name
	}
	if cc.st.FirstEmpty != nil {
		cc.st.FirstEmpty.File = name
	}
	cc.st.Edges = int64(w.Len())
	return w, cc.st, nil
}

// DefaultCacheMin is the input size from which the CLI caches by default:
// smaller files parse in well under a second.
const DefaultCacheMin = 32 << 20

// DefaultCacheDir is where the CLI keeps edge caches unless told
// otherwise: motifwatch/edges under the user's cache directory
// ($XDG_CACHE_HOME or ~/.cache on Linux), or "" when there is none.
func DefaultCacheDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "motifwatch", "edges")
}

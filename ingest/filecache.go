package ingest

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"unsafe"

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
	// cacheHashSpan is how much of the input's head and tail the key hashes.
	cacheHashSpan = 1 << 20
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// cacheKey identifies the input a cache was built from.
type cacheKey struct {
	size, mtime   int64
	headTail      [32]byte
	keepSelfLoops bool
}

// edgeCache is the cache of one input file.
type edgeCache struct {
	path string // the cache file
	key  cacheKey
}

// openCache returns the cache of the input f (at inputPath) in dir.
func openCache(dir, inputPath string, f *os.File, fi os.FileInfo, opts *FileOptions) (*edgeCache, error) {
	abs, err := filepath.Abs(inputPath)
	if err != nil {
		return nil, err
	}
	id := sha256.Sum256([]byte(abs))
	name := fmt.Sprintf("%s.%s", filepath.Base(abs), hex.EncodeToString(id[:8]))
	if opts.KeepSelfLoops {
		name += ".loops"
	}
	c := &edgeCache{path: filepath.Join(dir, name+".mwc")}
	c.key = cacheKey{size: fi.Size(), mtime: fi.ModTime().UnixNano(), keepSelfLoops: opts.KeepSelfLoops}
	h := sha256.New()
	size := fi.Size()
	headLen := min(cacheHashSpan, size)
	tailAt := max(size-cacheHashSpan, headLen)
	for _, span := range [2][2]int64{{0, headLen}, {tailAt, size}} {
		if _, err := io.Copy(h, io.NewSectionReader(f, span[0], span[1]-span[0])); err != nil {
			return nil, err
		}
	}
	copy(c.key.headTail[:], h.Sum(nil))
	return c, nil
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
	f, err := os.Open(c.path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	crc := crc32.New(castagnoli)
	r := io.TeeReader(bufio.NewReaderSize(f, 1<<16), crc)
	var pre [16]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	if string(pre[:8]) != cacheMagic {
		return nil, errors.New("not an edge cache")
	}
	if v := binary.LittleEndian.Uint32(pre[8:]); v != cacheVersion {
		return nil, fmt.Errorf("format version %d, want %d", v, cacheVersion)
	}
	hlen := int64(binary.LittleEndian.Uint32(pre[12:]))
	if hlen > fi.Size() {
		return nil, errors.New("truncated header")
	}
	head := make([]byte, hlen)
	if _, err := io.ReadFull(r, head); err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	d := &decoder{b: head}
	var key cacheKey
	key.size, key.mtime = d.i64(), d.i64()
	copy(key.headTail[:], d.bytes(32))
	key.keepSelfLoops = d.u32() == 1
	if d.err == nil && key != c.key {
		return nil, errCacheKey
	}
	cc := &cached{}
	st := &cc.st
	st.Lines, st.Comments, st.Headers, st.SelfLoops, st.Bad, st.Bytes = d.i64(), d.i64(), d.i64(), d.i64(), d.i64(), d.i64()
	for range d.count() {
		line, reason := int(d.i64()), d.str()
		st.BadSamples = append(st.BadSamples, &LineError{Line: line, Reason: reason})
	}
	st.EmptyValues, st.LargestT, st.LargestTLine = d.i64(), d.i64(), int(d.i64())
	if d.u32() == 1 {
		line, reason := int(d.i64()), d.str()
		st.FirstEmpty = &LineError{Line: line, Reason: reason}
	}
	for range d.count() {
		cc.kinds = append(cc.kinds, window.Kind(d.u32()))
		cc.names = append(cc.names, d.str())
	}
	cc.ids = d.strs()
	cc.strs = d.strs()
	n := d.i64()
	if d.err != nil {
		return nil, fmt.Errorf("header: %w", d.err)
	}
	if d.off != len(d.b) {
		return nil, errors.New("header has trailing bytes")
	}
	want := 16 + hlen + n*(16+8*int64(len(cc.names))) + 4
	if n < 0 || fi.Size() != want {
		return nil, fmt.Errorf("%d bytes, want %d for %d edges", fi.Size(), want, n)
	}
	cc.cols = window.Columns{Src: make([]uint32, n), Dst: make([]uint32, n), T: make([]int64, n)}
	// Columns go straight from the file into their slices (the bufio
	// reader only passes through what it has buffered).
	for _, b := range [][]byte{asBytes(cc.cols.Src), asBytes(cc.cols.Dst), asBytes(cc.cols.T)} {
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, err
		}
	}
	for range cc.names {
		col := make([]float64, n)
		if _, err := io.ReadFull(r, asBytes(col)); err != nil {
			return nil, err
		}
		cc.cols.Attrs = append(cc.cols.Attrs, col)
	}
	sum := crc.Sum32()
	var tail [4]byte
	if _, err := io.ReadFull(r, tail[:]); err != nil {
		return nil, err
	}
	if binary.LittleEndian.Uint32(tail[:]) != sum {
		return nil, errors.New("checksum mismatch")
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
	for i, name := range cc.ids {
		if id, _ := w.IDs().Intern(name); int(id) != i {
			return nil, fmt.Errorf("node id %q repeated", name)
		}
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
	if _, err := w.AppendColumns(cc.cols, opts.Workers); err != nil {
		return nil, err
	}
	return w, nil
}

// write stores w (just loaded, before node attributes) and st.
func (c *edgeCache) write(w *window.Window, st *FileStats) error {
	if err := os.MkdirAll(filepath.Dir(c.path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(c.path), filepath.Base(c.path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after the rename, a no-op
	crc := crc32.New(castagnoli)
	bw := bufio.NewWriterSize(io.MultiWriter(tmp, crc), 1<<20)
	err = encodeCache(bw, crc, c.key, w, st)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), c.path)
}

func encodeCache(bw *bufio.Writer, crc hash.Hash32, key cacheKey, w *window.Window, st *FileStats) error {
	e := &encoder{}
	e.i64(key.size)
	e.i64(key.mtime)
	e.b = append(e.b, key.headTail[:]...)
	e.bool(key.keepSelfLoops)
	for _, v := range []int64{st.Lines, st.Comments, st.Headers, st.SelfLoops, st.Bad, st.Bytes} {
		e.i64(v)
	}
	e.u32(uint32(len(st.BadSamples)))
	for _, err := range st.BadSamples {
		var le *LineError
		if !errors.As(err, &le) {
			return fmt.Errorf("bad-line sample %v is not a line error", err)
		}
		e.i64(int64(le.Line))
		e.str(le.Reason)
	}
	e.i64(st.EmptyValues)
	e.i64(st.LargestT)
	e.i64(int64(st.LargestTLine))
	e.bool(st.FirstEmpty != nil)
	if st.FirstEmpty != nil {
		e.i64(int64(st.FirstEmpty.Line))
		e.str(st.FirstEmpty.Reason)
	}
	attrs := w.Schema().EdgeAttrs
	e.u32(uint32(len(attrs)))
	for _, a := range attrs {
		e.u32(uint32(a.Kind))
		e.str(a.Name)
	}
	e.u32(uint32(w.IDs().Cap()))
	for id := range uint32(w.IDs().Cap()) {
		e.str(w.IDs().Name(id))
	}
	e.u32(uint32(w.Strings().Len() - 1))
	for code := uint32(1); code < uint32(w.Strings().Len()); code++ {
		e.str(w.Strings().Value(code))
	}
	e.i64(int64(w.Len()))
	var pre [16]byte
	copy(pre[:], cacheMagic)
	binary.LittleEndian.PutUint32(pre[8:], cacheVersion)
	binary.LittleEndian.PutUint32(pre[12:], uint32(len(e.b)))
	bw.Write(pre[:])
	bw.Write(e.b)
	src, dst, ts := w.Columns(w.First(), w.End())
	bw.Write(asBytes(src))
	bw.Write(asBytes(dst))
	bw.Write(asBytes(ts))
	for col := range attrs {
		bw.Write(asBytes(w.EdgeAttrColumn(col, w.First(), w.End())))
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	var sum [4]byte
	binary.LittleEndian.PutUint32(sum[:], crc.Sum32())
	bw.Write(sum[:])
	return bw.Flush()
}

// asBytes views a slice of fixed-size numbers as its bytes. The cache
// stores them little-endian; littleEndian below refuses other hosts.
func asBytes[T uint32 | int64 | float64](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(s[0])))
}

// littleEndian reports whether the host stores numbers as the cache does.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

type encoder struct{ b []byte }

func (e *encoder) u32(v uint32) { e.b = binary.LittleEndian.AppendUint32(e.b, v) }
func (e *encoder) i64(v int64)  { e.b = binary.LittleEndian.AppendUint64(e.b, uint64(v)) }
func (e *encoder) bool(v bool) {
	if v {
		e.u32(1)
	} else {
		e.u32(0)
	}
}
func (e *encoder) str(s string) { e.u32(uint32(len(s))); e.b = append(e.b, s...) }

// decoder reads what encoder wrote; the first overrun sets err and every
// later read returns zeros.
type decoder struct {
	b   []byte
	off int
	err error
}

func (d *decoder) bytes(n int) []byte {
	if d.err != nil || n < 0 || n > len(d.b)-d.off {
		if d.err == nil {
			d.err = io.ErrUnexpectedEOF
		}
		return make([]byte, max(n, 0))
	}
	b := d.b[d.off : d.off+n]
	d.off += n
	return b
}

func (d *decoder) u32() uint32 { return binary.LittleEndian.Uint32(d.bytes(4)) }
func (d *decoder) i64() int64  { return int64(binary.LittleEndian.Uint64(d.bytes(8))) }
func (d *decoder) str() string { return string(d.bytes(int(d.u32()))) }

// count reads a length that must fit in what is left (each entry takes at
// least 4 bytes), so a damaged one cannot make the reader loop for long.
func (d *decoder) count() int {
	n := int(d.u32())
	if n > (len(d.b)-d.off)/4 {
		if d.err == nil {
			d.err = fmt.Errorf("count %d past the header's end", n)
		}
		return 0
	}
	return n
}

// strs reads a counted list of strings, sharing one allocation.
func (d *decoder) strs() []string {
	n := d.count()
	start := d.off
	lens := make([]int, n)
	for i := range n {
		lens[i] = int(d.u32())
		d.bytes(lens[i])
	}
	if d.err != nil {
		return nil
	}
	var all bytes.Buffer
	all.Grow(d.off - start - 4*n)
	d2 := &decoder{b: d.b[start:d.off]}
	for range n {
		all.Write(d2.bytes(int(d2.u32())))
	}
	s := all.String()
	out := make([]string, n)
	at := 0
	for i, l := range lens {
		out[i] = s[at : at+l]
		at += l
	}
	return out
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

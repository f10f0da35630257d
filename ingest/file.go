package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"runtime"
	"runtime/trace"
	"sync"
	"time"

	"github.com/motifwatch/motifwatch/internal/bincache"
	"github.com/motifwatch/motifwatch/internal/textfile"
	"github.com/motifwatch/motifwatch/window"
)

// ErrMalformed is wrapped by every LineError, so callers can test for a
// bad input line with errors.Is.
var ErrMalformed = errors.New("malformed line")

// LineError reports a malformed line of an input file. Its text is
// "file:line: reason", e.g. `edges.txt:57: timestamp "12x" is not an integer`.
type LineError struct {
	File   string
	Line   int
	Reason string
}

func (e *LineError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Reason) }

// Unwrap returns ErrMalformed.
func (e *LineError) Unwrap() error { return ErrMalformed }

// FileOptions controls LoadFile and Load. The zero value loads a SNAP file
// with second timestamps, drops self-loops and stops at the first bad line.
type FileOptions struct {
	// TimeUnit is the duration of one timestamp tick (default 1s).
	TimeUnit time.Duration
	// KeepSelfLoops keeps edges with src == dst (no motif matches them).
	KeepSelfLoops bool
	// SkipBad counts malformed lines and goes on instead of stopping at the
	// first. A broken header stops loading either way.
	SkipBad bool
	// NodeFile names an optional node attribute file, read before the
	// edges: a header line ("id label risk ..."), then one line per node.
	// A column named "label" is the node label and always a string.
	NodeFile string
	// Progress, if set, is called with the number of lines read so far
	// every 2^20 lines, and once at the end (never concurrently).
	Progress func(lines int64)
	// CacheDir, when set, keeps a binary copy of each loaded file's edges
	// there (LoadFile only; see filecache.go), used instead of parsing
	// while the file is unchanged, for files of at least CacheMin bytes
	// (a compressed file counts four times its size: textfile.File.CacheSize).
	CacheDir string
	CacheMin int64
	// Workers is how many goroutines parse a file and build the window
	// (0: one per CPU). LoadFile splits a file of more than a few MiB into
	// that many chunks at line boundaries; Load reads its reader in one.
	Workers int
}

// FileStats counts what loading saw. Lines, Comments, Headers, Bad,
// BadSamples and Bytes cover the node file too.
type FileStats struct {
	Lines     int64 // lines read, header and comments included
	Edges     int64 // edges in the window
	Comments  int64 // comment and blank lines
	Headers   int64 // header lines
	SelfLoops int64 // self-loops seen (dropped unless KeepSelfLoops)
	Bad       int64 // malformed lines
	// BadSamples holds the first 10 malformed lines' errors (*LineError).
	BadSamples []error
	Bytes      int64 // bytes read

	// Cache says how the edge cache served this load: "" (off), "hit",
	// "written", or why it was rebuilt or not written.
	Cache string

	Nodes         int64 // node file records applied to the window
	NodesUnlinked int64 // node file records whose id has no edge (ignored)

	// EmptyValues counts empty attribute fields of edge lines ("a,b,10,,EUR")
	// and node file lines: the attribute is missing on that edge or node (a
	// number reads as NaN, a string as ""). FirstEmpty locates the first.
	EmptyValues int64
	FirstEmpty  *LineError

	// LargestT is the timestamp of largest magnitude among the edges, and
	// LargestTLine its line: SuspectTimeUnit reads them.
	LargestT     int64
	LargestTLine int
}

// LoadFile loads a temporal edge file into a new window; see Load.
func LoadFile(path string, opts FileOptions) (*window.Window, FileStats, error) {
	f, err := textfile.Open(path)
	if err != nil {
		return nil, FileStats{}, err
	}
	defer f.Close()
	if !f.Regular() {
		return load(f, nil, path, opts, 0, 0, nil)
	}
	var cache *edgeCache
	if opts.CacheDir != "" && f.CacheSize() >= opts.CacheMin && bincache.LittleEndian {
		if cache, err = openCache(opts.CacheDir, path, f.File, f.Info, &opts); err != nil {
			return nil, FileStats{}, fmt.Errorf("reading %s: %w", path, err)
		}
	}
	var ra io.ReaderAt
	if f.Size > 0 { // not compressed: chunks in parallel
		ra = f
	}
	return load(f, ra, path, opts, f.Size, f.CacheSize(), cache)
}

// Load reads temporal edges from r, a file called name in errors, into a
// new window.
//
// Each data line is "src dst t [attr...]". Fields are separated by a run
// of whitespace or by one comma with optional whitespace around it, so
// "a b 1", "a,b,1" and "a, b\t1" are the same and "a,,1" has an empty
// second field. src and dst are non-empty strings, interned through the
// window's IDs; t is a base-10 int64. Lines starting with '#' or '%' and
// blank lines are skipped. The first other line is a header when its third
// field does not start like a number: it names the columns, the first three
// being src, dst and time under any names and the rest edge attributes.
// Without a header, extra columns are attributes named c4, c5, … (their
// 1-based column number). Every line has as many fields as the header, or
// as the first data line.
//
// An attribute column is a window.Number when its value on the first data
// line parses as a float64, else a window.String (an empty first value
// makes a string column). Later values of a number column must parse, or
// be empty (NaN); string values are interned in the window's Strings.
//
// Self-loops are dropped unless opts.KeepSelfLoops. A malformed line stops
// loading with a *LineError (wrapping ErrMalformed) unless opts.SkipBad.
// Edges enter the window in (t, line) order: a file out of time order is
// sorted, and equal timestamps keep file order.
//
// With opts.NodeFile, that file is read first (malformed lines are handled
// the same way) and its columns become the window's node attributes; the
// values are set on the nodes that have edges, and nodes without edges are
// only counted (FileStats.NodesUnlinked).
//
// On error the window is nil and the stats count what was read.
func Load(r io.Reader, name string, opts FileOptions) (*window.Window, FileStats, error) {
	return load(r, nil, name, opts, 0, 0, nil)
}

// load is Load with, for a regular file, ra to read chunks of it in
// parallel and its size in bytes; for a compressed one (no ra), textSize
// estimates its text's bytes (0: unknown).
//
// The head of the input is read first, up to the first data line, which
// fixes the columns (header, count, attribute kinds) for every later
// line. The rest is cut into chunks at line boundaries, parsed in
// parallel into local columns (parts), and merged in file order: node ids
// (the parts' dictionaries merged in parallel shards) and string values
// are numbered in the order of their first appearance, so dense ids,
// codes and the (t, line) order of the window are those of one pass over
// the file.
func load(r io.Reader, ra io.ReaderAt, name string, opts FileOptions, size, textSize int64, cache *edgeCache) (*window.Window, FileStats, error) {
	var st FileStats
	if opts.TimeUnit == 0 {
		opts.TimeUnit = time.Second
	}
	if opts.TimeUnit < 0 {
		return nil, st, fmt.Errorf("loading %s: time unit %v must be positive", name, opts.TimeUnit)
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	prog := newProgress(opts.Progress)
	defer func() { prog.final(st.Lines) }()
	var nodes *nodeTable
	if opts.NodeFile != "" {
		var err error
		nodeOpts := opts
		nodeOpts.Progress = prog.step
		if nodes, err = readNodeFile(opts.NodeFile, &nodeOpts, &st); err != nil {
			return nil, st, err
		}
	}
	var rebuilt string
	if cache != nil {
		w, cst, err := fromCache(cache, name, &opts, nodes)
		if err == nil {
			st = addStats(st, cst)
			st.Cache = "hit"
			if nodes != nil {
				nodes.apply(w, &st)
			}
			return w, st, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			rebuilt = err.Error()
		}
	}
	fm := &format{keepSelfLoops: opts.KeepSelfLoops}
	parse := trace.StartRegion(context.Background(), "load: parse")
	var parts []*part
	if ra == nil && opts.Workers > 1 && textSize >= 2*minChunk {
		var err error
		if parts, err = streamParts(r, name, &opts, fm, prog, textSize); err != nil {
			return nil, st, err
		}
	} else {
		head := newPart(newScanner(r, name, &opts, nil), fm, size)
		head.sc.progress = prog.step
		parallel := ra != nil && size > 0 && opts.Workers > 1 && size >= 2*minChunk
		head.run(parallel)
		parts = []*part{head}
		if parallel && head.err == nil && head.stopped {
			chunks, err := textfile.Chunks(ra, head.st.Bytes, size, opts.Workers, minChunk)
			if err != nil {
				return nil, st, fmt.Errorf("reading %s: %w", name, err)
			}
			parts = append(parts, make([]*part, len(chunks))...)
			textfile.Parallel(ra, chunks, func(i int, r *io.SectionReader) {
				p := newPart(newScanner(r, name, &opts, nil), fm, r.Size())
				p.sc.progress = prog.step
				p.sc.fileStart = false
				parts[1+i] = p
				p.run(false)
			})
		}
	}
	parse.End()
	var edgeSt FileStats // the edge file's own counts, for the cache
	err := sumStats(&edgeSt, parts)
	st = addStats(st, edgeSt)
	if err != nil {
		return nil, st, err
	}
	w, err := merge(fm, parts, &opts, name, nodes)
	if err != nil {
		return nil, st, err
	}
	st.Edges = int64(w.Len())
	if cache != nil {
		switch err := cache.write(w, &edgeSt); {
		case err != nil:
			st.Cache = "not written: " + err.Error()
		case rebuilt != "":
			st.Cache = "rebuilt (" + rebuilt + ")"
		default:
			st.Cache = "written"
		}
	}
	if nodes != nil {
		nodes.apply(w, &st)
	}
	return w, st, nil
}

// minChunk is the smallest chunk worth a goroutine (a variable for tests).
var minChunk int64 = 1 << 20

// streamParts parses a stream that cannot be read at offsets (a
// decompressed file) into parts in parallel, as load does a regular file's
// chunks: the stream is cut into blocks of whole lines (about textSize /
// 2·workers bytes: textfile.BlockSize) while earlier blocks are
// parsed. Blocks are parsed one at a time until a data line has fixed the
// format, then on opts.Workers goroutines. The parts are in file order,
// so ids, order and errors are those of one pass.
func streamParts(r io.Reader, name string, opts *FileOptions, fm *format, prog *progress, textSize int64) ([]*part, error) {
	blocks := textfile.NewBlocks(r, textfile.BlockSize(textSize, opts.Workers, minChunk), readBufSize)
	var parts []*part
	parse := func(b textfile.Block, first bool) *part {
		p := newPart(newScanner(bytes.NewReader(b.Data), name, opts, nil), fm, int64(len(b.Data)))
		p.sc.progress = prog.step
		p.sc.fileStart = first
		p.run(false)
		p.st.Bytes += b.Dropped // over-long lines' middles, never read
		p.sc = nil              // let the block go
		return p
	}
	for fm.kinds == nil { // until the format is fixed, one block at a time
		b, err := blocks.Next()
		if err == io.EOF {
			return parts, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", name, err)
		}
		p := parse(b, len(parts) == 0)
		parts = append(parts, p)
		if p.err != nil {
			return parts, nil // sumStats returns it
		}
	}
	rest, err := textfile.ParseBlocks(blocks.Next, opts.Workers, func(b textfile.Block) *part { return parse(b, false) })
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	return append(parts, rest...), nil
}

// sumStats adds the parts' counts into st and returns the error of the
// first part (in file order) that stopped on one, with line numbers made
// absolute.
func sumStats(st *FileStats, parts []*part) error {
	base := 0
	for _, p := range parts {
		for _, e := range p.st.BadSamples {
			if le, ok := e.(*LineError); ok {
				le.Line += base
			}
			if len(st.BadSamples) < maxBadSamples {
				st.BadSamples = append(st.BadSamples, e)
			}
		}
		st.Lines += p.st.Lines
		st.Comments += p.st.Comments
		st.Headers += p.st.Headers
		st.SelfLoops += p.st.SelfLoops
		st.Bad += p.st.Bad
		st.Bytes += p.st.Bytes
		st.EmptyValues += p.st.EmptyValues
		if st.FirstEmpty == nil && p.st.FirstEmpty != nil {
			st.FirstEmpty = p.st.FirstEmpty
			st.FirstEmpty.Line += base
		}
		if magnitude(p.st.LargestT) > magnitude(st.LargestT) {
			st.LargestT, st.LargestTLine = p.st.LargestT, p.st.LargestTLine+base
		}
		if p.err != nil {
			if le, ok := p.err.(*LineError); ok {
				le.Line += base
			}
			return p.err
		}
		base += int(p.st.Lines)
	}
	return nil
}

// addStats returns a's counts plus b's, bad-line samples in order.
func addStats(a, b FileStats) FileStats {
	a.Lines += b.Lines
	a.Comments += b.Comments
	a.Headers += b.Headers
	a.SelfLoops += b.SelfLoops
	a.Bad += b.Bad
	a.Bytes += b.Bytes
	a.Edges += b.Edges
	a.EmptyValues += b.EmptyValues
	if a.FirstEmpty == nil {
		a.FirstEmpty = b.FirstEmpty
	}
	if magnitude(b.LargestT) > magnitude(a.LargestT) {
		a.LargestT, a.LargestTLine = b.LargestT, b.LargestTLine
	}
	for _, e := range b.BadSamples {
		if len(a.BadSamples) < maxBadSamples {
			a.BadSamples = append(a.BadSamples, e)
		}
	}
	return a
}

// magnitude is |t| without overflow at math.MinInt64.
func magnitude(t int64) uint64 {
	if t < 0 {
		return uint64(-(t + 1)) + 1
	}
	return uint64(t)
}

// SuspectTimeUnit reports whether timestamps as large as t, in ticks of
// unit, look written in a finer unit: t ticks would be more than ~30,000
// years from 1970 (13-digit milliseconds or 16-digit microseconds read as
// seconds), while a finer unit puts them within ~3,000 years. It returns
// the unit that does, as a --time-unit value ("1ms", "1µs", "1ns").
func SuspectTimeUnit(t int64, unit time.Duration) (string, bool) {
	const tooFar, plausible = 1e12, 1e11 // seconds from 1970
	secs := func(u time.Duration) float64 { return float64(magnitude(t)) * u.Seconds() }
	if unit <= 0 || secs(unit) < tooFar {
		return "", false
	}
	for _, u := range []time.Duration{time.Millisecond, time.Microsecond, time.Nanosecond} {
		if u < unit && secs(u) < plausible {
			return u.String(), true
		}
	}
	return "", false
}

// progress serialises the parts' Progress calls: each part reports every
// progressEvery of its own lines, and the caller sees the running total.
type progress struct {
	fn    func(int64)
	mu    sync.Mutex
	lines int64
}

func newProgress(fn func(int64)) *progress { return &progress{fn: fn} }

// step is a scanner's progress hook: progressEvery more lines were read.
func (p *progress) step(int64) {
	if p.fn == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lines += progressEvery
	p.fn(p.lines)
}

func (p *progress) final(lines int64) {
	if p.fn != nil {
		p.fn(lines)
	}
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

package gpm

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strconv"

	"github.com/motifwatch/motifwatch/internal/bincache"
	"github.com/motifwatch/motifwatch/internal/textfile"
)

// ErrNoEdges is returned for input that holds no edge (after dropping
// comments, the header and self-loops).
var ErrNoEdges = errors.New("no edges")

// LoadStats describes what Load read.
type LoadStats struct {
	Lines      int64 // lines read, comments included
	EdgeLines  int64 // lines that named an edge
	SelfLoops  int64 // edge lines u u, dropped
	Duplicates int64 // edge lines repeating an edge (either direction), dropped
	// Header is set when the first data line was "V E" (vertex and edge
	// counts) rather than an edge; HeaderV and HeaderE are its values.
	Header           bool
	HeaderV, HeaderE int64
	// Cache says how the graph cache served LoadFile: "" (off), "hit",
	// "written", or why it was rebuilt or not written.
	Cache string
}

// LoadOptions controls LoadFile. The zero value parses on every CPU and
// keeps no cache.
type LoadOptions struct {
	// Workers is how many goroutines parse the file and build the graph
	// (0: one per CPU). A file of a few MiB or more is cut into that many
	// chunks at line boundaries.
	Workers int
	// CacheDir, when set, keeps a binary copy of the parsed graph there
	// (cache.go), used instead of parsing while the file is unchanged, for
	// files of at least CacheMin bytes (a compressed file counts four times its
	// size: textfile.File.CacheSize).
	CacheDir string
	CacheMin int64
}

// Load is LoadFile with the zero LoadOptions.
func Load(path string) (*Graph, LoadStats, error) { return LoadFile(path, LoadOptions{}) }

// LoadFile reads an undirected edge file: one edge "u v" per line, ids
// being any tokens (integers or strings) separated by spaces, tabs or
// commas; further fields on a line (weights, timestamps) are ignored.
// Lines starting with # or % are comments. Edges are undirected:
// duplicates and reversed duplicates collapse to one edge and self-loops
// are dropped. Vertices are numbered in the order their ids first appear.
//
// A first data line of two non-negative integers "V E" is the header that
// SNAP-style and Matrix Market-like files carry, not an edge, when exactly
// E edge lines follow it (a file of just edges has no reason to start with
// a line that counts the rest) and V is at least the number of distinct
// ids they name; otherwise it is an edge, and its ids are numbered after
// all the others'. LoadStats.Header says which.
//
// Errors name the file and line and say why: "g.txt:7: want two vertex
// ids, got one field "7"".
func LoadFile(path string, opts LoadOptions) (*Graph, LoadStats, error) {
	f, err := textfile.Open(path)
	if err != nil {
		return nil, LoadStats{}, err
	}
	defer f.Close()
	var cache *graphCache
	if opts.CacheDir != "" && f.Regular() && f.CacheSize() >= opts.CacheMin && bincache.LittleEndian {
		if cache, err = openCache(opts.CacheDir, path, f); err != nil {
			return nil, LoadStats{}, fmt.Errorf("reading %s: %w", path, err)
		}
		g, st, err := cache.read()
		if err == nil {
			st.Cache = "hit"
			return g, st, nil
		}
		cache.why = err
	}
	var ra io.ReaderAt
	if f.Size > 0 { // a regular file, not compressed: chunks in parallel
		ra = f
	}
	g, st, err := read(f, ra, path, f.Size, f.CacheSize(), opts.Workers)
	if err != nil || cache == nil {
		return g, st, err
	}
	st.Cache = cache.write(g, st)
	return g, st, nil
}

// Read is Load on r, in one pass; name is used in errors.
func Read(r io.Reader, name string) (*Graph, LoadStats, error) { return read(r, nil, name, 0, 0, 1) }

// minChunk is the smallest chunk worth a goroutine (a variable for tests).
var minChunk int64 = 1 << 20

// read parses r, the input called name. With ra (r's file, of size bytes)
// the lines after the first data line are cut into chunks parsed in
// parallel, each with its own id dictionary; the dictionaries are merged
// in file order, so ids are those of one pass. Without ra, a stream of
// about textSize bytes (a compressed file's text) is cut into blocks
// parsed in parallel as it is read (streamParts).
func read(r io.Reader, ra io.ReaderAt, name string, size, textSize int64, workers int) (*Graph, LoadStats, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	parallel := ra != nil && workers > 1 && size >= 2*minChunk
	var head *part
	var parts []*part
	if ra == nil && workers > 1 && textSize >= 2*minChunk {
		var err error
		if parts, head, err = streamParts(r, name, textSize, workers); err != nil {
			return nil, LoadStats{}, err
		}
	} else {
		head = newPart(r, name, true, size)
		head.run(parallel)
		parts = []*part{head}
	}
	if parallel && head.err == nil && head.stopped {
		chunks, err := textfile.Chunks(ra, head.consumed, size, workers, minChunk)
		if err != nil {
			return nil, LoadStats{}, fmt.Errorf("reading %s: %w", name, err)
		}
		parts = append(parts, make([]*part, len(chunks))...)
		textfile.Parallel(ra, chunks, func(i int, r *io.SectionReader) {
			p := newPart(r, name, false, r.Size())
			parts[1+i] = p
			p.run(false)
		})
	}
	var st LoadStats
	var dataLines int64 // data lines after the first
	for _, p := range parts {
		if p.err != nil {
			p.err.line += st.Lines
			st.Lines += p.lines
			return nil, st, p.err
		}
		st.Lines += p.lines
		st.SelfLoops += p.selfLoops
		dataLines += p.dataLines
	}
	st.EdgeLines = dataLines
	dicts := make([]*textfile.Dict, len(parts))
	for i, p := range parts {
		dicts[i] = &p.ids
	}
	ids, names, err := textfile.Merge(dicts, workers)
	if err != nil {
		return nil, st, fmt.Errorf("%s: %w", name, err)
	}
	lists := make([][]uint64, len(parts), len(parts)+1)
	textfile.ForEach(len(parts), workers, func(i int) {
		p := parts[i]
		p.toGlobal(ids[i])
		lists[i] = p.pairs
		p.pairs, p.ids = nil, textfile.Dict{}
	})
	switch {
	case head.candidate:
		v, _ := strconv.ParseInt(string(head.header[0]), 10, 64)
		e, _ := strconv.ParseInt(string(head.header[1]), 10, 64)
		if e == dataLines && v >= int64(len(names)) {
			st.Header, st.HeaderV, st.HeaderE = true, v, e
			break
		}
		// An edge after all: its ids come after every other line's.
		st.EdgeLines++
		if len(names) >= math.MaxUint32-1 {
			return nil, st, fmt.Errorf("%s:%d: more than %d vertices", name, head.lines, uint32(math.MaxUint32))
		}
		var u, v2 uint32
		u, names = idOf(names, head.header[0])
		v2, names = idOf(names, head.header[1])
		if u == v2 {
			st.SelfLoops++
		} else {
			lists = append(lists, []uint64{uint64(u)<<32 | uint64(v2)})
		}
	case head.firstEdge:
		st.EdgeLines++
	}
	pairs := int64(0)
	for _, l := range lists {
		pairs += int64(len(l))
	}
	if pairs == 0 {
		return nil, st, fmt.Errorf("%s: %w (%d lines, %d self-loops)", name, ErrNoEdges, st.Lines, st.SelfLoops)
	}
	g := fromPairs(len(names), lists, names, workers)
	st.Duplicates = pairs - g.M()
	return g, st, nil
}

// maxLine is the longest line the scanner takes (bufio.Scanner's limit,
// newPart): a stream's blocks keep only this much of a longer one, which
// fails the same way.
const maxLine = 1 << 20

// streamParts parses a stream that cannot be read at offsets (a
// decompressed file) into parts in parallel: it is cut into blocks of
// whole lines (about textSize / 2·workers bytes: textfile.BlockSize)
// while earlier blocks are parsed. Blocks are parsed one at a
// time, each as a head, until one holds the file's first data line (the
// returned head: a "V E" candidate or the first edge), then on workers
// goroutines. The parts are in file order, so ids and errors are those of
// one pass.
func streamParts(r io.Reader, name string, textSize int64, workers int) (parts []*part, head *part, err error) {
	blocks := textfile.NewBlocks(r, textfile.BlockSize(textSize, workers, minChunk), maxLine)
	parse := func(b textfile.Block, head bool) *part {
		p := newPart(bytes.NewReader(b.Data), name, head, int64(len(b.Data)))
		p.run(false)
		p.sc = nil // let the block go
		return p
	}
	for head == nil || !head.seenFirst { // one at a time until the first data line
		b, err := blocks.Next()
		if err == io.EOF {
			if head == nil { // an empty stream: a head that read nothing
				head = parse(textfile.Block{}, true)
				parts = []*part{head}
			}
			return parts, head, nil
		}
		if err != nil {
			return nil, nil, fmt.Errorf("reading %s: %w", name, err)
		}
		head = parse(b, true)
		parts = append(parts, head)
		if head.err != nil {
			return parts, head, nil // read reports it
		}
	}
	rest, err := textfile.ParseBlocks(blocks.Next, workers, func(b textfile.Block) *part { return parse(b, false) })
	if err != nil {
		return nil, nil, fmt.Errorf("reading %s: %w", name, err)
	}
	return append(parts, rest...), head, nil
}

// idOf returns tok's id in names, appending it if it is new.
func idOf(names []string, tok []byte) (uint32, []string) {
	if i := slices.Index(names, string(tok)); i >= 0 {
		return uint32(i), names
	}
	return uint32(len(names)), append(names, string(tok))
}

// lineError is an error at a line of a part, numbered within the part
// until read makes it absolute.
type lineError struct {
	name   string
	line   int64
	reason string
}

func (e *lineError) Error() string { return fmt.Sprintf("%s:%d: %s", e.name, e.line, e.reason) }

// part parses one byte range of an edge file (the head: from the start
// of the file) into pairs of local vertex codes.
type part struct {
	sc        *bufio.Scanner
	name      string
	head      bool
	lines     int64
	dataLines int64 // data lines, the file's first excepted
	selfLoops int64
	ids       textfile.Dict
	pairs     []uint64 // local codes u<<32|v, in line order, u != v
	size      int64    // bytes in the range, 0 if unknown
	reserved  bool
	consumed  int64 // bytes of the lines scanned

	// Head only: the file's first data line, as a "V E" header candidate
	// (kept aside until the end decides) or as an edge.
	seenFirst, candidate, firstEdge bool
	header                          [2][]byte
	stopped                         bool // run stopped after the first data line

	err *lineError
}

func newPart(r io.Reader, name string, head bool, size int64) *part {
	p := &part{name: name, head: head, size: size, ids: textfile.NewDict(size)}
	p.sc = bufio.NewScanner(r)
	p.sc.Buffer(make([]byte, 64<<10), 1<<20)
	p.sc.Split(func(data []byte, atEOF bool) (int, []byte, error) {
		adv, tok, err := bufio.ScanLines(data, atEOF)
		p.consumed += int64(adv)
		return adv, tok, err
	})
	return p
}

// run parses lines to the end of the range or the first error; the head
// with stopAtFirst stops after the file's first data line.
func (p *part) run(stopAtFirst bool) {
	for p.sc.Scan() {
		p.lines++
		line := bytes.TrimSpace(p.sc.Bytes())
		if len(line) == 0 || line[0] == '#' || line[0] == '%' {
			continue
		}
		f0, f1, nf := firstFields(line)
		if nf < 2 {
			p.fail(fmt.Sprintf("want two vertex ids, got one field %q", line))
			return
		}
		if p.head && !p.seenFirst {
			p.seenFirst = true
			if nf == 2 && isCount(f0) && isCount(f1) {
				p.candidate = true
				p.header = [2][]byte{bytes.Clone(f0), bytes.Clone(f1)}
			} else {
				p.firstEdge = true
				if !p.edge(f0, f1) {
					return
				}
			}
			if stopAtFirst {
				p.stopped = true
				return
			}
			continue
		}
		p.dataLines++
		if !p.edge(f0, f1) {
			return
		}
	}
	if err := p.sc.Err(); err != nil { // a line too long: the next one
		p.err = &lineError{name: p.name, line: p.lines + 1, reason: err.Error()}
	}
}

func (p *part) fail(reason string) { p.err = &lineError{name: p.name, line: p.lines, reason: reason} }

// edge records the edge a b of the current line; false: loading stops.
func (p *part) edge(a, b []byte) bool {
	if p.ids.Len() >= math.MaxUint32-1 {
		p.fail(fmt.Sprintf("more than %d vertices", uint32(math.MaxUint32)))
		return false
	}
	u, v := p.ids.Code(a), p.ids.Code(b)
	if u == v {
		p.selfLoops++
		return true
	}
	if !p.reserved && len(p.pairs) == 4096 {
		p.reserve()
	}
	p.pairs = append(p.pairs, uint64(u)<<32|uint64(v))
	return true
}

// reserve sizes the pair slice for the whole range once the first lines
// give its average line length: its repeated growth (and the collector's
// work on the copies) would otherwise cost a large share of the load.
func (p *part) reserve() {
	p.reserved = true
	if p.size <= 0 || p.consumed <= 0 {
		return
	}
	est := int(float64(p.size) / float64(p.consumed) * float64(len(p.pairs)) * 1.05)
	p.pairs = slices.Grow(p.pairs, est-len(p.pairs))
}

// toGlobal rewrites the part's pairs from local codes to the file's ids.
func (p *part) toGlobal(ids []uint32) {
	for i, pr := range p.pairs {
		p.pairs[i] = uint64(ids[pr>>32])<<32 | uint64(ids[uint32(pr)])
	}
}

// firstFields returns the first two fields of line (separated by spaces,
// tabs and commas) and how many fields it has, counted up to three:
// enough to tell an edge from a one-field line and a "V E" header from a
// longer line, without allocating a slice of every field per line.
func firstFields(line []byte) (a, b []byte, n int) {
	sep := func(c byte) bool { return isSep[c] }
	i := 0
	for n < 3 {
		for i < len(line) && sep(line[i]) {
			i++
		}
		if i == len(line) {
			break
		}
		j := i
		for j < len(line) && !sep(line[j]) {
			j++
		}
		switch n {
		case 0:
			a = line[i:j]
		case 1:
			b = line[i:j]
		}
		n++
		i = j
	}
	return a, b, n
}

var isSep = [256]bool{' ': true, '\t': true, ',': true}

// isCount reports whether tok is a non-negative decimal integer.
func isCount(tok []byte) bool {
	_, err := strconv.ParseUint(string(tok), 10, 63)
	return err == nil
}

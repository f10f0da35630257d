package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

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
	// every 2^20 lines, and once at the end.
	Progress func(lines int64)
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
	f, err := os.Open(path)
	if err != nil {
		return nil, FileStats{}, err
	}
	defer f.Close()
	var size int64
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		size = fi.Size()
	}
	return load(f, path, opts, size)
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
	return load(r, name, opts, 0)
}

// load is Load with the input's size in bytes, when known, to pre-size
// the edge buffers.
func load(r io.Reader, name string, opts FileOptions, size int64) (*window.Window, FileStats, error) {
	var st FileStats
	if opts.TimeUnit == 0 {
		opts.TimeUnit = time.Second
	}
	if opts.TimeUnit < 0 {
		return nil, st, fmt.Errorf("loading %s: time unit %v must be positive", name, opts.TimeUnit)
	}
	if opts.Progress != nil {
		defer func() { opts.Progress(st.Lines) }()
	}
	var nodes *nodeTable
	if opts.NodeFile != "" {
		var err error
		if nodes, err = readNodeFile(opts.NodeFile, &opts, &st); err != nil {
			return nil, st, err
		}
	}
	l := &edgeLoader{
		sc:        newScanner(r, name, &opts, &st),
		opts:      &opts,
		st:        &st,
		nodes:     nodes,
		size:      size,
		nodeBytes: st.Bytes,
		sorted:    true,
		lastT:     math.MinInt64,
	}
	w, err := l.run()
	if err != nil {
		return nil, st, err
	}
	return w, st, nil
}

// edgeLoader reads the edge file into compact columns, then appends them
// to the window in (t, line) order.
type edgeLoader struct {
	sc    *scanner
	opts  *FileOptions
	st    *FileStats
	nodes *nodeTable
	size  int64 // input bytes, 0 if unknown
	// nodeBytes is st.Bytes before the edge file (the node file's).
	nodeBytes int64

	seenFirst bool           // a non-comment line was seen (header chance gone)
	ncols     int            // fields per line, 0 until known
	ncolsLine int            // the line that fixed ncols
	names     []string       // attribute column names, nil until known
	kinds     []window.Kind  // attribute kinds, nil until the first data line
	kindsLine int            // the line that fixed kinds
	w         *window.Window // created on the first data line
	strCodes  map[string]uint32

	// Edges in file order; attrs holds len(names) values per edge.
	src, dst []uint32
	ts       []int64
	attrs    []float64
	vals     []float64 // the current line's attribute values
	sorted   bool      // ts is non-decreasing so far
	lastT    int64
	reserved bool
}

func (l *edgeLoader) run() (*window.Window, error) {
	for {
		f, err := l.sc.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if err := l.line(f); err != nil {
			return nil, err
		}
	}
	if l.w == nil {
		if err := l.newWindow(); err != nil {
			return nil, err
		}
	}
	if err := l.fill(); err != nil {
		return nil, err
	}
	if l.nodes != nil {
		l.nodes.apply(l.w, l.st)
	}
	return l.w, nil
}

// line handles one data or header line. It returns an error only when
// loading must stop.
func (l *edgeLoader) line(f [][]byte) error {
	sc := l.sc
	first := !l.seenFirst
	l.seenFirst = true
	if l.ncols == 0 {
		if len(f) < 3 {
			return sc.bad(fmt.Sprintf("%d %s; want at least 3: src dst time", len(f), plural(len(f), "field")))
		}
		if first && !looksNumeric(f[2]) {
			return l.header(f)
		}
	} else if len(f) != l.ncols {
		return sc.bad(fmt.Sprintf("%d fields; want %d like line %d", len(f), l.ncols, l.ncolsLine))
	}
	src, dst := f[0], f[1]
	if len(src) == 0 {
		return sc.bad("empty source id")
	}
	if len(dst) == 0 {
		return sc.bad("empty destination id")
	}
	// Invalid UTF-8 is refused, as by the record decoders: JSON output
	// (alerts) could not tell "\xff" from "\xfe".
	if !utf8.Valid(src) {
		return sc.bad(fmt.Sprintf("source id %q is not valid UTF-8", src))
	}
	if !utf8.Valid(dst) {
		return sc.bad(fmt.Sprintf("destination id %q is not valid UTF-8", dst))
	}
	t, status := parseInt(f[2])
	switch status {
	case intSyntax:
		return sc.bad(fmt.Sprintf("timestamp %q is not an integer", f[2]))
	case intRange:
		return sc.bad(fmt.Sprintf("timestamp %q overflows int64", f[2]))
	}
	if magnitude(t) > magnitude(l.st.LargestT) {
		l.st.LargestT, l.st.LargestTLine = t, sc.line
	}
	if l.w == nil {
		if err := l.firstData(f); err != nil {
			return err
		}
	}
	vals := l.vals
	for i, b := range f[3:] {
		if l.kinds[i] == window.String {
			if !utf8.Valid(b) {
				return sc.bad(fmt.Sprintf("value %q in string column %q is not valid UTF-8", b, l.names[i]))
			}
			continue // interned below, once the line is known good
		}
		if len(b) == 0 {
			vals[i] = math.NaN()
			continue
		}
		v, ok := parseFloat(b)
		if !ok {
			return sc.bad(fmt.Sprintf("value %q in number column %q is not a number (numeric since line %d)",
				b, l.names[i], l.kindsLine))
		}
		vals[i] = v
	}
	if bytes.Equal(src, dst) {
		l.st.SelfLoops++
		if !l.opts.KeepSelfLoops {
			return nil
		}
	}
	for i, b := range f[3:] {
		if len(b) == 0 {
			l.emptyValue(i)
		}
		if l.kinds[i] == window.String {
			vals[i] = float64(l.stringCode(b))
		}
	}
	ids := l.w.IDs()
	s, _ := ids.InternBytes(src)
	d, _ := ids.InternBytes(dst)
	if !l.reserved && len(l.ts) == 4096 {
		l.reserve()
	}
	l.src = append(l.src, s)
	l.dst = append(l.dst, d)
	l.ts = append(l.ts, t)
	l.attrs = append(l.attrs, vals...)
	if t < l.lastT {
		l.sorted = false
	}
	l.lastT = t
	return nil
}

// emptyValue counts an empty value of attribute column i on the current
// line, keeping the first's place for the warning.
func (l *edgeLoader) emptyValue(i int) {
	l.st.EmptyValues++
	if l.st.FirstEmpty == nil {
		l.st.FirstEmpty = &LineError{File: l.sc.name, Line: l.sc.line,
			Reason: fmt.Sprintf("attribute %q is empty (missing on this edge)", l.names[i])}
	}
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

// header takes the column names from the first line.
func (l *edgeLoader) header(f [][]byte) error {
	names, err := l.sc.columnNames(f[3:], 4)
	if err != nil {
		return err
	}
	l.st.Headers++
	l.names = names
	l.ncols, l.ncolsLine = len(f), l.sc.line
	return nil
}

// firstData fixes the column count (without a header), the attribute
// names and kinds from the first good data line, and creates the window.
func (l *edgeLoader) firstData(f [][]byte) error {
	if l.ncols == 0 {
		l.ncols, l.ncolsLine = len(f), l.sc.line
		for i := 3; i < len(f); i++ {
			l.names = append(l.names, "c"+strconv.Itoa(i+1))
		}
	}
	l.kinds = make([]window.Kind, len(l.names))
	for i, b := range f[3:] {
		if _, ok := parseFloat(b); !ok {
			l.kinds[i] = window.String
		}
	}
	l.kindsLine = l.sc.line
	l.vals = make([]float64, len(l.names))
	return l.newWindow()
}

func (l *edgeLoader) newWindow() error {
	s := window.Schema{TimeUnit: l.opts.TimeUnit}
	for i, name := range l.names {
		k := window.Number
		if l.kinds != nil {
			k = l.kinds[i]
		}
		s.EdgeAttrs = append(s.EdgeAttrs, window.Attr{Name: name, Kind: k})
	}
	if l.nodes != nil {
		s.NodeAttrs = l.nodes.attrs
	}
	w, err := window.New(s)
	if err != nil {
		return fmt.Errorf("loading %s: %w", l.sc.name, err)
	}
	l.w = w
	return nil
}

// stringCode interns a string attribute value without allocating for
// values seen before.
func (l *edgeLoader) stringCode(b []byte) uint32 {
	if c, ok := l.strCodes[string(b)]; ok {
		return c
	}
	if l.strCodes == nil {
		l.strCodes = make(map[string]uint32)
	}
	v := string(b)
	c := l.w.Strings().Intern(v)
	l.strCodes[v] = c
	return c
}

// reserve sizes the edge buffers for the whole input once the first
// lines give its average line length.
func (l *edgeLoader) reserve() {
	l.reserved = true
	read := l.st.Bytes - l.nodeBytes
	if l.size <= 0 || read <= 0 {
		return
	}
	est := int(float64(l.size) / float64(read) * float64(len(l.ts)) * 1.05)
	if est <= cap(l.ts) {
		return
	}
	l.src = slices.Grow(l.src, est-len(l.src))
	l.dst = slices.Grow(l.dst, est-len(l.dst))
	l.ts = slices.Grow(l.ts, est-len(l.ts))
	if n := len(l.names); n > 0 {
		l.attrs = slices.Grow(l.attrs, est*n-len(l.attrs))
	}
}

// fill appends the buffered edges to the window in (t, line) order.
func (l *edgeLoader) fill() error {
	var order []timeKey
	if !l.sorted {
		order = timeOrder(l.ts) // before the window grows: a lower peak
	}
	l.reserveWindow()
	na := len(l.names)
	for j := range l.ts {
		i := j
		if order != nil {
			i = int(order[j].i)
		}
		e := window.Edge{Src: l.src[i], Dst: l.dst[i], T: l.ts[i]}
		if na > 0 {
			e.Attrs = l.attrs[i*na : (i+1)*na : (i+1)*na]
		}
		if _, err := l.w.Append(e); err != nil {
			return fmt.Errorf("loading %s: %w", l.sc.name, err)
		}
	}
	l.st.Edges = int64(len(l.ts))
	l.src, l.dst, l.ts, l.attrs = nil, nil, nil, nil
	return nil
}

// reserveWindow gives the window's columns and every adjacency list their
// final capacity at once, instead of regrowing them edge by edge: a third
// of the load time on a power-law graph, and no slack left in the window.
func (l *edgeLoader) reserveWindow() {
	out := make([]int, l.w.IDs().Cap())
	in := make([]int, len(out))
	for i := range l.src {
		out[l.src[i]]++
		in[l.dst[i]]++
	}
	l.w.Reserve(len(l.ts), out, in)
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

package ingest

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/motifwatch/motifwatch/internal/textfile"
	"github.com/motifwatch/motifwatch/window"
)

// format is what the head of an edge file fixes for every later line: the
// column count, the attribute names and kinds. Parts read it only after
// the head part has fixed it.
type format struct {
	keepSelfLoops bool
	seenFirst     bool          // a non-comment line was seen (header chance gone)
	ncols         int           // fields per line, 0 until known
	ncolsLine     int           // the line that fixed ncols
	names         []string      // attribute column names, nil until known
	kinds         []window.Kind // attribute kinds, nil until the first data line
	kindsLine     int           // the line that fixed kinds
}

// part parses one byte range of an edge file into local columns.
type part struct {
	sc   *scanner
	st   FileStats
	fm   *format
	size int64 // bytes in the range, 0 if unknown

	ids, strs textfile.Dict
	src, dst  []uint32 // local node codes
	ts        []int64
	attrs     [][]float64 // one column per attribute; strings as local codes
	vals      []float64   // the current line's attribute values

	sorted        bool // ts is non-decreasing
	firstT, lastT int64
	reserved      bool

	stopped bool  // run stopped once the format was fixed
	err     error // the error that stopped the part, nil at EOF
}

func newPart(sc *scanner, fm *format, size int64) *part {
	p := &part{sc: sc, fm: fm, size: size, sorted: true, lastT: math.MinInt64,
		ids: textfile.NewDict(size), strs: textfile.NewDict(size)}
	sc.st = &p.st
	if fm.kinds != nil {
		p.fixed()
	}
	return p
}

// run parses lines until EOF or an error that stops loading; with
// stopAtFormat, it stops as soon as the first data line has fixed the
// format (the head part of a parallel load).
func (p *part) run(stopAtFormat bool) {
	for {
		f, err := p.sc.next()
		if err == io.EOF {
			return
		}
		if err != nil {
			p.err = err
			return
		}
		if err := p.line(f); err != nil {
			p.err = err
			return
		}
		if stopAtFormat && p.fm.kinds != nil {
			p.stopped = true
			return
		}
	}
}

// line handles one data or header line. It returns an error only when
// loading must stop.
func (p *part) line(f [][]byte) error {
	sc, fm := p.sc, p.fm
	first := !fm.seenFirst
	if first { // only the head part writes the format: chunks run in parallel
		fm.seenFirst = true
	}
	if fm.ncols == 0 {
		if len(f) < 3 {
			return sc.bad(fmt.Sprintf("%d %s; want at least 3: src dst time", len(f), plural(len(f), "field")))
		}
		if first && !looksNumeric(f[2]) {
			return p.header(f)
		}
	} else if len(f) != fm.ncols {
		return sc.bad(fmt.Sprintf("%d fields; want %d like line %d", len(f), fm.ncols, fm.ncolsLine))
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
	if magnitude(t) > magnitude(p.st.LargestT) {
		p.st.LargestT, p.st.LargestTLine = t, sc.line
	}
	if fm.kinds == nil {
		p.firstData(f)
	}
	vals := p.vals
	for i, b := range f[3:] {
		if fm.kinds[i] == window.String {
			if !utf8.Valid(b) {
				return sc.bad(fmt.Sprintf("value %q in string column %q is not valid UTF-8", b, fm.names[i]))
			}
			continue // coded below, once the line is known good
		}
		if len(b) == 0 {
			vals[i] = math.NaN()
			continue
		}
		v, ok := parseFloat(b)
		if !ok {
			return sc.bad(fmt.Sprintf("value %q in number column %q is not a number (numeric since line %d)",
				b, fm.names[i], fm.kindsLine))
		}
		vals[i] = v
	}
	if bytes.Equal(src, dst) {
		p.st.SelfLoops++
		if !fm.keepSelfLoops {
			return nil
		}
	}
	for i, b := range f[3:] {
		if len(b) == 0 {
			p.emptyValue(i)
		}
		if fm.kinds[i] == window.String {
			vals[i] = float64(p.strs.Code(b))
		}
	}
	s := p.ids.Code(src)
	d := p.ids.Code(dst)
	if !p.reserved && len(p.ts) == 4096 {
		p.reserve()
	}
	p.src = append(p.src, s)
	p.dst = append(p.dst, d)
	p.ts = append(p.ts, t)
	for i, v := range vals {
		p.attrs[i] = append(p.attrs[i], v)
	}
	if len(p.ts) == 1 {
		p.firstT = t
	}
	if t < p.lastT {
		p.sorted = false
	}
	p.lastT = t
	return nil
}

// emptyValue counts an empty value of attribute column i on the current
// line, keeping the first's place for the warning.
func (p *part) emptyValue(i int) {
	p.st.EmptyValues++
	if p.st.FirstEmpty == nil {
		p.st.FirstEmpty = &LineError{File: p.sc.name, Line: p.sc.line,
			Reason: fmt.Sprintf("attribute %q is empty (missing on this edge)", p.fm.names[i])}
	}
}

// header takes the column names from the first line.
func (p *part) header(f [][]byte) error {
	names, err := p.sc.columnNames(f[3:], 4)
	if err != nil {
		return err
	}
	p.st.Headers++
	p.fm.names = names
	p.fm.ncols, p.fm.ncolsLine = len(f), p.sc.line
	return nil
}

// firstData fixes the column count (without a header), the attribute
// names and kinds from the first data line with a good timestamp.
func (p *part) firstData(f [][]byte) {
	fm := p.fm
	if fm.ncols == 0 {
		fm.ncols, fm.ncolsLine = len(f), p.sc.line
		for i := 3; i < len(f); i++ {
			fm.names = append(fm.names, "c"+strconv.Itoa(i+1))
		}
	}
	fm.kinds = make([]window.Kind, len(fm.names))
	for i, b := range f[3:] {
		if _, ok := parseFloat(b); !ok {
			fm.kinds[i] = window.String
		}
	}
	fm.kindsLine = p.sc.line
	p.fixed()
}

// fixed sizes the part's attribute buffers once the format is known.
func (p *part) fixed() {
	p.vals = make([]float64, len(p.fm.names))
	p.attrs = make([][]float64, len(p.fm.names))
}

// reserve sizes the edge buffers for the whole range once the first lines
// give its average line length.
func (p *part) reserve() {
	p.reserved = true
	read := p.st.Bytes
	if p.size <= 0 || read <= 0 {
		return
	}
	est := int(float64(p.size) / float64(read) * float64(len(p.ts)) * 1.05)
	if est <= cap(p.ts) {
		return
	}
	p.src = slices.Grow(p.src, est-len(p.src))
	p.dst = slices.Grow(p.dst, est-len(p.dst))
	p.ts = slices.Grow(p.ts, est-len(p.ts))
	for i := range p.attrs {
		p.attrs[i] = slices.Grow(p.attrs[i], est-len(p.attrs[i]))
	}
}

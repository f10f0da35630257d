package ingest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// Byte classes for splitting: a field ends at whitespace or a comma.
const (
	clField = iota
	clSpace
	clComma
)

var class = func() (c [256]uint8) {
	for _, b := range []byte(" \t\r\v\f") {
		c[b] = clSpace
	}
	c[','] = clComma
	return c
}()

// splitFields appends the fields of line to dst and returns it. Fields are
// separated by a run of whitespace or by one comma with optional whitespace
// around it, so "a b 1", "a,b,1", "a, b,1" and "a\tb 1" all give three
// fields, and "a,,1" gives an empty second field. line must have no leading
// or trailing whitespace (see trimLine); a trailing comma gives an empty
// last field.
func splitFields(dst [][]byte, line []byte) [][]byte {
	i := 0
	for {
		j := i
		for j < len(line) && class[line[j]] == clField {
			j++
		}
		dst = append(dst, line[i:j])
		if j == len(line) {
			return dst
		}
		for j < len(line) && class[line[j]] == clSpace {
			j++
		}
		if j < len(line) && line[j] == ',' {
			j++
			for j < len(line) && class[line[j]] == clSpace {
				j++
			}
			if j == len(line) {
				return append(dst, line[j:])
			}
		}
		i = j
	}
}

// trimLine strips the line terminator and surrounding whitespace.
func trimLine(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || class[b[len(b)-1]] == clSpace) {
		b = b[:len(b)-1]
	}
	for len(b) > 0 && class[b[0]] == clSpace {
		b = b[1:]
	}
	return b
}

type intStatus uint8

const (
	intOK intStatus = iota
	intSyntax
	intRange
)

// parseInt parses a base-10 int64 with an optional sign, without
// allocating. A malformed number reports intSyntax even when it is also
// too long, so "99999999999999999999x" is "not an integer".
func parseInt(b []byte) (int64, intStatus) {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		b = b[1:]
	}
	if len(b) == 0 {
		return 0, intSyntax
	}
	limit := uint64(1<<63 - 1)
	if neg {
		limit = 1 << 63
	}
	var n uint64
	over := false
	for _, c := range b {
		d := uint64(c - '0')
		if d > 9 {
			return 0, intSyntax
		}
		if over || n > limit/10 {
			over = true
			continue
		}
		n = n*10 + d
		if n > limit {
			over = true
		}
	}
	if over {
		return 0, intRange
	}
	if neg {
		return -int64(n-1) - 1, intOK // n may be 1<<63
	}
	return int64(n), intOK
}

// pow10 holds the powers of ten that float64 represents exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9,
	1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// parseFloat parses a float64 the way strconv.ParseFloat does, reporting
// whether b is a number. Plain decimals of at most 15 digits ("12",
// "-3.25", "0.001") take an exact fast path: the digits form an integer
// below 2^53 and one division by an exact power of ten rounds correctly.
// Everything else (exponents, "Inf", "NaN", hex, long mantissas) goes to
// strconv.
func parseFloat(b []byte) (float64, bool) {
	i, neg := 0, false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		i = 1
	}
	var mant uint64
	digits, frac, dot := 0, 0, false
	for ; i < len(b); i++ {
		c := b[i]
		switch {
		case c >= '0' && c <= '9':
			digits++
			if digits > 15 {
				return slowFloat(b)
			}
			mant = mant*10 + uint64(c-'0')
			if dot {
				frac++
			}
		case c == '.' && !dot:
			dot = true
		default:
			return slowFloat(b)
		}
	}
	if digits == 0 {
		return slowFloat(b)
	}
	f := float64(mant)
	if frac > 0 {
		f /= pow10[frac]
	}
	if neg {
		f = -f
	}
	return f, true
}

func slowFloat(b []byte) (float64, bool) {
	f, err := strconv.ParseFloat(string(b), 64)
	return f, err == nil
}

// looksNumeric reports whether b starts like a number (optional sign, then
// a digit or '.'): a header's time column must not, so that a first line
// such as "1 2 12x" is reported as a bad timestamp, not taken as a header.
func looksNumeric(b []byte) bool {
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		b = b[1:]
	}
	return len(b) > 0 && (b[0] >= '0' && b[0] <= '9' || b[0] == '.')
}

// readBufSize is the read buffer, and so the longest line accepted.
const readBufSize = 1 << 20

// progressEvery is how many lines pass between Progress calls (a variable
// for tests).
var progressEvery int64 = 1 << 20

var utf8BOM = []byte("\ufeff")

// maxBadSamples is how many bad-line errors FileStats keeps.
const maxBadSamples = 10

// scanner reads the data lines of one text file: it skips and counts
// comments and blank lines, splits fields, and keeps the line number for
// errors. Lines, Comments, Bytes and Bad are counted into st.
type scanner struct {
	br       *bufio.Reader
	name     string
	line     int
	fields   [][]byte
	st       *FileStats
	skipBad  bool
	progress func(lines int64)
	// fileStart: the reader starts at the file's first byte, where a
	// byte order mark is skipped (a chunk of a file starts elsewhere).
	fileStart bool
}

func newScanner(r io.Reader, name string, opts *FileOptions, st *FileStats) *scanner {
	return &scanner{
		br:        bufio.NewReaderSize(r, readBufSize),
		name:      name,
		fields:    make([][]byte, 0, 16),
		st:        st,
		skipBad:   opts.SkipBad,
		progress:  opts.Progress,
		fileStart: true,
	}
}

// next returns the fields of the next data line, or io.EOF at the end.
// The fields alias the read buffer: valid until the next call. A line too
// long for the buffer is a bad line; next returns its error unless bad
// lines are skipped.
func (s *scanner) next() ([][]byte, error) {
	for {
		raw, err := s.br.ReadSlice('\n')
		if len(raw) == 0 && err != nil {
			if err == io.EOF {
				return nil, io.EOF
			}
			return nil, fmt.Errorf("reading %s: %w", s.name, err)
		}
		s.line++
		s.st.Lines++
		s.st.Bytes += int64(len(raw))
		if s.progress != nil && s.st.Lines%progressEvery == 0 {
			s.progress(s.st.Lines)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			if err := s.discardLine(); err != nil {
				return nil, err
			}
			if err := s.bad(fmt.Sprintf("line longer than %d bytes", readBufSize)); err != nil {
				return nil, err
			}
			continue
		}
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("reading %s: %w", s.name, err)
		}
		line := trimLine(raw)
		if s.line == 1 && s.fileStart {
			line = bytes.TrimPrefix(line, utf8BOM) // spreadsheets' CSV exports start with one
		}
		if len(line) == 0 || line[0] == '#' || line[0] == '%' {
			s.st.Comments++
			continue
		}
		s.fields = splitFields(s.fields[:0], line)
		return s.fields, nil
	}
}

// discardLine skips the rest of an over-long line.
func (s *scanner) discardLine() error {
	for {
		raw, err := s.br.ReadSlice('\n')
		s.st.Bytes += int64(len(raw))
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
		case err == nil || err == io.EOF:
			return nil
		default:
			return fmt.Errorf("reading %s: %w", s.name, err)
		}
	}
}

// bad records a malformed current line. It returns the line's error when
// loading must stop, nil when bad lines are skipped.
func (s *scanner) bad(reason string) error {
	e := &LineError{File: s.name, Line: s.line, Reason: reason}
	s.st.Bad++
	if !s.skipBad {
		return e
	}
	if len(s.st.BadSamples) < maxBadSamples {
		s.st.BadSamples = append(s.st.BadSamples, e)
	}
	return nil
}

// fatal returns an error for the current line that stops loading even
// when bad lines are skipped (a broken header).
func (s *scanner) fatal(reason string) error {
	return &LineError{File: s.name, Line: s.line, Reason: reason}
}

// columnNames checks header names (after the key columns) and copies them.
func (s *scanner) columnNames(fields [][]byte, first int) ([]string, error) {
	names := make([]string, 0, len(fields))
	seen := make(map[string]bool, len(fields))
	for i, f := range fields {
		name := string(f)
		switch {
		case name == "":
			return nil, s.fatal(fmt.Sprintf("header column %d has no name", first+i))
		case seen[name]:
			return nil, s.fatal(fmt.Sprintf("header names column %q twice", name))
		}
		seen[name] = true
		names = append(names, name)
	}
	return names, nil
}

package gpm

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
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
}

// Load reads an undirected edge file: one edge "u v" per line, ids being
// any tokens (integers or strings) separated by spaces, tabs or commas;
// further fields on a line (weights, timestamps) are ignored. Lines
// starting with # or % are comments. Edges are undirected: duplicates and
// reversed duplicates collapse to one edge and self-loops are dropped.
//
// A first data line of two non-negative integers "V E" is the header that
// SNAP-style and Matrix Market-like files carry, not an edge, when exactly
// E edge lines follow it (a file of just edges has no reason to start with
// a line that counts the rest) and V is at least the number of distinct
// ids they name; otherwise it is an edge. LoadStats.Header says which.
//
// Errors name the file and line and say why: "g.txt:7: want two vertex
// ids, got 1 field".
func Load(path string) (*Graph, LoadStats, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, LoadStats{}, err
	}
	defer f.Close()
	var edgeHint int
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		// Edge lines are rarely shorter than ~20 bytes ("1234 5678\n" and
		// up): room for that many pairs up front spares the pair slice's
		// repeated growth, which dominated loading 10M edges.
		edgeHint = int(min(fi.Size()/20, 1<<31))
	}
	return read(f, path, edgeHint)
}

// Read is Load on r; name is used in errors.
func Read(r io.Reader, name string) (*Graph, LoadStats, error) { return read(r, name, 0) }

// read is Read with room for edgeHint pairs reserved.
func read(r io.Reader, name string, edgeHint int) (*Graph, LoadStats, error) {
	var (
		st        LoadStats
		ids       = map[string]uint32{}
		names     []string
		pairs     = make([]uint64, 0, edgeHint)
		header    [2][]byte // the first data line's ids, until it is known not to be a header
		headerAt  int64
		candidate bool
		dataLines int64 // data lines after the first
	)
	intern := func(tok []byte) (uint32, error) {
		if id, ok := ids[string(tok)]; ok {
			return id, nil
		}
		if len(names) == math.MaxUint32 {
			return 0, fmt.Errorf("more than %d vertices", uint32(math.MaxUint32))
		}
		id := uint32(len(names))
		s := string(tok)
		ids[s] = id
		names = append(names, s)
		return id, nil
	}
	addEdge := func(a, b []byte) error {
		st.EdgeLines++
		u, err := intern(a)
		if err != nil {
			return err
		}
		v, err := intern(b)
		if err != nil {
			return err
		}
		switch {
		case u == v:
			st.SelfLoops++
		case u < v:
			pairs = append(pairs, uint64(u)<<32|uint64(v))
		default:
			pairs = append(pairs, uint64(v)<<32|uint64(u))
		}
		return nil
	}

	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		st.Lines++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] == '#' || line[0] == '%' {
			continue
		}
		f0, f1, nf := firstFields(line)
		if nf < 2 {
			return nil, st, fmt.Errorf("%s:%d: want two vertex ids, got one field %q", name, st.Lines, line)
		}
		if headerAt == 0 && !candidate && st.EdgeLines == 0 {
			headerAt = st.Lines
			if nf == 2 && isCount(f0) && isCount(f1) {
				candidate = true
				header = [2][]byte{bytes.Clone(f0), bytes.Clone(f1)}
				continue
			}
		} else if candidate {
			dataLines++
		}
		if err := addEdge(f0, f1); err != nil {
			return nil, st, fmt.Errorf("%s:%d: %w", name, st.Lines, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, st, fmt.Errorf("%s:%d: %w", name, st.Lines+1, err)
	}
	if candidate {
		v, _ := strconv.ParseInt(string(header[0]), 10, 64)
		e, _ := strconv.ParseInt(string(header[1]), 10, 64)
		if e == dataLines && v >= int64(len(names)) {
			st.Header, st.HeaderV, st.HeaderE = true, v, e
		} else if err := addEdge(header[0], header[1]); err != nil {
			return nil, st, fmt.Errorf("%s:%d: %w", name, headerAt, err)
		}
	}
	if len(pairs) == 0 {
		return nil, st, fmt.Errorf("%s: %w (%d lines, %d self-loops)", name, ErrNoEdges, st.Lines, st.SelfLoops)
	}
	g := fromPairs(len(names), pairs, names)
	st.Duplicates = int64(len(pairs)) - g.M()
	return g, st, nil
}

// firstFields returns the first two fields of line (separated by spaces,
// tabs and commas) and how many fields it has, counted up to three:
// enough to tell an edge from a one-field line and a "V E" header from a
// longer line, without allocating a slice of every field per line.
func firstFields(line []byte) (a, b []byte, n int) {
	sep := func(c byte) bool { return c == ' ' || c == '\t' || c == ',' }
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

// isCount reports whether tok is a non-negative decimal integer.
func isCount(tok []byte) bool {
	_, err := strconv.ParseUint(string(tok), 10, 63)
	return err == nil
}

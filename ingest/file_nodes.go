package ingest

import (
	"fmt"
	"io"
	"math"
	"unicode/utf8"

	"github.com/motifwatch/motifwatch/internal/textfile"
	"github.com/motifwatch/motifwatch/window"
)

// nodeTable is a node attribute file held until the edges are loaded: the
// window (and its id and string dictionaries) exists only once the edge
// file's first data line fixes the edge attribute columns.
type nodeTable struct {
	attrs []window.Attr
	ids   []string  // node ids in file order
	vals  []float64 // len(attrs) values per node; strings as codes into strs
	strs  []string  // string values by code; strs[0] == ""
}

// readNodeFile reads a node attribute file: a header line naming the id
// column and the attribute columns, then "id value..." lines, separated
// like the edge file. Kinds are decided on the first data line like edge
// attributes, except that the "label" column is always a string.
func readNodeFile(path string, opts *FileOptions, st *FileStats) (*nodeTable, error) {
	f, err := textfile.Open(path) // plain or compressed, as the edge file
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := newScanner(f, path, opts, st)
	nt := &nodeTable{strs: []string{""}}
	codes := map[string]uint32{"": 0}
	seen := map[string]int{} // node id → line
	var (
		ncols     int
		headLine  int
		kindsLine int
		decided   bool
	)
	for {
		fs, err := sc.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if ncols == 0 {
			if len(fs) < 2 {
				return nil, sc.fatal("node file header needs an id column and at least one attribute column")
			}
			names, err := sc.columnNames(fs[1:], 2)
			if err != nil {
				return nil, err
			}
			for _, n := range names {
				nt.attrs = append(nt.attrs, window.Attr{Name: n, Kind: window.Number})
			}
			st.Headers++
			ncols, headLine = len(fs), sc.line
			continue
		}
		if len(fs) != ncols {
			if err := sc.bad(fmt.Sprintf("%d fields; want %d like the header on line %d", len(fs), ncols, headLine)); err != nil {
				return nil, err
			}
			continue
		}
		id := fs[0]
		if len(id) == 0 {
			if err := sc.bad("empty node id"); err != nil {
				return nil, err
			}
			continue
		}
		if !utf8.Valid(id) {
			if err := sc.bad(fmt.Sprintf("node id %q is not valid UTF-8", id)); err != nil {
				return nil, err
			}
			continue
		}
		if prev, dup := seen[string(id)]; dup {
			if err := sc.bad(fmt.Sprintf("node %q already given on line %d", id, prev)); err != nil {
				return nil, err
			}
			continue
		}
		if !decided {
			for i, b := range fs[1:] {
				if _, ok := parseFloat(b); !ok || nt.attrs[i].Name == window.LabelAttr {
					nt.attrs[i].Kind = window.String
				}
			}
			decided, kindsLine = true, sc.line
		}
		reason := nt.checkNumbers(fs[1:], kindsLine)
		for i, b := range fs[1:] {
			if reason == "" && nt.attrs[i].Kind == window.String && !utf8.Valid(b) {
				reason = fmt.Sprintf("value %q in string column %q is not valid UTF-8", b, nt.attrs[i].Name)
			}
		}
		if reason != "" {
			if err := sc.bad(reason); err != nil {
				return nil, err
			}
			continue
		}
		for i, b := range fs[1:] {
			if len(b) == 0 {
				st.EmptyValues++
				if st.FirstEmpty == nil {
					st.FirstEmpty = &LineError{File: sc.name, Line: sc.line,
						Reason: fmt.Sprintf("node attribute %q is empty (missing on this node)", nt.attrs[i].Name)}
				}
			}
			var v float64
			switch {
			case nt.attrs[i].Kind == window.String:
				c, found := codes[string(b)]
				if !found {
					c = uint32(len(nt.strs))
					s := string(b)
					nt.strs = append(nt.strs, s)
					codes[s] = c
				}
				v = float64(c)
			case len(b) == 0:
				v = math.NaN()
			default:
				v, _ = parseFloat(b)
			}
			nt.vals = append(nt.vals, v)
		}
		name := string(id)
		seen[name] = sc.line
		nt.ids = append(nt.ids, name)
	}
	if ncols == 0 {
		return nil, fmt.Errorf("node file %s: no header line", path)
	}
	return nt, nil
}

// checkNumbers returns why a value of a number column does not parse, or "".
func (nt *nodeTable) checkNumbers(vals [][]byte, kindsLine int) string {
	for i, b := range vals {
		if nt.attrs[i].Kind == window.Number && len(b) > 0 {
			if _, ok := parseFloat(b); !ok {
				return fmt.Sprintf("value %q in number column %q is not a number (numeric since line %d)",
					b, nt.attrs[i].Name, kindsLine)
			}
		}
	}
	return ""
}

// apply sets the node attributes of every node of the table that has an
// edge in w. Nodes without edges are counted, not interned: they could not
// take part in a match, and a dense id without edges would never be freed.
func (nt *nodeTable) apply(w *window.Window, st *FileStats) {
	codes := make([]float64, len(nt.strs))
	for i, s := range nt.strs {
		codes[i] = float64(w.Strings().Intern(s))
	}
	na := len(nt.attrs)
	for i, name := range nt.ids {
		v, ok := w.IDs().Lookup(name)
		if !ok {
			st.NodesUnlinked++
			continue
		}
		st.Nodes++
		for c, a := range nt.attrs {
			x := nt.vals[i*na+c]
			if a.Kind == window.String {
				x = codes[int(x)]
			}
			w.SetNodeAttr(c, v, x)
		}
	}
}

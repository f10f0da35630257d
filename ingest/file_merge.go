package ingest

import (
	"context"
	"fmt"
	"runtime/trace"
	"sync"

	"github.com/motifwatch/motifwatch/internal/fanout"
	"github.com/motifwatch/motifwatch/internal/textfile"
	"github.com/motifwatch/motifwatch/window"
)

// merge builds the window from the parsed parts, in file order: it
// numbers the parts' node ids (textfile.Merge, on up to opts.Workers
// goroutines) and interns their string values (part by part), so dense
// ids and codes are assigned in the order of their first appearance in
// the file, copies the parts' columns into one set with the window's ids
// (a goroutine per part), sorts them by (t, line) when the file is not in
// time order (in parallel ranges), and hands them to the window in one
// AppendColumns.
func merge(fm *format, parts []*part, opts *FileOptions, name string, nodes *nodeTable) (*window.Window, error) {
	w, err := newWindow(fm, opts, nodes)
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", name, err)
	}
	n := 0
	sorted := true
	lastT := int64(0)
	for i, p := range parts {
		if len(p.ts) == 0 {
			continue
		}
		if !p.sorted || (i > 0 && n > 0 && p.firstT < lastT) {
			sorted = false
		}
		lastT = p.lastT
		n += len(p.ts)
	}
	// Node ids: the parts' dictionaries merged in file order on up to
	// opts.Workers goroutines (textfile.Merge: the ids of one pass), and
	// given to the new window at once; its name index is built while the
	// columns are copied and the adjacency filled.
	dicts := make([]*textfile.Dict, len(parts))
	for i, p := range parts {
		dicts[i] = &p.ids
	}
	region := trace.StartRegion(context.Background(), "load: merge ids")
	idMaps, names, err := textfile.Merge(dicts, opts.Workers)
	if err != nil {
		return nil, fmt.Errorf("loading %s: node ids: %w", name, err)
	}
	indexed, err := w.IDs().Adopt(names)
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", name, err)
	}
	strMaps := make([][]float64, len(parts))
	for i, p := range parts {
		strMaps[i] = make([]float64, len(p.strs.Names()))
		for c, v := range p.strs.Names() {
			strMaps[i][c] = float64(w.Strings().Intern(v))
		}
		p.ids, p.strs = textfile.Dict{}, textfile.Dict{}
	}
	region.End()
	region = trace.StartRegion(context.Background(), "load: copy columns")
	na := len(fm.names)
	cols := window.Columns{Src: make([]uint32, n), Dst: make([]uint32, n), T: make([]int64, n), Attrs: make([][]float64, na)}
	for a := range cols.Attrs {
		cols.Attrs[a] = make([]float64, n)
	}
	var wg sync.WaitGroup
	at := 0
	for i, p := range parts {
		lo := at
		at += len(p.ts)
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids, strs := idMaps[i], strMaps[i]
			for j, s := range p.src {
				cols.Src[lo+j] = ids[s]
				cols.Dst[lo+j] = ids[p.dst[j]]
			}
			copy(cols.T[lo:], p.ts)
			for a, col := range p.attrs {
				if fm.kinds[a] == window.String {
					for j, v := range col {
						cols.Attrs[a][lo+j] = strs[int(v)]
					}
				} else {
					copy(cols.Attrs[a][lo:], col)
				}
			}
			p.src, p.dst, p.ts, p.attrs = nil, nil, nil, nil
		}()
	}
	wg.Wait()
	region.End()
	if !sorted {
		region = trace.StartRegion(context.Background(), "load: time sort")
		cols = inTimeOrder(cols, opts.Workers)
		region.End()
	}
	region = trace.StartRegion(context.Background(), "load: window append")
	_, err = w.AppendColumns(cols, opts.Workers)
	region.End()
	region = trace.StartRegion(context.Background(), "load: name index")
	if ierr := indexed(); err == nil {
		err = ierr
	}
	region.End()
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", name, err)
	}
	return w, nil
}

// newWindow creates the window of the file's format (every attribute a
// number when no data line fixed the kinds).
func newWindow(fm *format, opts *FileOptions, nodes *nodeTable) (*window.Window, error) {
	s := window.Schema{TimeUnit: opts.TimeUnit}
	for i, name := range fm.names {
		k := window.Number
		if fm.kinds != nil {
			k = fm.kinds[i]
		}
		s.EdgeAttrs = append(s.EdgeAttrs, window.Attr{Name: name, Kind: k})
	}
	if nodes != nil {
		s.NodeAttrs = nodes.attrs
	}
	return window.New(s)
}

// inTimeOrder returns the columns reordered by (t, line), sorted and
// gathered on up to workers goroutines.
func inTimeOrder(c window.Columns, workers int) window.Columns {
	if len(c.T) < parallelSortMin {
		workers = 1
	}
	order := timeOrder(c.T, workers)
	n := len(order)
	out := window.Columns{Src: make([]uint32, n), Dst: make([]uint32, n), T: make([]int64, n)}
	fanout.Ranges(n, workers, func(_, a, b int) {
		for j := a; j < b; j++ {
			i := order[j].i
			out.Src[j], out.Dst[j], out.T[j] = c.Src[i], c.Dst[i], c.T[i]
		}
	})
	c.Src, c.Dst, c.T = nil, nil, nil
	for _, col := range c.Attrs {
		sortedCol := make([]float64, n)
		fanout.Ranges(n, workers, func(_, a, b int) {
			for j := a; j < b; j++ {
				sortedCol[j] = col[order[j].i]
			}
		})
		out.Attrs = append(out.Attrs, sortedCol)
	}
	return out
}

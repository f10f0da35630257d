package mine

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/motif/count3"
)

// ErrNoDelta: a query has no window δ and none was given (Options.Delta).
var ErrNoDelta = errors.New("no delta")

// queries gathers the queries of o's QueryFiles, Motifs, SNAP3 (the
// grid in row order) and Grid4 (count3.Grid4's order), and applies
// o.Delta.
func (o *Options) queries() ([]*motif.Query, error) {
	var qs []*motif.Query
	for _, path := range o.QueryFiles {
		got, err := LoadQueryFile(path)
		if err != nil {
			return nil, err
		}
		qs = append(qs, got...)
	}
	for _, name := range o.Motifs {
		q, err := motif.Builtin(name)
		if err != nil {
			return nil, err
		}
		qs = append(qs, q)
	}
	if o.SNAP3 {
		grid := motif.SNAPGrid()
		for i := range 6 {
			for j := range 6 {
				qs = append(qs, grid[i][j])
			}
		}
	}
	if o.Grid4 {
		for _, c := range count3.Grid4() {
			q, _ := count3.CellQuery(c)
			qs = append(qs, q)
		}
	}
	if o.Delta != "" {
		d, err := ParseDelta(o.Delta)
		if err != nil {
			return nil, err
		}
		for _, q := range qs {
			q.Delta = d
		}
	}
	for _, q := range qs {
		if q.Delta == (motif.Span{}) {
			return nil, fmt.Errorf("mine: motif %s has %w: give --delta (e.g. --delta 1h)", q.Name, ErrNoDelta)
		}
	}
	if len(qs) == 0 {
		return nil, errors.New("mine: no queries: give a query file, a built-in motif, the SNAP grid or the four-node family")
	}
	return qs, nil
}

// LoadQueryFile reads motifwatch query YAML, or Everest's when the file
// has a top-level `pattern` key.
func LoadQueryFile(path string) ([]*motif.Query, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var probe map[string]any
	if yaml.Unmarshal(data, &probe) == nil {
		if _, ok := probe["pattern"]; ok {
			q, _, err := motif.ImportEverest(path)
			if err != nil {
				return nil, err
			}
			return []*motif.Query{q}, nil
		}
	}
	return motif.ParseQueries(data, path)
}

// ParseDelta reads a --delta value: a Go duration or a count of ticks.
func ParseDelta(s string) (motif.Span, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n <= 0 {
			return motif.Span{}, fmt.Errorf("--delta %s: must be positive", s)
		}
		return motif.TicksSpan(n), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return motif.Span{}, fmt.Errorf("--delta %q: want a duration like 1h or a number of timestamp ticks", s)
	}
	if d <= 0 {
		return motif.Span{}, fmt.Errorf("--delta %s: must be positive", s)
	}
	return motif.DurationSpan(d), nil
}

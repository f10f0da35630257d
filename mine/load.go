package mine

import (
	"fmt"
	"os"
	"time"

	"github.com/motifwatch/motifwatch/gpm"
	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/internal/gcfloor"
	"github.com/motifwatch/motifwatch/synth"
	"github.com/motifwatch/motifwatch/window"
)

// loadHeapPerByte is the Go heap a batch load of an edge file reaches per
// byte of the file, about (tgraphgen's 10M-edge file of 235 MB peaks near
// 934 MiB with the collector off).
const loadHeapPerByte = 4

// load builds the window to mine: the synthetic graph or the file, with
// its notes and warnings on o.Log.
func (o *Options) load() (*window.Window, *Report, error) {
	if o.Synthetic > 0 {
		w, err := synth.Window(synth.Default(o.Synthetic, o.Seed))
		if err != nil {
			return nil, nil, err
		}
		return w, &Report{Graph: fmt.Sprintf("synthetic:%d:seed=%d", o.Synthetic, o.Seed), Edges: w.Len()}, nil
	}
	start := time.Now()
	last := start
	opts := o.File
	if opts.TimeUnit == 0 {
		opts.TimeUnit = time.Second
	}
	if o.Progress > 0 {
		opts.Progress = func(lines int64) {
			if now := time.Now(); now.Sub(last) >= o.Progress {
				last = now
				fmt.Fprintf(o.Log, "loading %s: %d lines, %.1fs\n", o.Graph, lines, now.Sub(start).Seconds())
			}
		}
	}
	if fi, err := os.Stat(o.Graph); err == nil {
		// A load holds about four bytes of heap per byte of text at its
		// peak (parse chunks, dictionaries, the window): no collection
		// before that, as it would free little and stall the parsers.
		gcfloor.Raise(loadHeapPerByte * fi.Size())
	}
	w, st, err := ingest.LoadFile(o.Graph, opts)
	if err != nil {
		return nil, nil, err
	}
	for _, l := range st.Warnings(o.Graph, opts.TimeUnit) {
		fmt.Fprintln(o.Log, l)
	}
	if w.Len() == 0 {
		return nil, nil, fmt.Errorf("mine: %s: %w (%d lines: comments, a header or self-loops only)", o.Graph, gpm.ErrNoEdges, st.Lines)
	}
	secs := time.Since(start).Seconds()
	cache := ""
	if st.Cache != "" {
		cache = ", cache " + st.Cache
	}
	fmt.Fprintf(o.Log, "loaded %s: %d edges (%d self-loops dropped) in %.2fs, %.0f bytes/edge%s\n",
		o.Graph, w.Len(), st.SelfLoops, secs, w.BytesPerEdge(), cache)
	return w, &Report{Graph: o.Graph, Edges: w.Len(), BadLines: st.Bad, LoadSeconds: secs, Cache: st.Cache}, nil
}

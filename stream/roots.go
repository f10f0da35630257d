package stream

import "github.com/motifwatch/motifwatch/ingest"

// roots decides which edges are mined as last edges (roots) and, for
// Replayed edges, against which watermark: the partitions this instance
// owns (Processor.Own) and the watermarks it resumes from
// (Processor.Resume, Processor.ResumePartition). It only reads while a
// batch is appended, so the append workers may ask it at once.
type roots struct {
	// owned lists the partitions whose edges are mined as last edges; nil:
	// every partition.
	owned map[int]bool
	// resumeHorizon is the watermark at the last clean shutdown; matches
	// ending at Replayed edges that were final by then are not reported.
	// resumeParts overrides it per partition (a scaled-out daemon takes
	// partitions over from several previous owners).
	resumeHorizon int64
	resumeParts   map[int][]ResumeSpan
}

// root reports that matches ending at e are this processor's to mine.
func (r *roots) root(e *ingest.Edge) bool {
	return !e.History && (r.owned == nil || r.owned[e.Origin.Partition])
}

// horizon returns the watermark a Replayed edge from o was mined against
// before the restart.
func (r *roots) horizon(o ingest.Origin) int64 {
	spans, ok := r.resumeParts[o.Partition]
	if !ok || len(spans) == 0 {
		return r.resumeHorizon
	}
	for _, s := range spans {
		if o.Offset < s.Until {
			return s.Watermark
		}
	}
	return spans[len(spans)-1].Watermark
}

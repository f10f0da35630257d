package kafka

import (
	"iter"
	"time"

	"github.com/motifwatch/motifwatch/synth"
	"github.com/motifwatch/motifwatch/window"
)

// FeedRecords turns the demo feed's edges into records with an "amount"
// attribute, times in ticks of unit since the Unix epoch: what `monitor
// produce --demo` and the daemon's demo mode write to the edge topic.
func FeedRecords(f *synth.Feed, unit time.Duration) iter.Seq[Record] {
	return func(yield func(Record) bool) {
		attrs := []Attr{{Name: "amount", Kind: window.Number}}
		for e := range f.All() {
			attrs[0].Num = e.Amount
			r := Record{Src: e.Src, Dst: e.Dst, T: int64(e.T.Sub(time.Unix(0, 0)) / unit), Seq: e.Seq, Attrs: attrs}
			if !yield(r) {
				return
			}
		}
	}
}

package feed

import (
	"context"
	"fmt"
	"iter"
	"time"

	"github.com/motifwatch/motifwatch/kafka"
	"github.com/motifwatch/motifwatch/synth"
	"github.com/motifwatch/motifwatch/window"
)

// ProduceWindow writes every edge of w, in window order (time, then file
// order for equal times), as one record to opts.Topic, and returns the
// number of records acknowledged. Seq is the edge's 0-based index in that
// order, so a consumer that orders equal timestamps by seq sees exactly
// the order `monitor mine` mines. The window's time unit is used, and its
// edge attributes become record attributes; an attribute named like a
// fixed JSON field is refused before anything is sent.
func ProduceWindow(ctx context.Context, w *window.Window, opts kafka.ProduceOptions) (int, error) {
	opts.TimeUnit = w.Schema().TimeUnit
	if opts.Format == kafka.JSON {
		for _, a := range w.Schema().EdgeAttrs {
			if opts.Fields.Reserved(a.Name) {
				return 0, fmt.Errorf("produce: edge attribute %q has the name of a fixed JSON field; rename the column", a.Name)
			}
		}
	}
	return kafka.Produce(ctx, Window(w), opts)
}

// Window iterates over w's edges as records in window order, Seq counting
// from 0. The yielded record and its Attrs are reused by the next
// iteration.
func Window(w *window.Window) iter.Seq[kafka.Record] {
	return func(yield func(kafka.Record) bool) {
		schema := w.Schema()
		ids, strs := w.IDs(), w.Strings()
		attrs := make([]kafka.Attr, len(schema.EdgeAttrs))
		for i, a := range schema.EdgeAttrs {
			attrs[i] = kafka.Attr{Name: a.Name, Kind: attrKind(a.Kind)}
		}
		first := w.First()
		for p := first; p < w.End(); p++ {
			for i := range attrs {
				v := w.EdgeAttr(i, p)
				if attrs[i].Kind == kafka.StringAttr {
					attrs[i].Str = strs.Value(uint32(v))
				} else {
					attrs[i].Num = v
				}
			}
			r := kafka.Record{Src: ids.Name(w.Src(p)), Dst: ids.Name(w.Dst(p)), T: w.T(p), Seq: p - first, Attrs: attrs}
			if !yield(r) {
				return
			}
		}
	}
}

// attrKind is the record attribute kind of a window column kind.
func attrKind(k window.Kind) kafka.AttrKind {
	if k == window.String {
		return kafka.StringAttr
	}
	return kafka.NumberAttr
}

// Demo turns the demo feed's edges into records with an "amount"
// attribute, times in ticks of unit since the Unix epoch: what `monitor
// produce --demo` and the daemon's demo mode write to the edge topic.
func Demo(f *synth.Feed, unit time.Duration) iter.Seq[kafka.Record] {
	return func(yield func(kafka.Record) bool) {
		attrs := []kafka.Attr{{Name: "amount", Kind: kafka.NumberAttr}}
		for e := range f.All() {
			attrs[0].Num = e.Amount
			r := kafka.Record{Src: e.Src, Dst: e.Dst, T: int64(e.T.Sub(time.Unix(0, 0)) / unit), Seq: e.Seq, Attrs: attrs}
			if !yield(r) {
				return
			}
		}
	}
}

package ingest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/window"
)

// benchRecords are 4096 transfer records: integer node ids under 10^6, a
// millisecond timestamp, an amount, a channel, and one field that is not
// an attribute, as JSON and as CSV.
func benchRecords(csv bool) [][]byte {
	r := rand.New(rand.NewPCG(1, 2))
	channels := []string{"wire", "card", "cash", "crypto", "check"}
	out := make([][]byte, 4096)
	t := int64(1_712_345_678_000)
	for i := range out {
		t += r.Int64N(50)
		src, dst := r.IntN(1e6), r.IntN(1e6)
		amount := float64(r.IntN(1e6)) / 100
		ch := channels[r.IntN(len(channels))]
		if csv {
			out[i] = fmt.Appendf(nil, "%d,%d,%d,%s,%s,ref-%d", src, dst, t, strconv.FormatFloat(amount, 'f', -1, 64), ch, i)
		} else {
			out[i] = fmt.Appendf(nil, `{"src":%d,"dst":"%d","time":%d,"amount":%s,"channel":"%s","ref":"ref-%d"}`,
				src, dst, t, strconv.FormatFloat(amount, 'f', -1, 64), ch, i)
		}
	}
	return out
}

var benchAttrs = []window.Attr{{Name: "amount", Kind: window.Number}, {Name: "channel", Kind: window.String}}

func benchDecode(b *testing.B, opts DecodeOptions) {
	recs := benchRecords(opts.Format == "csv")
	d, err := NewDecoder(opts)
	if err != nil {
		b.Fatal(err)
	}
	var bytes int64
	for _, r := range recs {
		bytes += int64(len(r))
	}
	b.SetBytes(bytes / int64(len(recs)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := d.Decode(recs[i%len(recs)], Origin{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeJSON is the hand-written scanner on a 6-field record.
func BenchmarkDecodeJSON(b *testing.B) {
	benchDecode(b, DecodeOptions{TimestampUnit: "ms", Tick: time.Millisecond, Attrs: benchAttrs})
}

// BenchmarkDecodeJSONKeyed is BenchmarkDecodeJSON with a node dictionary
// (DecodeOptions.NodeKeys, as the daemon decodes): known names cost no
// allocation.
func BenchmarkDecodeJSONKeyed(b *testing.B) {
	benchDecode(b, DecodeOptions{TimestampUnit: "ms", Tick: time.Millisecond, Attrs: benchAttrs, NodeKeys: window.NewKeys()})
}

// BenchmarkDecodeCSV is the CSV decoder on the same records.
func BenchmarkDecodeCSV(b *testing.B) {
	benchDecode(b, DecodeOptions{Format: "csv", CSVColumns: []string{"src", "dst", "time", "amount", "channel", "ref"},
		TimestampUnit: "ms", Tick: time.Millisecond, Attrs: benchAttrs})
}

// BenchmarkDecodeJSONStdlib is the yardstick: encoding/json with
// UseNumber into a map, then the same field extraction (no validation of
// kinds beyond what the edge needs). The scanner must beat it.
func BenchmarkDecodeJSONStdlib(b *testing.B) {
	recs := benchRecords(false)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		dec := json.NewDecoder(bytes.NewReader(recs[i%len(recs)]))
		dec.UseNumber()
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			b.Fatal(err)
		}
		var e Edge
		e.Src = m["src"].(json.Number).String()
		e.Dst = m["dst"].(string)
		t, err := m["time"].(json.Number).Int64()
		if err != nil {
			b.Fatal(err)
		}
		e.T = t
		amount, err := m["amount"].(json.Number).Float64()
		if err != nil {
			b.Fatal(err)
		}
		e.Attrs = []Value{{Num: amount, Set: true}, {Str: m["channel"].(string), Kind: window.String, Set: true}}
	}
}

package ingest

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/motifwatch/motifwatch/window"
)

// FuzzDecodeCSV feeds arbitrary records to the CSV decoder. It must never
// panic, every failure must be a *DecodeError with a reason, and a record
// it accepts must survive a round trip: written back as a CSV line with
// every text field quoted, it decodes to the same edge. That catches
// fields that lose or gain bytes (quotes, separators, trimming) and
// timestamps or numbers read differently depending on their spelling.
// Seeds: testdata/fuzz/FuzzDecodeCSV and the cases below.
func FuzzDecodeCSV(f *testing.F) {
	for _, s := range []string{
		"a,b,10,1500.5,wire",
		"1 2 1712345678 3 x\n",
		`"a,1", "say ""hi""" ,-1e3,"wire, intl",10`,
		"a,b,,,2024-04-05T19:34:38Z\r\n",
		`"a,b,1`,
		"a\"b,c,1,2,3",
		"\xff,\x00,1,2,3",
	} {
		f.Add([]byte(s))
	}
	d, err := NewDecoder(DecodeOptions{Format: "csv", CSVColumns: []string{"src", "dst", "amount", "kind", "time"},
		Attrs: []window.Attr{numAttr, strAttr}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		e, err := d.Decode(in, Origin{})
		if err != nil {
			var de *DecodeError
			if !errors.As(err, &de) || de.Reason == "" {
				t.Fatalf("Decode(%q) error %v is not a DecodeError with a reason", in, err)
			}
			return
		}
		if e.Src == "" || e.Dst == "" {
			t.Fatalf("Decode(%q) accepted an empty node id: %+v", in, e)
		}
		if !utf8.ValidString(e.Src) || !utf8.ValidString(e.Dst) || !utf8.ValidString(e.Attrs[1].Str) {
			t.Fatalf("Decode(%q) accepted text that is not valid UTF-8: %+v", in, e)
		}
		line, ok := csvLine(e)
		if !ok {
			return // a non-finite number has no spelling to round-trip
		}
		back, err := d.Decode([]byte(line), Origin{})
		if err != nil {
			t.Fatalf("Decode(%q) = %+v, but its re-encoding %q fails: %v", in, e, line, err)
		}
		if !sameEdge(e, back) {
			t.Fatalf("Decode(%q) = %+v; re-encoded as %q it decodes to %+v", in, e, line, back)
		}
	})
}

// csvLine writes e as a record for the columns src, dst, amount, kind,
// time: text quoted, a missing value empty.
func csvLine(e Edge) (string, bool) {
	q := func(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
	amount, kind := "", ""
	if a := e.Attrs[0]; a.Set {
		if math.IsNaN(a.Num) || math.IsInf(a.Num, 0) {
			return "", false
		}
		amount = strconv.FormatFloat(a.Num, 'g', -1, 64)
	}
	if k := e.Attrs[1]; k.Set {
		kind = q(k.Str)
	}
	return strings.Join([]string{q(e.Src), q(e.Dst), amount, kind, strconv.FormatInt(e.T, 10)}, ","), true
}

func sameEdge(a, b Edge) bool {
	if a.Src != b.Src || a.Dst != b.Dst || a.T != b.T || len(a.Attrs) != len(b.Attrs) {
		return false
	}
	for i := range a.Attrs {
		x, y := a.Attrs[i], b.Attrs[i]
		if x.Set != y.Set || x.Str != y.Str || x.Num != y.Num && !(x.Num == 0 && y.Num == 0) {
			return false
		}
	}
	return true
}

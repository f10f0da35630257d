package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/motifwatch/motifwatch/window"
)

var (
	numAttr = window.Attr{Name: "amount", Kind: window.Number}
	strAttr = window.Attr{Name: "kind", Kind: window.String}
)

func num(f float64) Value              { return Value{Num: f, Kind: window.Number, Set: true} }
func str(s string) Value               { return Value{Str: s, Kind: window.String, Set: true} }
func unsetNum() Value                  { return Value{Kind: window.Number} }
func unsetStr() Value                  { return Value{Kind: window.String} }
func ed(src, dst string, t int64) Edge { return Edge{Src: src, Dst: dst, T: t} }

func withAttrs(e Edge, vs ...Value) Edge { e.Attrs = vs; return e }

type decodeCase struct {
	name string
	opts DecodeOptions
	in   string
	want Edge   // Origin is checked separately
	err  string // the DecodeError's Reason, when decoding fails
}

func runDecodeCases(t *testing.T, tests []decodeCase) {
	t.Helper()
	origin := Origin{Topic: "edges", Partition: 3, Offset: 42}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := NewDecoder(tc.opts)
			if err != nil {
				t.Fatalf("NewDecoder: %v", err)
			}
			got, err := d.Decode([]byte(tc.in), origin)
			if tc.err != "" {
				var de *DecodeError
				if !errors.As(err, &de) {
					t.Fatalf("Decode(%q) = %+v, %v; want DecodeError %q", tc.in, got, err, tc.err)
				}
				if de.Reason != tc.err {
					t.Errorf("Decode(%q) reason = %q; want %q", tc.in, de.Reason, tc.err)
				}
				if !errors.Is(err, ErrMalformed) {
					t.Errorf("Decode(%q) error does not wrap ErrMalformed", tc.in)
				}
				return
			}
			if err != nil {
				t.Fatalf("Decode(%q): %v", tc.in, err)
			}
			if got.Origin != origin {
				t.Errorf("Decode(%q) origin = %+v; want %+v", tc.in, got.Origin, origin)
			}
			got.Origin = Origin{}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Decode(%q) =\n  %+v\nwant\n  %+v", tc.in, got, tc.want)
			}
		})
	}
}

func TestDecodeJSON(t *testing.T) {
	ms := DecodeOptions{Tick: time.Millisecond}
	attrs := DecodeOptions{Attrs: []window.Attr{numAttr, strAttr}}
	runDecodeCases(t, []decodeCase{
		{name: "strings", in: `{"src":"a","dst":"b","time":10}`, want: ed("a", "b", 10)},
		{name: "whitespace", in: " {\n\t\"src\" : \"a\" ,\r\n \"dst\":\"b\", \"time\" : 10 }\n", want: ed("a", "b", 10)},
		{name: "integer ids are base 10 strings", in: `{"src":17,"dst":"17","time":1}`, want: ed("17", "17", 1)},
		{name: "negative and huge integer ids", in: `{"src":-5,"dst":123456789012345678901234567890,"time":1}`, want: ed("-5", "123456789012345678901234567890", 1)},
		{name: "minus zero is zero", in: `{"src":-0,"dst":0,"time":1}`, want: ed("0", "0", 1)},
		{name: "self-loop is not an error", in: `{"src":"a","dst":"a","time":1}`, want: ed("a", "a", 1)},
		{name: "float id", in: `{"src":1.5,"dst":2,"time":1}`, err: `field "src": "1.5" is not an integer or string`},
		{name: "exponent id", in: `{"src":1,"dst":2e3,"time":1}`, err: `field "dst": "2e3" is not an integer or string`},
		{name: "boolean id", in: `{"src":true,"dst":2,"time":1}`, err: `field "src": got boolean, want a string or integer`},
		{name: "object id", in: `{"src":{"id":1},"dst":2,"time":1}`, err: `field "src": got object, want a string or integer`},
		{name: "null id", in: `{"src":null,"dst":2,"time":1}`, err: `field "src" is null`},
		{name: "empty id", in: `{"src":"","dst":2,"time":1}`, err: `field "src" is empty`},
		{name: "missing src", in: `{"dst":"b","time":1}`, err: `missing field "src"`},
		{name: "missing dst", in: `{"src":"a","time":1}`, err: `missing field "dst"`},
		{name: "missing time", in: `{"src":"a","dst":"b"}`, err: `missing field "time"`},
		{name: "null time", in: `{"src":"a","dst":"b","time":null}`, err: `field "time": got null, want a number or string timestamp`},
		{name: "empty object", in: `{}`, err: `missing field "src"`},
		{name: "field names", opts: DecodeOptions{Src: "from", Dst: "to", Time: "ts"},
			in: `{"src":"x","from":"a","to":"b","ts":5,"time":"junk"}`, want: ed("a", "b", 5)},
		{name: "missing renamed field", opts: DecodeOptions{Src: "from", Dst: "to", Time: "ts"},
			in: `{"from":"a","dst":"b","ts":5}`, err: `missing field "to"`},
		{name: "duplicate key, last wins", in: `{"src":"a","dst":"b","time":1,"src":"c"}`, want: ed("c", "b", 1)},
		{name: "undeclared fields skipped, nested too",
			in:   `{"meta":{"a":[1,2.5e-3,{"b":null,"c":[true,false,"x\"y"]}],"d":{}},"src":"a","list":[],"dst":"b","time":1}`,
			want: ed("a", "b", 1)},
		{name: "escapes in keys and values", in: `{"s\u0072c":"a\nb","dst":"\u00e9\ud83d\ude00","time":1}`, want: ed("a\nb", "é😀", 1)},
		{name: "utf-8 values", in: `{"src":"Zürich","dst":"東京","time":1}`, want: ed("Zürich", "東京", 1)},
		// Invalid UTF-8 is refused, never replaced: "\xff" and "\xfe" (or
		// "\ud800" and "\udbff") as U+FFFD would be one node.
		{name: "invalid utf-8 id", in: "{\"src\":\"a\xffb\",\"dst\":\"c\",\"time\":1}", err: `field "src": invalid UTF-8 in "a\xffb"`},
		{name: "invalid utf-8 id beside an escape", in: "{\"src\":\"a\",\"dst\":\"\\n\xfe\",\"time\":1}", err: `field "dst": invalid UTF-8 in "\\n\xfe"`},
		{name: "lone high surrogate", in: `{"src":"\ud800","dst":"c","time":1}`, err: `field "src": "\\ud800" escapes a lone UTF-16 surrogate (not a character)`},
		{name: "lone high surrogate, last one", in: `{"src":"a","dst":"x\udbff","time":1}`, err: `field "dst": "x\\udbff" escapes a lone UTF-16 surrogate (not a character)`},
		{name: "lone low surrogate", in: `{"src":"\udc00\ud800","dst":"c","time":1}`, err: `field "src": "\\udc00\\ud800" escapes a lone UTF-16 surrogate (not a character)`},
		{name: "high surrogate before a non-surrogate", in: `{"src":"\ud800\u0041","dst":"c","time":1}`, err: `field "src": "\\ud800\\u0041" escapes a lone UTF-16 surrogate (not a character)`},
		{name: "high surrogate before another escape", in: `{"src":"\ud800\n","dst":"c","time":1}`, err: `field "src": "\\ud800\\n" escapes a lone UTF-16 surrogate (not a character)`},
		{name: "surrogate pair", in: `{"src":"\ud83d\ude00\uD800\uDC00","dst":"c","time":1}`, want: ed("😀𐀀", "c", 1)},
		{name: "escaped backslash before u", in: `{"src":"\\ud800","dst":"c","time":1}`, want: ed(`\ud800`, "c", 1)},
		{name: "U+FFFD itself is an id", in: `{"src":"\ufffd","dst":"�!","time":1}`, want: ed("\uFFFD", "\uFFFD!", 1)},
		{name: "invalid utf-8 label", opts: DecodeOptions{SrcLabel: "sl"}, in: "{\"src\":\"a\",\"dst\":\"c\",\"time\":1,\"sl\":\"\xff\"}", err: `field "sl": invalid UTF-8 in "\xff"`},
		{name: "lone surrogate in a string attribute", opts: DecodeOptions{Attrs: []window.Attr{strAttr}}, in: `{"src":"a","dst":"c","time":1,"kind":"\udfff"}`, err: `field "kind": "\\udfff" escapes a lone UTF-16 surrogate (not a character)`},

		// Timestamps.
		{name: "seconds to 1s ticks", in: `{"src":"a","dst":"b","time":1712345678}`, want: ed("a", "b", 1712345678)},
		{name: "ms unit to 1s ticks floors", opts: DecodeOptions{TimestampUnit: "ms"},
			in: `{"src":"a","dst":"b","time":1712345678999}`, want: ed("a", "b", 1712345678)},
		{name: "fractional seconds to ms ticks, exactly", opts: ms,
			in: `{"src":"a","dst":"b","time":1712345678.123}`, want: ed("a", "b", 1712345678123)},
		{name: "fractional seconds floored", in: `{"src":"a","dst":"b","time":10.9}`, want: ed("a", "b", 10)},
		{name: "negative fraction floored", in: `{"src":"a","dst":"b","time":-0.5}`, want: ed("a", "b", -1)},
		{name: "negative whole seconds", in: `{"src":"a","dst":"b","time":-3}`, want: ed("a", "b", -3)},
		{name: "negative sub-ns digits floor", opts: DecodeOptions{Tick: time.Nanosecond},
			in: `{"src":"a","dst":"b","time":-1.0000000001}`, want: ed("a", "b", -1000000001)},
		{name: "exponent", in: `{"src":"a","dst":"b","time":1.7e9}`, want: ed("a", "b", 1700000000)},
		{name: "negative exponent", opts: ms, in: `{"src":"a","dst":"b","time":17e-1}`, want: ed("a", "b", 1700)},
		{name: "us unit to 1ms ticks", opts: DecodeOptions{TimestampUnit: "us", Tick: time.Millisecond},
			in: `{"src":"a","dst":"b","time":1712345678123456}`, want: ed("a", "b", 1712345678123)},
		{name: "ns unit", opts: DecodeOptions{TimestampUnit: "ns", Tick: time.Second},
			in: `{"src":"a","dst":"b","time":1712345678999999999}`, want: ed("a", "b", 1712345678)},
		{name: "s to 7ms ticks", opts: DecodeOptions{Tick: 7 * time.Millisecond},
			in: `{"src":"a","dst":"b","time":1}`, want: ed("a", "b", 142)},
		{name: "1 minute ticks", opts: DecodeOptions{Tick: time.Minute},
			in: `{"src":"a","dst":"b","time":119}`, want: ed("a", "b", 1)},
		{name: "seconds beyond 2262 in 1s ticks", in: `{"src":"a","dst":"b","time":100000000000}`, want: ed("a", "b", 100000000000)},
		{name: "max int64 seconds in 1s ticks", in: `{"src":"a","dst":"b","time":9223372036854775807}`, want: ed("a", "b", math.MaxInt64)},
		{name: "seconds overflowing ms ticks", opts: ms, in: `{"src":"a","dst":"b","time":9223372036854775807}`,
			err: `timestamp "9223372036854775807": out of range`},
		{name: "float out of range", in: `{"src":"a","dst":"b","time":1e30}`, err: `timestamp "1e30": out of range`},
		{name: "tiny float", in: `{"src":"a","dst":"b","time":1e-300}`, want: ed("a", "b", 0)},
		{name: "rfc3339", in: `{"src":"a","dst":"b","time":"2024-04-05T19:34:38Z"}`, want: ed("a", "b", 1712345678)},
		{name: "rfc3339 fraction and offset to ms ticks", opts: ms,
			in: `{"src":"a","dst":"b","time":"2024-04-05T21:34:38.1239+02:00"}`, want: ed("a", "b", 1712345678123)},
		{name: "numeric string", in: `{"src":"a","dst":"b","time":"1712345678"}`, want: ed("a", "b", 1712345678)},
		{name: "numeric string with fraction", opts: ms, in: `{"src":"a","dst":"b","time":"1712345678.5"}`, want: ed("a", "b", 1712345678500)},
		{name: "layout", opts: DecodeOptions{TimestampLayout: "2006-01-02 15:04:05"},
			in: `{"src":"a","dst":"b","time":"2024-04-05 19:34:38"}`, want: ed("a", "b", 1712345678)},
		{name: "layout that looks like a number", opts: DecodeOptions{TimestampLayout: "20060102150405"},
			in: `{"src":"a","dst":"b","time":"20240405193438"}`, want: ed("a", "b", 1712345678)},
		{name: "layout still reads numbers", opts: DecodeOptions{TimestampLayout: "2006-01-02 15:04:05"},
			in: `{"src":"a","dst":"b","time":12}`, want: ed("a", "b", 12)},
		{name: "bad timestamp", in: `{"src":"a","dst":"b","time":"abc"}`, err: `timestamp "abc": not a number or RFC 3339 time`},
		{name: "bad timestamp for layout", opts: DecodeOptions{TimestampLayout: "2006-01-02"},
			in: `{"src":"a","dst":"b","time":"05/04/2024"}`, err: `timestamp "05/04/2024": not a number or time in layout "2006-01-02"`},
		{name: "long bad timestamp is cut", in: `{"src":"a","dst":"b","time":"` + strings.Repeat("x", 100) + `"}`,
			err: `timestamp "` + strings.Repeat("x", 64) + `"…: not a number or RFC 3339 time`},
		{name: "boolean timestamp", in: `{"src":"a","dst":"b","time":false}`, err: `field "time": got boolean, want a number or string timestamp`},

		// Attributes, seq and labels.
		{name: "attributes", opts: attrs, in: `{"src":"a","dst":"b","time":1,"kind":"wire","amount":1500.25,"other":"x"}`,
			want: withAttrs(ed("a", "b", 1), num(1500.25), str("wire"))},
		{name: "missing and null attributes", opts: attrs, in: `{"src":"a","dst":"b","time":1,"amount":null}`,
			want: withAttrs(ed("a", "b", 1), unsetNum(), unsetStr())},
		{name: "string for a number attribute", opts: attrs, in: `{"src":"a","dst":"b","time":1,"amount":"12"}`,
			err: `attribute "amount": got string, want number`},
		{name: "number for a string attribute", opts: attrs, in: `{"src":"a","dst":"b","time":1,"kind":12}`,
			err: `attribute "kind": got number, want string`},
		{name: "array attribute", opts: attrs, in: `{"src":"a","dst":"b","time":1,"amount":[1]}`,
			err: `attribute "amount": got array, want number`},
		{name: "seq", opts: DecodeOptions{Seq: "seq"}, in: `{"src":"a","dst":"b","time":1,"seq":-7}`,
			want: Edge{Src: "a", Dst: "b", T: 1, Seq: -7, HasSeq: true}},
		{name: "seq as string", opts: DecodeOptions{Seq: "seq"}, in: `{"src":"a","dst":"b","time":1,"seq":"8"}`,
			want: Edge{Src: "a", Dst: "b", T: 1, Seq: 8, HasSeq: true}},
		{name: "missing seq: ordered by arrival", opts: DecodeOptions{Seq: "seq"}, in: `{"src":"a","dst":"b","time":1}`, want: ed("a", "b", 1)},
		{name: "float seq", opts: DecodeOptions{Seq: "seq"}, in: `{"src":"a","dst":"b","time":1,"seq":1.5}`,
			err: `field "seq": "1.5" is not an integer`},
		{name: "seq out of range", opts: DecodeOptions{Seq: "seq"}, in: `{"src":"a","dst":"b","time":1,"seq":9223372036854775808}`,
			err: `field "seq": "9223372036854775808" is out of range`},
		{name: "seq ignored when not configured", in: `{"src":"a","dst":"b","time":1,"seq":5}`, want: ed("a", "b", 1)},
		{name: "labels", opts: DecodeOptions{SrcLabel: "sl", DstLabel: "dl"}, in: `{"src":"a","dst":"b","time":1,"sl":"bank","dl":7}`,
			want: Edge{Src: "a", Dst: "b", T: 1, SrcLabel: "bank", DstLabel: "7"}},
		{name: "null and missing labels", opts: DecodeOptions{SrcLabel: "sl", DstLabel: "dl"}, in: `{"src":"a","dst":"b","time":1,"sl":null}`,
			want: ed("a", "b", 1)},

		// Malformed JSON.
		{name: "empty", in: ``, err: `empty record`},
		{name: "blank", in: "  \n", err: `empty record`},
		{name: "not an object", in: `[1,2,3]`, err: `record is not a JSON object`},
		{name: "plain text", in: `a b 1`, err: `record is not a JSON object`},
		{name: "trailing comma", in: `{"src":"a","dst":"b","time":1,}`, err: `invalid JSON at byte 30: unexpected '}', want object key`},
		{name: "missing colon", in: `{"src" "a"}`, err: `invalid JSON at byte 7: unexpected '"', want ':'`},
		{name: "unterminated string", in: `{"src":"a`, err: `invalid JSON: unterminated string at byte 7`},
		{name: "truncated", in: `{"src":"a","dst":"b","time":1`, err: `invalid JSON: unexpected end of record, want ',' or '}'`},
		{name: "trailing data", in: `{"src":"a","dst":"b","time":1} x`, err: `invalid JSON at byte 31: unexpected 'x', want end of record`},
		{name: "two objects", in: `{"src":"a","dst":"b","time":1}{}`, err: `invalid JSON at byte 30: unexpected '{', want end of record`},
		{name: "bad literal", in: `{"src":"a","dst":"b","time":1,"x":tru}`, err: `invalid JSON at byte 34: unexpected 't', want a value`},
		{name: "leading zero", in: `{"src":"a","dst":"b","time":01}`, err: `invalid JSON at byte 29: unexpected '1', want ',' or '}'`},
		{name: "bad number", in: `{"src":"a","dst":"b","time":1.}`, err: `invalid JSON at byte 30: unexpected '}', want a digit`},
		{name: "bad escape", in: `{"src":"a\x","dst":"b","time":1}`, err: `invalid JSON at byte 9: bad escape`},
		{name: "bad unicode escape", in: `{"src":"a\u12g4","dst":"b","time":1}`, err: `invalid JSON at byte 9: bad \u escape`},
		{name: "control character", in: "{\"src\":\"a\tb\",\"dst\":\"b\",\"time\":1}", err: `invalid JSON at byte 9: control character in string`},
		{name: "bad nested value is still an error", in: `{"meta":[1,,2],"src":"a","dst":"b","time":1}`, err: `invalid JSON at byte 11: unexpected ',', want a value`},
		{name: "unquoted key", in: `{src:"a"}`, err: `invalid JSON at byte 1: unexpected 's', want object key`},
		{name: "too deep", in: `{"x":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + `}`, err: `invalid JSON: nested deeper than 1000`},
	})
}

func TestDecodeCSV(t *testing.T) {
	cols := func(c ...string) DecodeOptions { return DecodeOptions{Format: "csv", CSVColumns: c} }
	withAttr := cols("src", "dst", "time", "amount", "kind")
	withAttr.Attrs = []window.Attr{numAttr, strAttr}
	full := DecodeOptions{Format: "csv", CSVColumns: []string{"seq", "from", "-", "to", "ts", "sl", "dl", "note"},
		Src: "from", Dst: "to", Time: "ts", Seq: "seq", SrcLabel: "sl", DstLabel: "dl"}
	runDecodeCases(t, []decodeCase{
		{name: "comma", opts: cols("src", "dst", "time"), in: "a,b,10", want: ed("a", "b", 10)},
		{name: "spaces around commas, crlf", opts: cols("src", "dst", "time"), in: " a , b\t,10 \r\n", want: ed("a", "b", 10)},
		{name: "snap text", opts: cols("src", "dst", "time"), in: "1 2\t1712345678\n", want: ed("1", "2", 1712345678)},
		{name: "column order", opts: cols("time", "dst", "src"), in: "10,b,a", want: ed("a", "b", 10)},
		{name: "attributes", opts: withAttr, in: "a,b,10,1500.5,wire", want: withAttrs(ed("a", "b", 10), num(1500.5), str("wire"))},
		{name: "empty attributes are missing", opts: withAttr, in: "a,b,10,,", want: withAttrs(ed("a", "b", 10), unsetNum(), unsetStr())},
		{name: "quoted fields", opts: withAttr, in: `"a,1", "say ""hi""" ,10,-1e3,"wire, intl"`,
			want: withAttrs(ed("a,1", `say "hi"`, 10), num(-1000), str("wire, intl"))},
		{name: "all roles", opts: full, in: "7,a,ignored,b,10,bank,shop,extra",
			want: Edge{Src: "a", Dst: "b", T: 10, Seq: 7, HasSeq: true, SrcLabel: "bank", DstLabel: "shop"}},
		{name: "rfc3339", opts: cols("src", "dst", "time"), in: "a,b,2024-04-05T19:34:38Z", want: ed("a", "b", 1712345678)},
		{name: "fraction", opts: DecodeOptions{Format: "csv", CSVColumns: []string{"src", "dst", "time"}, Tick: time.Millisecond},
			in: "a,b,1.25", want: ed("a", "b", 1250)},
		{name: "too few fields", opts: cols("src", "dst", "time"), in: "a,b", err: `record has 2 fields, want 3 (csv columns)`},
		{name: "too many fields", opts: cols("src", "dst", "time"), in: "a b 1 2", err: `record has 4 fields, want 3 (csv columns)`},
		{name: "empty src", opts: cols("src", "dst", "time"), in: ",b,1", err: `missing field "src"`},
		{name: "empty time", opts: cols("src", "dst", "time"), in: "a,b,", err: `missing field "time"`},
		{name: "bad time", opts: cols("src", "dst", "time"), in: "a,b,12x", err: `timestamp "12x": not a number or RFC 3339 time`},
		{name: "bad number", opts: withAttr, in: "a,b,1,lots,wire", err: `attribute "amount": "lots" is not a number`},
		{name: "bad seq", opts: full, in: "x,a,,b,10,,,", err: `field "seq": "x" is not an integer`},
		{name: "unterminated quote", opts: cols("src", "dst", "time"), in: `"a,b,1`, err: `csv: unterminated quoted field at byte 0`},
		{name: "text after quote", opts: cols("src", "dst", "time"), in: `"a"x,b,1`, err: `csv: text after quoted field at byte 3`},
		{name: "stray quote", opts: cols("src", "dst", "time"), in: `a"b,c,1`, err: `csv: quote inside unquoted field at byte 1`},
		{name: "invalid utf-8 src", opts: cols("src", "dst", "time"), in: "\xff,b,1", err: `field "src": invalid UTF-8 in "\xff"`},
		{name: "invalid utf-8 dst, text", opts: cols("src", "dst", "time"), in: "a \xfe 1", err: `field "dst": invalid UTF-8 in "\xfe"`},
		{name: "invalid utf-8 quoted", opts: cols("src", "dst", "time"), in: "\"a,\xc3\",b,1", err: `field "src": invalid UTF-8 in "a,\xc3"`},
		{name: "invalid utf-8 string attribute", opts: DecodeOptions{Format: "csv", CSVColumns: []string{"src", "dst", "time", "kind"}, Attrs: []window.Attr{strAttr}},
			in: "a,b,1,\xed\xa0\x80", err: `field "kind": invalid UTF-8 in "\xed\xa0\x80"`},
		{name: "invalid utf-8 in a skipped column", opts: cols("src", "dst", "time", "-"), in: "a,b,1,\xff", want: ed("a", "b", 1)},
		{name: "empty", opts: cols("src", "dst", "time"), in: "\r\n", err: `empty record`},
	})
}

func TestDecodeOversize(t *testing.T) {
	d, err := NewDecoder(DecodeOptions{MaxRecordBytes: 32})
	if err != nil {
		t.Fatal(err)
	}
	in := []byte(`{"src":"a","dst":"b","time":1}`) // 30 bytes
	if _, err := d.Decode(in, Origin{}); err != nil {
		t.Fatalf("Decode(%d bytes): %v", len(in), err)
	}
	in = append(in, "   "...)
	_, err = d.Decode(in, Origin{})
	var de *DecodeError
	if !errors.As(err, &de) || !de.Oversize || de.Reason != "record of 33 bytes exceeds max_record_bytes 32" {
		t.Errorf("Decode(33 bytes) = %v; want an oversize DecodeError", err)
	}
}

// TestDecodeDoesNotAlias checks that a decoded edge owns its strings: the
// Kafka client reuses record buffers.
func TestDecodeDoesNotAlias(t *testing.T) {
	for _, opts := range []DecodeOptions{
		{Attrs: []window.Attr{strAttr}, SrcLabel: "l"},
		{Format: "csv", CSVColumns: []string{"src", "dst", "time", "kind", "l"}, Attrs: []window.Attr{strAttr}, SrcLabel: "l"},
	} {
		d, err := NewDecoder(opts)
		if err != nil {
			t.Fatal(err)
		}
		in := []byte(`{"src":"aa","dst":"bb","time":1,"kind":"kk","l":"ll"}`)
		if opts.Format == "csv" {
			in = []byte("aa,bb,1,kk,ll")
		}
		e, err := d.Decode(in, Origin{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range in {
			in[i] = 'z'
		}
		if e.Src != "aa" || e.Dst != "bb" || e.Attrs[0].Str != "kk" || e.SrcLabel != "ll" {
			t.Errorf("%s: edge changed with its input: %+v", opts.Format, e)
		}
	}
}

func TestNewDecoderErrors(t *testing.T) {
	tests := []struct {
		name string
		opts DecodeOptions
		err  string
	}{
		{"format", DecodeOptions{Format: "avro"}, `decode options: format "avro": want json or csv`},
		{"unit", DecodeOptions{TimestampUnit: "min"}, `decode options: timestamp unit "min": want s, ms, us or ns`},
		{"tick", DecodeOptions{Tick: -time.Second}, `decode options: tick -1s must be positive`},
		{"layout without elements", DecodeOptions{TimestampLayout: "yyyy-mm-dd"}, `decode options: timestamp layout "yyyy-mm-dd" has no time elements`},
		{"max record bytes", DecodeOptions{MaxRecordBytes: -1}, `decode options: max record bytes -1 must not be negative`},
		{"same field twice", DecodeOptions{Src: "id", Dst: "id"}, `decode options: dst field "id" is also the src field`},
		{"attribute shadows a field", DecodeOptions{Attrs: []window.Attr{{Name: "time"}}}, `decode options: attribute field "time" is also the time field`},
		{"duplicate attribute", DecodeOptions{Attrs: []window.Attr{numAttr, numAttr}}, `decode options: attribute field "amount" is also the attribute`},
		{"unnamed attribute", DecodeOptions{Attrs: []window.Attr{{}}}, `decode options: attribute 0 has no name`},
		{"attribute kind", DecodeOptions{Attrs: []window.Attr{{Name: "x", Kind: 9}}}, `decode options: attribute "x" has unknown kind 9`},
		{"csv without columns", DecodeOptions{Format: "csv"}, `decode options: format csv needs csv columns`},
		{"csv column twice", DecodeOptions{Format: "csv", CSVColumns: []string{"src", "dst", "time", "src"}}, `decode options: csv columns name "src" twice`},
		{"csv without time", DecodeOptions{Format: "csv", CSVColumns: []string{"src", "dst", "ts"}}, `decode options: time field "time" is not among the csv columns ["src" "dst" "ts"]`},
		{"csv without attribute", DecodeOptions{Format: "csv", CSVColumns: []string{"src", "dst", "time"}, Attrs: []window.Attr{numAttr}},
			`decode options: attribute "amount" is not among the csv columns ["src" "dst" "time"]`},
	}
	for _, tc := range tests {
		_, err := NewDecoder(tc.opts)
		if err == nil || err.Error() != tc.err {
			t.Errorf("%s: NewDecoder(%+v) = %v; want %q", tc.name, tc.opts, err, tc.err)
		}
	}
}

func TestDecoderDefaults(t *testing.T) {
	d, err := NewDecoder(DecodeOptions{CSVColumns: []string{"ignored for json"}})
	if err != nil {
		t.Fatal(err)
	}
	o := d.Options()
	if o.Format != "json" || o.Src != "src" || o.Dst != "dst" || o.Time != "time" || o.TimestampUnit != "s" || o.Tick != time.Second {
		t.Errorf("Options() = %+v; want json, src, dst, time, s, 1s", o)
	}
}

func TestParseDecimalSplit(t *testing.T) {
	tests := []struct {
		in          string
		fd          int
		whole, frac int64
		rest, ok    bool
	}{
		{"0", 3, 0, 0, false, true},
		{"12.5", 3, 12, 500, false, true},
		{"12.5", 0, 12, 0, true, true},
		{"-0.0001", 3, 0, 0, true, true},
		{"007.250", 2, 7, 25, false, true},
		{"1.5e3", 1, 1500, 0, false, true},
		{"15e-1", 1, 1, 5, false, true},
		{".5", 1, 0, 5, false, true},
		{"5.", 1, 5, 0, false, true},
		{"0e999", 0, 0, 0, false, true},
		{"9223372036854775807", 0, math.MaxInt64, 0, false, true},
		{"9223372036854775808", 0, 0, 0, false, false},
		{"1e19", 0, 0, 0, false, false},
	}
	for _, tc := range tests {
		n, ok := parseDecimal([]byte(tc.in))
		if !ok {
			t.Errorf("parseDecimal(%q) failed", tc.in)
			continue
		}
		whole, frac, rest, ok := n.split(tc.fd)
		if whole != tc.whole || frac != tc.frac || rest != tc.rest || ok != tc.ok {
			t.Errorf("parseDecimal(%q).split(%d) = %d, %d, %v, %v; want %d, %d, %v, %v",
				tc.in, tc.fd, whole, frac, rest, ok, tc.whole, tc.frac, tc.rest, tc.ok)
		}
	}
	for _, bad := range []string{"", "-", ".", "e5", "1e", "1e+", "1.2.3", "1x", "0x10", "Inf", "NaN", "--1"} {
		if _, ok := parseDecimal([]byte(bad)); ok {
			t.Errorf("parseDecimal(%q) = ok; want not a number", bad)
		}
	}
}

func TestMulAddDiv(t *testing.T) {
	tests := []struct {
		a, m, c, d int64
		want       int64
		ok         bool
	}{
		{10, 1, 0, 3, 3, true},
		{-10, 1, 0, 3, -4, true},
		{-9, 1, 0, 3, -3, true},
		{5, 1e9, 5, 1e9, 5, true},
		{-1, 1e9, 5, 1e9, -1, true},
		{math.MaxInt64, 1e9, 0, 1e9, math.MaxInt64, true}, // overflows in the middle only
		{math.MinInt64, 1e9, 0, 1e9, math.MinInt64, true},
		{math.MinInt64, 1e9, -1, 1e9, 0, false}, // floor is MinInt64 - 1
		{math.MaxInt64, 1e9, 0, 1e6, 0, false},
		{math.MaxInt64, 1, 1, 1, 0, false},
	}
	for _, tc := range tests {
		got, ok := mulAddDiv(tc.a, tc.m, tc.c, tc.d)
		if got != tc.want || ok != tc.ok {
			t.Errorf("mulAddDiv(%d, %d, %d, %d) = %d, %v; want %d, %v", tc.a, tc.m, tc.c, tc.d, got, ok, tc.want, tc.ok)
		}
	}
}

// TestDecodeJSONValidity checks that valid JSON corners are accepted.
func TestDecodeJSONValidity(t *testing.T) {
	d, err := NewDecoder(DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Each of these is a valid object for encoding/json; the decoder
	// must not call any of them invalid JSON.
	valid := []string{
		`{"src":"a","dst":"b","time":1,"x":[[],{},[{"y":[]}]]}`,
		`{"src":"a","dst":"b","time":1,"x":-0.0e+00}`,
		`{"src":"a","dst":"b","time":1,"x":"\\\/\b\f\n\r\t\u0000"}`,
		`{"src":"a","dst":"b","time":1,"":null}`,
		`{"src":"a","dst":"b","time":1,"x":1E5}`,
	}
	for _, in := range valid {
		if _, err := d.Decode([]byte(in), Origin{}); err != nil {
			t.Errorf("Decode(%s): %v", in, err)
		}
	}
}

// FuzzDecodeJSON checks the scanner against encoding/json: a record that
// json.Valid rejects must fail to decode, and a record the decoder calls
// invalid JSON must be one that json.Valid rejects. Both decoders must
// agree on src and dst when decoding succeeds.
func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{
		`{"src":"a","dst":"b","time":1}`,
		`{"src":17,"dst":"x\u00e9","time":"2024-04-05T19:34:38Z","amount":1.5,"kind":"k"}`,
		`{"src":"a","dst":"b","time":1,"x":[[],{},[{"y":[]}]]}`,
		`{"src":"a\"","dst":"b","time":1e3}`,
		`{"src":"a","dst":"b","time":1,}`,
		"{\"src\":\"\xff\",\"dst\":\"b\",\"time\":1}",
		`{"src":"\ud800","dst":"\udbff\udfff","time":1}`,
	} {
		f.Add([]byte(s))
	}
	d, err := NewDecoder(DecodeOptions{Attrs: []window.Attr{numAttr, strAttr}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		e, err := d.Decode(in, Origin{})
		valid := json.Valid(in)
		var de *DecodeError
		if err != nil && !errors.As(err, &de) {
			t.Fatalf("Decode(%q) error %v is not a DecodeError", in, err)
		}
		if !valid && err == nil {
			t.Fatalf("Decode(%q) accepted invalid JSON", in)
		}
		if valid && de != nil && strings.HasPrefix(de.Reason, "invalid JSON") {
			t.Fatalf("Decode(%q) = %q; but json.Valid accepts it", in, de.Reason)
		}
		if err != nil {
			return
		}
		if !utf8.ValidString(e.Src) || !utf8.ValidString(e.Dst) {
			t.Fatalf("Decode(%q) accepted an id that is not valid UTF-8: %+v", in, e)
		}
		var m map[string]any
		dec := json.NewDecoder(bytes.NewReader(in))
		dec.UseNumber()
		if err := dec.Decode(&m); err != nil {
			t.Fatalf("encoding/json: %v", err)
		}
		for _, f := range []struct {
			key, got string
		}{{"src", e.Src}, {"dst", e.Dst}} {
			var want string
			switch v := m[f.key].(type) {
			case string:
				want = v
			case json.Number:
				want = v.String()
				if want == "-0" {
					want = "0"
				}
			default:
				t.Fatalf("Decode(%q) accepted %s = %v", in, f.key, v)
			}
			if f.got != want {
				t.Fatalf("Decode(%q) %s = %q; encoding/json says %q", in, f.key, f.got, want)
			}
		}
	})
}

// TestDecodeNodeKeys: with a node dictionary the decoded names are the
// same, and equal names (whatever their JSON form: 17, "17", an escaped
// string) get equal keys, different names different ones; labels get none.
func TestDecodeNodeKeys(t *testing.T) {
	recs := []string{
		`{"src":17,"dst":"17","time":1}`,
		`{"src":"a","dst":"\u0062","time":2,"sl":"a"}`,
		`{"src":-0,"dst":"b","time":3}`,
		`{"src":"0","dst":"a","time":4}`,
	}
	csv := []string{"17,b,5", "a,0,6"}
	keys := window.NewKeys()
	for _, format := range []string{"json", "csv"} {
		opts := DecodeOptions{Format: format, SrcLabel: "sl"}
		in := recs
		if format == "csv" {
			opts = DecodeOptions{Format: format, CSVColumns: []string{"src", "dst", "time"}}
			in = csv
		}
		plain, err := NewDecoder(opts)
		if err != nil {
			t.Fatal(err)
		}
		opts.NodeKeys = keys
		keyed, err := NewDecoder(opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range in {
			want, err := plain.Decode([]byte(r), Origin{})
			if err != nil {
				t.Fatalf("%s: %v", r, err)
			}
			got, err := keyed.Decode([]byte(r), Origin{})
			if err != nil {
				t.Fatalf("%s keyed: %v", r, err)
			}
			if got.SrcKey == 0 || got.DstKey == 0 || want.SrcKey != 0 {
				t.Fatalf("%s: keys %x %x keyed, %x plain", r, got.SrcKey, got.DstKey, want.SrcKey)
			}
			got.SrcKey, got.DstKey = 0, 0
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: keyed %+v, plain %+v", r, got, want)
			}
		}
	}
	for _, name := range []string{"17", "a", "b", "0"} {
		k1, _ := keys.Of(name)
		for _, other := range []string{"17", "a", "b", "0"} {
			if k2, _ := keys.Of(other); (k1 == k2) != (name == other) {
				t.Fatalf("keys of %q and %q: %x, %x", name, other, k1, k2)
			}
		}
	}
	if keys.Len() != 4 {
		t.Fatalf("%d names keyed, want 4 (17 a b 0; no label)", keys.Len())
	}
}

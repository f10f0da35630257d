package kafka

import (
	"encoding/csv"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestEncodeJSON(t *testing.T) {
	e := encoder{format: JSON, fields: DefaultFields(), seq: true}
	r := Record{Src: "a\"b", Dst: "c\\d\n\x01é\xff", T: 12, Seq: 3, Attrs: []Attr{
		{Name: "amount", Kind: NumberAttr, Num: 1500.25},
		{Name: "big", Kind: NumberAttr, Num: 1e21},
		{Name: "missing", Kind: NumberAttr, Num: math.NaN()},
		{Name: "channel", Kind: StringAttr, Str: "wire <x>"},
		{Name: "none", Kind: StringAttr},
	}}
	b, err := e.append(nil, &r)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"src":"a\"b","dst":"c\\d\n\u0001é\ufffd","t":12,"seq":3,"amount":1500.25,"big":1e+21,"channel":"wire <x>"}`
	if string(b) != want {
		t.Errorf("JSON = %s\nwant %s", b, want)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("not valid JSON: %v", err)
	}
	wantMap := map[string]any{"src": "a\"b", "dst": "c\\d\n\x01é\uFFFD", "t": 12.0, "seq": 3.0,
		"amount": 1500.25, "big": 1e21, "channel": "wire <x>"}
	if !reflect.DeepEqual(got, wantMap) {
		t.Errorf("decoded %v; want %v", got, wantMap)
	}

	e.seq = false
	e.fields = Fields{Src: "from", Dst: "to", T: "ts", Seq: "n"}
	b, err = e.append(nil, &Record{Src: "x", Dst: "y", T: 5, Seq: 9})
	if err != nil || string(b) != `{"from":"x","to":"y","ts":5}` {
		t.Errorf("JSON without seq, custom fields = %s, %v", b, err)
	}

	for _, a := range []Attr{
		{Name: "ts", Kind: NumberAttr, Num: 1},
		{Name: "inf", Kind: NumberAttr, Num: math.Inf(1)},
	} {
		if _, err := e.append(nil, &Record{Src: "x", Dst: "y", Attrs: []Attr{a}}); err == nil || !strings.Contains(err.Error(), a.Name) {
			t.Errorf("attribute %+v: error %v; want one naming it", a, err)
		}
	}
}

func TestEncodeCSV(t *testing.T) {
	e := encoder{format: CSV, fields: DefaultFields(), seq: true}
	r := Record{Src: "a,b", Dst: ` lead`, T: 7, Seq: 0, Attrs: []Attr{
		{Name: "amount", Kind: NumberAttr, Num: 2000},
		{Name: "missing", Kind: NumberAttr, Num: math.NaN()},
		{Name: "note", Kind: StringAttr, Str: `say "hi"`},
		{Name: "empty", Kind: StringAttr},
	}}
	b, err := e.append(nil, &r)
	if err != nil {
		t.Fatal(err)
	}
	want := `"a,b"," lead",7,0,2000,,"say ""hi""",`
	if string(b) != want {
		t.Errorf("CSV = %s\nwant %s", b, want)
	}
	rec, err := csv.NewReader(strings.NewReader(string(b))).Read()
	if err != nil {
		t.Fatalf("not valid CSV: %v", err)
	}
	if w := []string{"a,b", " lead", "7", "0", "2000", "", `say "hi"`, ""}; !reflect.DeepEqual(rec, w) {
		t.Errorf("CSV fields %q; want %q", rec, w)
	}
	e.seq = false
	b, _ = e.append(nil, &Record{Src: "x", Dst: "y", T: 1, Seq: 4})
	if string(b) != "x,y,1" {
		t.Errorf("CSV without seq = %q; want x,y,1", b)
	}
}

func TestMessageTime(t *testing.T) {
	for _, c := range []struct {
		t    int64
		unit time.Duration
		want time.Time
		err  bool
	}{
		{0, time.Second, time.UnixMilli(0), false},
		{1082008561, time.Second, time.Unix(1082008561, 0), false},
		{1500, time.Millisecond, time.UnixMilli(1500), false},
		{1_500_999, time.Microsecond, time.UnixMilli(1500), false}, // truncated to ms
		{3, 1500 * time.Microsecond, time.UnixMilli(4), false},
		{-1, time.Second, time.Time{}, true},
		{math.MaxInt64/1000 + 1, time.Second, time.Time{}, true},
		{math.MaxInt64 / 2, time.Microsecond * 3, time.Time{}, true},
	} {
		got, err := messageTime(c.t, c.unit)
		if (err != nil) != c.err || !got.Equal(c.want) {
			t.Errorf("messageTime(%d, %v) = %v, %v; want %v (error %v)", c.t, c.unit, got, err, c.want, c.err)
		}
	}
}

func TestParseFormatAndPartitioning(t *testing.T) {
	for s, want := range map[string]Format{"json": JSON, "CSV": CSV} {
		if got, err := ParseFormat(s); err != nil || got != want {
			t.Errorf("ParseFormat(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	if _, err := ParseFormat("xml"); err == nil {
		t.Error("ParseFormat(xml) succeeded")
	}
	for s, want := range map[string]Partitioning{"src": BySrc, "roundrobin": RoundRobin, "round-robin": RoundRobin} {
		if got, err := ParsePartitioning(s); err != nil || got != want {
			t.Errorf("ParsePartitioning(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	if _, err := ParsePartitioning("dst"); err == nil {
		t.Error("ParsePartitioning(dst) succeeded")
	}
}

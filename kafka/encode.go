package kafka

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Format is the encoding of an edge record's value.
type Format uint8

const (
	// JSON values are objects: {"src":"a","dst":"b","t":12,"seq":0,"amount":5}.
	// Attributes follow the fixed fields in order; a missing attribute
	// (NaN number, empty string) is left out.
	JSON Format = iota
	// CSV values are one line without a terminator: src,dst,t,seq,attrs…
	// (no seq column with OmitSeq), quoted as RFC 4180 where needed; a
	// missing attribute is an empty column.
	CSV
)

// ParseFormat reads a format name: "json" or "csv".
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(s) {
	case "json":
		return JSON, nil
	case "csv":
		return CSV, nil
	}
	return 0, fmt.Errorf("edge record: format %q: want json or csv", s)
}

func (f Format) String() string {
	switch f {
	case JSON:
		return "json"
	case CSV:
		return "csv"
	}
	return fmt.Sprintf("Format(%d)", uint8(f))
}

// Fields names the fixed fields of a JSON record. The zero value means
// DefaultFields; an empty name in a non-zero Fields is an error.
type Fields struct {
	Src, Dst, T, Seq string
}

// DefaultFields returns the names the daemon's JSON decoder expects by
// default: src, dst, t and seq.
func DefaultFields() Fields { return Fields{Src: "src", Dst: "dst", T: "t", Seq: "seq"} }

func (f Fields) orDefault() Fields {
	if f == (Fields{}) {
		return DefaultFields()
	}
	return f
}

func (f Fields) check() error {
	names := []string{f.Src, f.Dst, f.T, f.Seq}
	for i, n := range names {
		if n == "" {
			return fmt.Errorf("edge record: JSON field name %d (src, dst, t, seq) is empty", i+1)
		}
		for _, m := range names[:i] {
			if n == m {
				return fmt.Errorf("edge record: JSON field name %q is used twice", n)
			}
		}
	}
	return nil
}

// Reserved says whether name is one of the fixed fields of f (or of
// DefaultFields, for the zero value): an attribute of that name cannot be
// written to a JSON record.
func (f Fields) Reserved(name string) bool { return f.orDefault().reserved(name) }

func (f Fields) reserved(name string) bool {
	return name == f.Src || name == f.Dst || name == f.T || name == f.Seq
}

// AttrKind says which value of an Attr is set.
type AttrKind uint8

const (
	// NumberAttr is a number in Num (the zero value, as window.Number).
	NumberAttr AttrKind = iota
	// StringAttr is a string in Str.
	StringAttr
)

func (k AttrKind) String() string {
	switch k {
	case NumberAttr:
		return "number"
	case StringAttr:
		return "string"
	}
	return fmt.Sprintf("AttrKind(%d)", uint8(k))
}

// Attr is one edge attribute of a Record.
type Attr struct {
	Name string
	Kind AttrKind
	Num  float64 // a NumberAttr's value; NaN means missing
	Str  string  // a StringAttr's value; "" means missing
}

// Record is one edge to produce.
type Record struct {
	Src, Dst string
	// T is the edge time in ticks of ProduceOptions.TimeUnit since the
	// Unix epoch; the message timestamp is that instant.
	T int64
	// Seq orders edges with equal T (the 0-based index in file order).
	Seq   int64
	Attrs []Attr
}

// encoder turns records into message values.
type encoder struct {
	format Format
	fields Fields
	seq    bool
}

// append appends r's encoding to dst.
func (e *encoder) append(dst []byte, r *Record) ([]byte, error) {
	if e.format == CSV {
		return e.appendCSV(dst, r)
	}
	return e.appendJSON(dst, r)
}

func (e *encoder) appendJSON(b []byte, r *Record) ([]byte, error) {
	b = append(b, '{')
	b = appendJSONString(b, e.fields.Src)
	b = append(b, ':')
	b = appendJSONString(b, r.Src)
	b = append(b, ',')
	b = appendJSONString(b, e.fields.Dst)
	b = append(b, ':')
	b = appendJSONString(b, r.Dst)
	b = append(b, ',')
	b = appendJSONString(b, e.fields.T)
	b = append(b, ':')
	b = strconv.AppendInt(b, r.T, 10)
	if e.seq {
		b = append(b, ',')
		b = appendJSONString(b, e.fields.Seq)
		b = append(b, ':')
		b = strconv.AppendInt(b, r.Seq, 10)
	}
	for i := range r.Attrs {
		a := &r.Attrs[i]
		if e.fields.reserved(a.Name) {
			return b, fmt.Errorf("edge record: attribute %q has the name of a fixed JSON field", a.Name)
		}
		switch a.Kind {
		case NumberAttr:
			if math.IsNaN(a.Num) {
				continue
			}
			if math.IsInf(a.Num, 0) {
				return b, fmt.Errorf("edge record: attribute %q is %v, which JSON cannot hold", a.Name, a.Num)
			}
			b = append(b, ',')
			b = appendJSONString(b, a.Name)
			b = append(b, ':')
			b = strconv.AppendFloat(b, a.Num, 'g', -1, 64)
		case StringAttr:
			if a.Str == "" {
				continue
			}
			b = append(b, ',')
			b = appendJSONString(b, a.Name)
			b = append(b, ':')
			b = appendJSONString(b, a.Str)
		default:
			return b, fmt.Errorf("edge record: attribute %q has unknown kind %v", a.Name, a.Kind)
		}
	}
	return append(b, '}'), nil
}

func (e *encoder) appendCSV(b []byte, r *Record) ([]byte, error) {
	b = appendCSVField(b, r.Src)
	b = append(b, ',')
	b = appendCSVField(b, r.Dst)
	b = append(b, ',')
	b = strconv.AppendInt(b, r.T, 10)
	if e.seq {
		b = append(b, ',')
		b = strconv.AppendInt(b, r.Seq, 10)
	}
	for i := range r.Attrs {
		a := &r.Attrs[i]
		b = append(b, ',')
		switch a.Kind {
		case NumberAttr:
			if !math.IsNaN(a.Num) {
				b = strconv.AppendFloat(b, a.Num, 'g', -1, 64)
			}
		case StringAttr:
			b = appendCSVField(b, a.Str)
		default:
			return b, fmt.Errorf("edge record: attribute %q has unknown kind %v", a.Name, a.Kind)
		}
	}
	return b, nil
}

// appendJSONString appends s as a JSON string. Invalid UTF-8 becomes
// U+FFFD, as encoding/json does.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendCSVField appends s, quoted when it holds a comma, a quote or a
// line break, or starts with a space or tab (RFC 4180, as encoding/csv).
func appendCSVField(b []byte, s string) []byte {
	if s == "" || !strings.ContainsAny(s, ",\"\r\n") && s[0] != ' ' && s[0] != '\t' {
		return append(b, s...)
	}
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			b = append(b, '"')
		}
		b = append(b, s[i])
	}
	return append(b, '"')
}

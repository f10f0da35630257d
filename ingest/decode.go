package ingest

import (
	"fmt"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/motifwatch/motifwatch/window"
)

// DecodeOptions configures a Decoder: the record format, where the edge's
// fields are, how timestamps are read and which attributes are kept.
type DecodeOptions struct {
	// Format is "json" (the default when empty) or "csv".
	Format string
	// Src, Dst and Time name the fields (JSON keys, or CSV column names)
	// that hold the source node, the destination node and the timestamp;
	// empty means "src", "dst" and "time".
	Src, Dst, Time string
	// Seq, SrcLabel and DstLabel name optional fields: the record's own
	// sequence number (it orders edges of equal time, see Edge.Seq) and
	// the node labels. Empty means the records do not carry them. A record
	// without the Seq field has no sequence number of its own (HasSeq
	// false: it is ordered by arrival), so that one default, "seq", serves
	// both inputs replayed with their file order and inputs without one; a
	// missing label is "".
	Seq, SrcLabel, DstLabel string
	// CSVColumns names the columns of a CSV record in order: the field
	// names above, attribute names, or "" or "-" for a column that is
	// skipped. Names that are neither fields nor attributes are skipped
	// too. Required with Format "csv", ignored with "json".
	CSVColumns []string
	// TimestampUnit is the unit of numeric timestamps: "s" (the default
	// when empty), "ms", "us" (or "µs") or "ns", counted from the Unix
	// epoch.
	TimestampUnit string
	// TimestampLayout reads timestamps given as strings: "" or "rfc3339"
	// for RFC 3339 (fractional seconds allowed), or a Go time layout such
	// as "2006-01-02 15:04:05" (a layout without a zone reads UTC). A
	// string that holds a number ("1712345678") is read in TimestampUnit
	// either way.
	TimestampLayout string
	// Tick is the window's time unit (window.Schema.TimeUnit; default 1s).
	// An edge's T is floor(timestamp / Tick), the timestamp taken as a
	// duration since the Unix epoch: remainders finer than a tick are
	// floored, not rejected, so with a 1s tick 10.9 s is tick 10 and
	// -0.5 s is tick -1. Digits finer than a nanosecond are floored too.
	Tick time.Duration
	// Attrs lists the edge attributes kept, in the window schema's order;
	// Edge.Attrs is aligned with it. A record field that is not listed is
	// ignored.
	Attrs []window.Attr
	// MaxRecordBytes rejects larger records before parsing them; 0 means
	// no limit.
	MaxRecordBytes int
	// NodeKeys, if set, keys every edge's endpoints (Edge.SrcKey, DstKey)
	// in this dictionary as it is decoded, and gives them the
	// dictionary's copy of the name: the window that shares it
	// (stream.Options.NodeKeys) interns them without a string map, and a
	// known name costs the decoder no allocation. Decoders of several
	// partitions share it.
	NodeKeys *window.Keys
}

// Decoder turns Kafka record values into edges. It is read-only after
// NewDecoder, so one Decoder may be used by several goroutines at once.
type Decoder struct {
	opts   DecodeOptions
	csv    bool
	fields []fieldName // JSON keys and the roles they fill
	byName map[string]fieldRole
	cols   []fieldRole // CSV: role of each column
	ncols  int

	// Timestamps: ticks = floor(v * unitNum / tickDen) for an integer v in
	// units (both reduced by their gcd), or floor(ns / tickNs) for a
	// timestamp in nanoseconds.
	unitNs, tickNs   int64
	unitNum, tickDen int64
	unitDigits       int // log10(unitNs): fraction digits that fit in ns
	layout           string
	layoutDesc       string
}

// fieldRole says what a JSON key or CSV column fills: one of the role
// constants, or an attribute index (>= 0).
type fieldRole int

const (
	roleSkip fieldRole = -1 - iota
	roleSrc
	roleDst
	roleTime
	roleSeq
	roleSrcLabel
	roleDstLabel
)

type fieldName struct {
	name []byte
	role fieldRole
}

// linearFields is how many JSON keys Decode matches by a linear scan
// before it switches to a map lookup.
const linearFields = 8

// NewDecoder checks opts and returns a Decoder for them.
func NewDecoder(opts DecodeOptions) (*Decoder, error) {
	d := &Decoder{opts: opts}
	o := &d.opts
	o.Attrs = slices.Clone(o.Attrs)
	o.CSVColumns = slices.Clone(o.CSVColumns)
	if o.Src == "" {
		o.Src = "src"
	}
	if o.Dst == "" {
		o.Dst = "dst"
	}
	if o.Time == "" {
		o.Time = "time"
	}
	switch o.Format {
	case "", "json":
		o.Format = "json"
	case "csv":
		d.csv = true
	default:
		return nil, fmt.Errorf("decode options: format %q: want json or csv", o.Format)
	}
	if o.MaxRecordBytes < 0 {
		return nil, fmt.Errorf("decode options: max record bytes %d must not be negative", o.MaxRecordBytes)
	}
	if err := d.setTime(); err != nil {
		return nil, err
	}

	// Field names: each names one thing.
	d.byName = make(map[string]fieldRole)
	add := func(what, name string, role fieldRole) error {
		if name == "" {
			return nil
		}
		if prev, ok := d.byName[name]; ok {
			return fmt.Errorf("decode options: %s field %q is also the %s", what, name, d.roleName(prev))
		}
		d.byName[name] = role
		return nil
	}
	for _, f := range []struct {
		what, name string
		role       fieldRole
	}{
		{"src", o.Src, roleSrc}, {"dst", o.Dst, roleDst}, {"time", o.Time, roleTime},
		{"seq", o.Seq, roleSeq}, {"src label", o.SrcLabel, roleSrcLabel}, {"dst label", o.DstLabel, roleDstLabel},
	} {
		if err := add(f.what, f.name, f.role); err != nil {
			return nil, err
		}
	}
	for i, a := range o.Attrs {
		if a.Name == "" {
			return nil, fmt.Errorf("decode options: attribute %d has no name", i)
		}
		if a.Kind != window.Number && a.Kind != window.String {
			return nil, fmt.Errorf("decode options: attribute %q has unknown kind %d", a.Name, a.Kind)
		}
		if err := add("attribute", a.Name, fieldRole(i)); err != nil {
			return nil, err
		}
	}
	for name, role := range d.byName {
		d.fields = append(d.fields, fieldName{[]byte(name), role})
	}

	if !d.csv {
		return d, nil
	}
	if len(o.CSVColumns) == 0 {
		return nil, fmt.Errorf("decode options: format csv needs csv columns")
	}
	seen := make(map[fieldRole]bool)
	for _, name := range o.CSVColumns {
		role, ok := d.byName[name]
		if !ok || name == "-" {
			role = roleSkip
		}
		if role != roleSkip {
			if seen[role] {
				return nil, fmt.Errorf("decode options: csv columns name %q twice", name)
			}
			seen[role] = true
		}
		d.cols = append(d.cols, role)
	}
	d.ncols = len(d.cols)
	for name, role := range d.byName {
		if !seen[role] {
			return nil, fmt.Errorf("decode options: %s %q is not among the csv columns %q", d.roleName(role), name, o.CSVColumns)
		}
	}
	return d, nil
}

// setTime checks the timestamp options and precomputes the conversion.
func (d *Decoder) setTime() error {
	o := &d.opts
	switch o.TimestampUnit {
	case "", "s":
		o.TimestampUnit = "s"
		d.unitNs, d.unitDigits = 1e9, 9
	case "ms":
		d.unitNs, d.unitDigits = 1e6, 6
	case "us", "µs":
		d.unitNs, d.unitDigits = 1e3, 3
	case "ns":
		d.unitNs, d.unitDigits = 1, 0
	default:
		return fmt.Errorf("decode options: timestamp unit %q: want s, ms, us or ns", o.TimestampUnit)
	}
	if o.Tick == 0 {
		o.Tick = time.Second
	}
	if o.Tick < 0 {
		return fmt.Errorf("decode options: tick %v must be positive", o.Tick)
	}
	d.tickNs = int64(o.Tick)
	g := gcd(d.unitNs, d.tickNs)
	d.unitNum, d.tickDen = d.unitNs/g, d.tickNs/g
	switch o.TimestampLayout {
	case "", "rfc3339", "RFC3339":
		d.layout, d.layoutDesc = time.RFC3339Nano, "RFC 3339 time"
	default:
		// A layout must hold at least one time element, and read back
		// what it writes.
		ref := time.Date(2024, 3, 9, 17, 4, 5, 123456789, time.UTC)
		s := ref.Format(o.TimestampLayout)
		if s == o.TimestampLayout {
			return fmt.Errorf("decode options: timestamp layout %q has no time elements", o.TimestampLayout)
		}
		if _, err := time.Parse(o.TimestampLayout, s); err != nil {
			return fmt.Errorf("decode options: timestamp layout %q: %v", o.TimestampLayout, err)
		}
		d.layout, d.layoutDesc = o.TimestampLayout, fmt.Sprintf("time in layout %q", o.TimestampLayout)
	}
	return nil
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// Options returns the options with defaults filled in.
func (d *Decoder) Options() DecodeOptions { return d.opts }

func (d *Decoder) roleName(r fieldRole) string {
	switch r {
	case roleSrc:
		return "src field"
	case roleDst:
		return "dst field"
	case roleTime:
		return "time field"
	case roleSeq:
		return "seq field"
	case roleSrcLabel:
		return "src label field"
	case roleDstLabel:
		return "dst label field"
	}
	return "attribute"
}

// fieldOf returns the configured name of a role, for error reasons.
func (d *Decoder) fieldOf(r fieldRole) string {
	switch r {
	case roleSrc:
		return d.opts.Src
	case roleDst:
		return d.opts.Dst
	case roleTime:
		return d.opts.Time
	case roleSeq:
		return d.opts.Seq
	case roleSrcLabel:
		return d.opts.SrcLabel
	case roleDstLabel:
		return d.opts.DstLabel
	}
	return d.opts.Attrs[r].Name
}

// DecodeError is why a record could not be decoded. Reason is short and
// stable in form, made to be a dead-letter header value, e.g.
// `missing field "dst"` or `timestamp "abc": not a number or RFC 3339
// time`; values quoted in it are cut to 64 bytes.
type DecodeError struct {
	Reason string
	// Oversize reports a record over DecodeOptions.MaxRecordBytes (its
	// own dead-letter class: the record was not parsed).
	Oversize bool
}

func (e *DecodeError) Error() string { return "decoding record: " + e.Reason }

// Unwrap returns ErrMalformed.
func (e *DecodeError) Unwrap() error { return ErrMalformed }

func decodeErr(format string, args ...any) *DecodeError {
	return &DecodeError{Reason: fmt.Sprintf(format, args...)}
}

// maxQuoted is how much of a bad value an error reason quotes.
const maxQuoted = 64

// quote quotes b for an error reason, cut to maxQuoted bytes on a rune
// boundary.
func quote(b []byte) string {
	if len(b) <= maxQuoted {
		return strconv.Quote(string(b))
	}
	n := maxQuoted
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return strconv.Quote(string(b[:n])) + "…"
}

// Decode decodes one record value into an edge from origin. A record that
// cannot be decoded returns a *DecodeError. src == dst is not an error
// here: self-loops are counted downstream.
func (d *Decoder) Decode(value []byte, origin Origin) (Edge, error) {
	if d.opts.MaxRecordBytes > 0 && len(value) > d.opts.MaxRecordBytes {
		return Edge{}, &DecodeError{
			Reason:   fmt.Sprintf("record of %d bytes exceeds max_record_bytes %d", len(value), d.opts.MaxRecordBytes),
			Oversize: true,
		}
	}
	var (
		e   Edge
		err *DecodeError
	)
	if d.csv {
		e, err = d.decodeCSV(value)
	} else {
		e, err = d.decodeJSON(value)
	}
	if err != nil {
		return Edge{}, err
	}
	e.Origin = origin
	return e, nil
}

// record collects the fields of one record as they are found.
type record struct {
	e              Edge
	hasSrc, hasDst bool
	hasTime        bool
}

// finish checks that the required fields were found.
func (d *Decoder) finish(r *record) *DecodeError {
	switch {
	case !r.hasSrc:
		return decodeErr("missing field %q", d.opts.Src)
	case !r.hasDst:
		return decodeErr("missing field %q", d.opts.Dst)
	case !r.hasTime:
		return decodeErr("missing field %q", d.opts.Time)
	}
	return nil
}

// node returns the node id in b (an endpoint: src or dst) as a string,
// and its key when the decoder keys nodes.
func (d *Decoder) node(b []byte) (string, window.Key) {
	if d.opts.NodeKeys == nil {
		return string(b), 0
	}
	k, s := d.opts.NodeKeys.OfBytes(b)
	return s, k
}

// keyNode keys an endpoint decoded as a string already (an escaped JSON
// string).
func (d *Decoder) keyNode(s string) (string, window.Key) {
	if d.opts.NodeKeys == nil {
		return s, 0
	}
	k, s := d.opts.NodeKeys.Of(s)
	return s, k
}

func (d *Decoder) newAttrs() []Value {
	if len(d.opts.Attrs) == 0 {
		return nil
	}
	vs := make([]Value, len(d.opts.Attrs))
	for i, a := range d.opts.Attrs {
		vs[i].Kind = a.Kind
	}
	return vs
}

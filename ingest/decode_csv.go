package ingest

import (
	"unicode/utf8"

	"github.com/motifwatch/motifwatch/window"
)

// decodeCSV reads one CSV record: fields separated by commas, where a
// field may be quoted ("a, b" and "say ""hi""" as in RFC 4180) and
// unquoted fields are trimmed of surrounding spaces and tabs; a record
// without commas or quotes is split on runs of whitespace instead (SNAP
// text: "1 2 1712345678"). A trailing line break is ignored. The record
// must have exactly one field per column. An empty field is a missing
// value.
func (d *Decoder) decodeCSV(b []byte) (Edge, *DecodeError) {
	b = trimLine(b)
	if len(b) == 0 {
		return Edge{}, decodeErr("empty record")
	}
	var buf [16][]byte
	fields, err := splitCSV(buf[:0], b)
	if err != nil {
		return Edge{}, err
	}
	if len(fields) != d.ncols {
		return Edge{}, decodeErr("record has %d fields, want %d (csv columns)", len(fields), d.ncols)
	}
	var r record
	r.e.Attrs = d.newAttrs()
	for i, f := range fields {
		role := d.cols[i]
		if role == roleSkip || len(f) == 0 {
			continue // an empty required field is reported missing
		}
		if textRole(role, d.opts.Attrs) && !utf8.Valid(f) {
			// Kept as they are, the bytes would be an id that JSON
			// output (alerts, dead letters) cannot tell from another.
			return Edge{}, decodeErr("field %q: invalid UTF-8 in %s", d.fieldOf(role), quote(f))
		}
		switch role {
		case roleSrc:
			r.e.Src, r.e.SrcKey = d.node(f)
			r.hasSrc = true
		case roleDst:
			r.e.Dst, r.e.DstKey = d.node(f)
			r.hasDst = true
		case roleSrcLabel:
			r.e.SrcLabel = string(f)
		case roleDstLabel:
			r.e.DstLabel = string(f)
		case roleTime:
			t, err := d.timeFromText(f)
			if err != nil {
				return Edge{}, err
			}
			r.e.T, r.hasTime = t, true
		case roleSeq:
			seq, err := d.parseSeq(f)
			if err != nil {
				return Edge{}, err
			}
			r.e.Seq, r.e.HasSeq = seq, true
		default:
			a := &d.opts.Attrs[role]
			val := &r.e.Attrs[role]
			if a.Kind == window.String {
				val.Str, val.Set = string(f), true
				continue
			}
			v, ok := parseFloat(f)
			if !ok {
				return Edge{}, decodeErr("attribute %q: %s is not a number", a.Name, quote(f))
			}
			val.Num, val.Set = v, true
		}
	}
	if err := d.finish(&r); err != nil {
		return Edge{}, err
	}
	return r.e, nil
}

// textRole reports that a field is read as text: a node id, a label or a
// string attribute.
func textRole(role fieldRole, attrs []window.Attr) bool {
	switch role {
	case roleSrc, roleDst, roleSrcLabel, roleDstLabel:
		return true
	case roleTime, roleSeq, roleSkip:
		return false
	}
	return attrs[role].Kind == window.String
}

// splitCSV appends the fields of a trimmed, non-empty record to dst.
func splitCSV(dst [][]byte, b []byte) ([][]byte, *DecodeError) {
	special := false
	for _, c := range b {
		if c == ',' || c == '"' {
			special = true
			break
		}
	}
	if !special {
		// SNAP text: runs of whitespace separate fields.
		return splitFields(dst, b), nil
	}
	i := 0
	for {
		for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
			i++
		}
		var f []byte
		if i < len(b) && b[i] == '"' {
			var err *DecodeError
			f, i, err = quotedField(b, i)
			if err != nil {
				return nil, err
			}
			for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
				i++
			}
			if i < len(b) && b[i] != ',' {
				return nil, decodeErr("csv: text after quoted field at byte %d", i)
			}
		} else {
			j := i
			for j < len(b) && b[j] != ',' {
				if b[j] == '"' {
					return nil, decodeErr("csv: quote inside unquoted field at byte %d", j)
				}
				j++
			}
			f = b[i:j]
			for len(f) > 0 && (f[len(f)-1] == ' ' || f[len(f)-1] == '\t') {
				f = f[:len(f)-1]
			}
			i = j
		}
		dst = append(dst, f)
		if i == len(b) {
			return dst, nil
		}
		i++ // the comma
	}
}

// quotedField reads the quoted field starting at b[i] == '"' and returns
// its value ("" unescaped to ") and the index after the closing quote.
func quotedField(b []byte, i int) ([]byte, int, *DecodeError) {
	start := i
	i++
	var out []byte // nil until an escaped quote needs a copy
	from := i
	for i < len(b) {
		if b[i] != '"' {
			i++
			continue
		}
		if i+1 < len(b) && b[i+1] == '"' {
			out = append(out, b[from:i+1]...)
			i += 2
			from = i
			continue
		}
		if out == nil {
			return b[from:i], i + 1, nil
		}
		return append(out, b[from:i]...), i + 1, nil
	}
	return nil, 0, decodeErr("csv: unterminated quoted field at byte %d", start)
}

package ingest

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/motifwatch/motifwatch/window"
)

// decodeJSON reads one JSON object. Keys are matched against the
// configured names as written (escaped keys are unescaped first);
// duplicate keys: the last wins, as in encoding/json.
func (d *Decoder) decodeJSON(b []byte) (Edge, *DecodeError) {
	var r record
	r.e.Attrs = d.newAttrs()
	s := jsonScanner{b: b}
	s.ws()
	if s.i == len(b) {
		return Edge{}, decodeErr("empty record")
	}
	if b[s.i] != '{' {
		return Edge{}, decodeErr("record is not a JSON object")
	}
	s.i++
	s.ws()
	if s.peek() == '}' {
		s.i++
	} else {
		for {
			if s.peek() != '"' {
				return Edge{}, s.unexpected("object key")
			}
			key, err := s.str()
			if err != nil {
				return Edge{}, err
			}
			s.ws()
			if s.peek() != ':' {
				return Edge{}, s.unexpected("':'")
			}
			s.i++
			s.ws()
			v, err := s.value(1)
			if err != nil {
				return Edge{}, err
			}
			if role := d.lookup(&key); role != roleSkip {
				if err := d.setJSON(&r, role, &v); err != nil {
					return Edge{}, err
				}
			}
			s.ws()
			c := s.peek()
			s.i++
			if c == '}' {
				break
			}
			if c != ',' {
				s.i--
				return Edge{}, s.unexpected("',' or '}'")
			}
			s.ws()
		}
	}
	s.ws()
	if s.i != len(b) {
		return Edge{}, s.unexpected("end of record")
	}
	if err := d.finish(&r); err != nil {
		return Edge{}, err
	}
	return r.e, nil
}

// lookup returns the role of a JSON key.
func (d *Decoder) lookup(key *jsonValue) fieldRole {
	name := key.raw
	if key.esc {
		s, ok := unquoteJSON(key.quoted)
		if !ok {
			return roleSkip
		}
		name = []byte(s)
	}
	if len(d.fields) <= linearFields {
		for i := range d.fields {
			if string(d.fields[i].name) == string(name) {
				return d.fields[i].role
			}
		}
		return roleSkip
	}
	if r, ok := d.byName[string(name)]; ok {
		return r
	}
	return roleSkip
}

// setJSON stores a JSON value in the record field that role names.
func (d *Decoder) setJSON(r *record, role fieldRole, v *jsonValue) *DecodeError {
	switch role {
	case roleSrc, roleDst, roleSrcLabel, roleDstLabel:
		if v.kind == jNull && (role == roleSrcLabel || role == roleDstLabel) {
			return nil // no label
		}
		id, key, err := d.jsonID(role, v)
		if err != nil {
			return err
		}
		switch role {
		case roleSrc:
			r.e.Src, r.e.SrcKey, r.hasSrc = id, key, true
		case roleDst:
			r.e.Dst, r.e.DstKey, r.hasDst = id, key, true
		case roleSrcLabel:
			r.e.SrcLabel = id
		case roleDstLabel:
			r.e.DstLabel = id
		}
	case roleTime:
		var (
			t   int64
			err *DecodeError
		)
		switch v.kind {
		case jNumber:
			t, err, _ = d.timeFromNumber(v.raw) // a JSON number is a number
		case jString:
			raw := v.raw
			if v.esc {
				s, _ := unquoteJSON(v.quoted)
				raw = []byte(s)
			}
			t, err = d.timeFromText(raw)
		default:
			return decodeErr("field %q: got %s, want a number or string timestamp", d.opts.Time, v.kind)
		}
		if err != nil {
			return err
		}
		r.e.T, r.hasTime = t, true
	case roleSeq:
		raw := v.raw
		switch v.kind {
		case jNumber:
		case jString:
			if v.esc {
				s, _ := unquoteJSON(v.quoted)
				raw = []byte(s)
			}
		case jNull:
			return nil // missing: finish reports it
		default:
			return decodeErr("field %q: got %s, want an integer", d.opts.Seq, v.kind)
		}
		seq, err := d.parseSeq(raw)
		if err != nil {
			return err
		}
		r.e.Seq, r.e.HasSeq = seq, true
	default:
		a := &d.opts.Attrs[role]
		val := &r.e.Attrs[role]
		switch {
		case v.kind == jNull:
			return nil
		case a.Kind == window.Number && v.kind == jNumber:
			f, ok := parseFloat(v.raw)
			if !ok {
				return decodeErr("attribute %q: %s is not a number", a.Name, quote(v.raw))
			}
			val.Num, val.Set = f, true
		case a.Kind == window.String && v.kind == jString:
			str, err := jsonString(v, a.Name)
			if err != nil {
				return err
			}
			val.Str, val.Set = str, true
		default:
			return decodeErr("attribute %q: got %s, want %s", a.Name, v.kind, a.Kind)
		}
	}
	return nil
}

// jsonID reads a node id or label: a string, or an integer in base 10
// (so 17 and "17" are the same node). An endpoint (src, dst) is keyed
// when the decoder keys nodes (DecodeOptions.NodeKeys).
func (d *Decoder) jsonID(role fieldRole, v *jsonValue) (string, window.Key, *DecodeError) {
	name := d.fieldOf(role)
	endpoint := role == roleSrc || role == roleDst
	switch v.kind {
	case jString:
		if endpoint && len(v.raw) == 0 {
			return "", 0, decodeErr("field %q is empty", name)
		}
		if endpoint && !v.esc && (v.ascii || utf8.Valid(v.raw)) {
			s, k := d.node(v.raw) // jsonString's case without escapes
			return s, k, nil
		}
		s, err := jsonString(v, name)
		if err != nil {
			return "", 0, err
		}
		if s == "" && endpoint {
			return "", 0, decodeErr("field %q is empty", name)
		}
		if endpoint {
			s, k := d.keyNode(s)
			return s, k, nil
		}
		return s, 0, nil
	case jNumber:
		if !v.isInt {
			return "", 0, decodeErr("field %q: %s is not an integer or string", name, quote(v.raw))
		}
		raw := v.raw
		if string(raw) == "-0" {
			raw = zeroID
		}
		if endpoint {
			s, k := d.node(raw)
			return s, k, nil
		}
		return string(raw), 0, nil
	case jNull:
		return "", 0, decodeErr("field %q is null", name)
	}
	return "", 0, decodeErr("field %q: got %s, want a string or integer", name, v.kind)
}

// zeroID is the node id of the JSON numbers 0 and -0.
var zeroID = []byte("0")

func (d *Decoder) parseSeq(b []byte) (int64, *DecodeError) {
	seq, st := parseInt(b)
	switch st {
	case intSyntax:
		return 0, decodeErr("field %q: %s is not an integer", d.opts.Seq, quote(b))
	case intRange:
		return 0, decodeErr("field %q: %s is out of range", d.opts.Seq, quote(b))
	}
	return seq, nil
}

// jsonString returns the value of the JSON string in field (named in the
// error). A string that is not valid UTF-8, in its bytes or through an
// escaped lone surrogate ("\ud800"), is an error: encoding/json would
// replace each bad sequence with U+FFFD, so two different ids ("\xff"
// and "\xfe") would become one node. Strings without escapes are copied
// as they are; the rest go through encoding/json.
func jsonString(v *jsonValue, field string) (string, *DecodeError) {
	if !v.ascii && !utf8.Valid(v.raw) {
		return "", decodeErr("field %q: invalid UTF-8 in %s", field, quote(v.raw))
	}
	if !v.esc {
		return string(v.raw), nil
	}
	if !validSurrogates(v.raw) {
		return "", decodeErr("field %q: %s escapes a lone UTF-16 surrogate (not a character)", field, quote(v.raw))
	}
	s, ok := unquoteJSON(v.quoted)
	if !ok {
		return "", decodeErr("invalid JSON string %s", quote(v.quoted))
	}
	return s, nil
}

// validSurrogates reports that every \u escape of a UTF-16 surrogate in
// raw (a scanned string's text, escapes well-formed) is a high one
// directly followed by a low one: a pair that encodes one character.
func validSurrogates(raw []byte) bool {
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		i++ // the escaped byte
		if raw[i] != 'u' {
			continue
		}
		r := hex4(raw[i+1 : i+5])
		i += 4
		switch {
		case r >= 0xdc00 && r <= 0xdfff:
			return false // a low surrogate first
		case r >= 0xd800 && r <= 0xdbff:
			if i+6 >= len(raw) || raw[i+1] != '\\' || raw[i+2] != 'u' {
				return false
			}
			if lo := hex4(raw[i+3 : i+7]); lo < 0xdc00 || lo > 0xdfff {
				return false
			}
			i += 6
		}
	}
	return true
}

// hex4 reads four hex digits (already checked by the scanner).
func hex4(b []byte) rune {
	var r rune
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// jsonKind is the type of a JSON value.
type jsonKind uint8

const (
	jString jsonKind = iota + 1
	jNumber
	jBool
	jNull
	jObject
	jArray
)

func (k jsonKind) String() string {
	switch k {
	case jString:
		return "string"
	case jNumber:
		return "number"
	case jBool:
		return "boolean"
	case jNull:
		return "null"
	case jObject:
		return "object"
	case jArray:
		return "array"
	}
	return "nothing"
}

// jsonValue is one scanned JSON value, aliasing the record.
type jsonValue struct {
	kind jsonKind
	// raw is a string's text between the quotes (escapes not undone), or
	// a number's text.
	raw []byte
	// quoted is a string's text with its quotes, for unquoteJSON.
	quoted []byte
	esc    bool // the string has escapes
	ascii  bool // the string is all ASCII
	isInt  bool // the number has no fraction or exponent
}

// maxDepth bounds the nesting of skipped JSON values.
const maxDepth = 1000

// jsonScanner is a strict JSON (RFC 8259) scanner over one record. It
// validates everything it passes over, skipped values included, but
// builds nothing: values alias the record.
type jsonScanner struct {
	b []byte
	i int
}

func (s *jsonScanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// peek returns the next byte, or 0 at the end.
func (s *jsonScanner) peek() byte {
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// unexpected reports what stands at the scan position instead of want.
func (s *jsonScanner) unexpected(want string) *DecodeError {
	if s.i >= len(s.b) {
		return decodeErr("invalid JSON: unexpected end of record, want %s", want)
	}
	r, _ := utf8.DecodeRune(s.b[s.i:])
	return decodeErr("invalid JSON at byte %d: unexpected %q, want %s", s.i, r, want)
}

// value scans the value at the scan position.
func (s *jsonScanner) value(depth int) (jsonValue, *DecodeError) {
	switch c := s.peek(); {
	case c == '"':
		return s.str()
	case c == '-' || c >= '0' && c <= '9':
		return s.number()
	case c == 't':
		return s.literal("true", jBool)
	case c == 'f':
		return s.literal("false", jBool)
	case c == 'n':
		return s.literal("null", jNull)
	case c == '{' || c == '[':
		if depth >= maxDepth {
			return jsonValue{}, decodeErr("invalid JSON: nested deeper than %d", maxDepth)
		}
		kind := jObject
		if c == '[' {
			kind = jArray
		}
		return jsonValue{kind: kind}, s.composite(depth + 1)
	}
	return jsonValue{}, s.unexpected("a value")
}

func (s *jsonScanner) literal(word string, kind jsonKind) (jsonValue, *DecodeError) {
	if len(s.b)-s.i < len(word) || string(s.b[s.i:s.i+len(word)]) != word {
		return jsonValue{}, s.unexpected("a value")
	}
	s.i += len(word)
	return jsonValue{kind: kind}, nil
}

// composite skips the object or array at the scan position.
func (s *jsonScanner) composite(depth int) *DecodeError {
	obj := s.b[s.i] == '{'
	end := byte(']')
	if obj {
		end = '}'
	}
	s.i++
	s.ws()
	if s.peek() == end {
		s.i++
		return nil
	}
	for {
		if obj {
			if s.peek() != '"' {
				return s.unexpected("object key")
			}
			if _, err := s.str(); err != nil {
				return err
			}
			s.ws()
			if s.peek() != ':' {
				return s.unexpected("':'")
			}
			s.i++
			s.ws()
		}
		if _, err := s.value(depth); err != nil {
			return err
		}
		s.ws()
		switch s.peek() {
		case ',':
			s.i++
			s.ws()
		case end:
			s.i++
			return nil
		default:
			return s.unexpected(fmt.Sprintf("',' or '%c'", end))
		}
	}
}

// strSpecial marks the bytes that stop the fast loop of str: the quote,
// the backslash, control characters and non-ASCII bytes.
var strSpecial = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c == '"' || c == '\\' || c < 0x20 || c >= 0x80
	}
	return t
}()

// str scans the string at the scan position.
func (s *jsonScanner) str() (jsonValue, *DecodeError) {
	v := jsonValue{kind: jString, ascii: true}
	start := s.i
	b := s.b
	i := s.i + 1
	for {
		for i < len(b) && !strSpecial[b[i]] {
			i++
		}
		if i == len(b) {
			s.i = i
			return v, decodeErr("invalid JSON: unterminated string at byte %d", start)
		}
		switch c := b[i]; {
		case c == '"':
			v.raw = b[start+1 : i]
			v.quoted = b[start : i+1]
			s.i = i + 1
			return v, nil
		case c == '\\':
			v.esc = true
			i++
			if i == len(b) {
				continue // unterminated
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				if len(b)-i < 5 || !isHex(b[i+1]) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) {
					return v, decodeErr("invalid JSON at byte %d: bad \\u escape", i-1)
				}
				i += 5
			default:
				return v, decodeErr("invalid JSON at byte %d: bad escape", i-1)
			}
		case c < 0x20:
			return v, decodeErr("invalid JSON at byte %d: control character in string", i)
		default: // non-ASCII
			v.ascii = false
			i++
		}
	}
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// number scans -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?.
func (s *jsonScanner) number() (jsonValue, *DecodeError) {
	start := s.i
	v := jsonValue{kind: jNumber, isInt: true}
	if s.peek() == '-' {
		s.i++
	}
	switch c := s.peek(); {
	case c == '0':
		s.i++
	case c >= '1' && c <= '9':
		s.digits()
	default:
		return v, s.unexpected("a digit")
	}
	if s.peek() == '.' {
		s.i++
		v.isInt = false
		if s.digits() == 0 {
			return v, s.unexpected("a digit")
		}
	}
	if c := s.peek(); c == 'e' || c == 'E' {
		s.i++
		v.isInt = false
		if c := s.peek(); c == '+' || c == '-' {
			s.i++
		}
		if s.digits() == 0 {
			return v, s.unexpected("a digit")
		}
	}
	v.raw = s.b[start:s.i]
	return v, nil
}

func (s *jsonScanner) digits() int {
	start := s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i - start
}

// unquoteJSON undoes a JSON string's escapes (quoted includes the
// quotes). It is the slow path, for strings with escapes or non-UTF-8
// bytes.
func unquoteJSON(quoted []byte) (string, bool) {
	var str string
	if err := json.Unmarshal(quoted, &str); err != nil {
		return "", false
	}
	return str, true
}

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// What `monitor alerts` prints comes from outside: node ids, labels and
// attribute values are the edge producers', names and descriptions the
// query authors', and anyone who can write to the alert topic can write a
// record. A terminal acts on some characters instead of showing them
// (escape sequences that clear the screen or retitle the window, a
// newline or line separator that forges a line, bidi overrides that
// reorder what is shown), so none of them reaches it raw.

// termText returns s with every character a terminal would not simply
// show as a Go-style escape: C0 controls and DEL (\x1b, \n, \x7f), and
// every non-printing rune (C1 controls, the line and paragraph
// separators, bidi and other format characters, non-breaking and other
// unusual spaces) as \uXXXX; bytes that are not UTF-8 as \xNN. Printable
// text, accents and arrows included, is kept as it is. It is for the
// readable form only: --json keeps the record's exact values (jsonLine).
func termText(s string) string {
	i := strings.IndexFunc(s, func(r rune) bool { return !termSafe(r) })
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for s = s[i:]; s != ""; {
		r, n := utf8.DecodeRuneInString(s)
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[0])
		case termSafe(r):
			b.WriteString(s[:n])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
		s = s[n:]
	}
	return b.String()
}

// termSafe reports whether a terminal shows r as a character of its own.
// U+FFFD is left out, so that a record's own replacement character is
// told from one a decoder put in (both look alike).
func termSafe(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 0x20 && r < 0x7f
	}
	return r != utf8.RuneError && unicode.IsPrint(r)
}

// jsonLine returns an alert record's JSON as one line a terminal shows as
// it is, and that still decodes to the same values: the insignificant
// whitespace dropped (a record spread over lines would print as several),
// then every character outside printable ASCII that is not printable
// (DEL, C1 controls, U+2028 and U+2029, bidi overrides; they can only be
// inside strings now) written as a \u escape, and bytes that are not
// UTF-8 as \ufffd, which is what a JSON decoder makes of them. raw must
// be valid JSON (the record was decoded).
func jsonLine(raw []byte) ([]byte, error) {
	var c bytes.Buffer
	if err := json.Compact(&c, raw); err != nil {
		return nil, err
	}
	in := c.Bytes()
	if bytes.IndexFunc(in, func(r rune) bool { return !termSafe(r) }) < 0 {
		return in, nil
	}
	out := make([]byte, 0, len(in)+16)
	for len(in) > 0 {
		r, n := utf8.DecodeRune(in)
		switch {
		case r == utf8.RuneError && n == 1:
			out = append(out, `\ufffd`...)
		case termSafe(r):
			out = append(out, in[:n]...)
		case r > 0xffff:
			r1, r2 := utf16.EncodeRune(r)
			out = fmt.Appendf(out, `\u%04x\u%04x`, r1, r2)
		default:
			out = fmt.Appendf(out, `\u%04x`, r)
		}
		in = in[n:]
	}
	return out, nil
}

package ingest

import (
	"math/big"
	"time"
)

// Timestamps become ticks exactly: a number is read digit by digit, never
// through a float64, so 1712345678.123 s is 1712345678123 ms, and the
// result is floor(timestamp in ns / tick in ns) in integers (math/big
// only when an intermediate overflows an int64, past the year 2262).

// timeFromText reads a timestamp written as text (a JSON string or a CSV
// field): a time in the configured layout, or a number in the timestamp
// unit.
func (d *Decoder) timeFromText(b []byte) (int64, *DecodeError) {
	custom := d.layout != time.RFC3339Nano
	if custom {
		// A custom layout may look like a number ("20060102150405"):
		// it goes first.
		if t, err := time.Parse(d.layout, string(b)); err == nil {
			return d.timeFromTime(b, t)
		}
	}
	if t, err, ok := d.timeFromNumber(b); ok {
		return t, err
	}
	if !custom {
		if t, err := time.Parse(d.layout, string(b)); err == nil {
			return d.timeFromTime(b, t)
		}
	}
	return 0, decodeErr("timestamp %s: not a number or %s", quote(b), d.layoutDesc)
}

func (d *Decoder) timeFromTime(b []byte, t time.Time) (int64, *DecodeError) {
	v, ok := mulAddDiv(t.Unix(), 1e9, int64(t.Nanosecond()), d.tickNs)
	if !ok {
		return 0, decodeErr("timestamp %s: out of range", quote(b))
	}
	return v, nil
}

// timeFromNumber converts a number in the timestamp unit. ok is false when
// b is not a number.
func (d *Decoder) timeFromNumber(b []byte) (t int64, err *DecodeError, ok bool) {
	if v, st := parseInt(b); st == intOK {
		if t, ok := mulAddDiv(v, d.unitNum, 0, d.tickDen); ok {
			return t, nil, true
		}
		return 0, decodeErr("timestamp %s: out of range", quote(b)), true
	}
	n, ok := parseDecimal(b)
	if !ok {
		return 0, nil, false
	}
	// ns = whole * unitNs + the first unitDigits fraction digits; finer
	// digits are floored.
	whole, frac, rest, ok := n.split(d.unitDigits)
	if !ok {
		return 0, decodeErr("timestamp %s: out of range", quote(b)), true
	}
	if n.neg {
		whole, frac = -whole, -frac
		if rest {
			// The value lies strictly between ns-1 and ns, so its
			// floor in ticks is that of ns-1.
			frac--
		}
	}
	if t, ok = mulAddDiv(whole, d.unitNs, frac, d.tickNs); !ok {
		return 0, decodeErr("timestamp %s: out of range", quote(b)), true
	}
	return t, nil, true
}

// decimal is a number in text: the digits of intPart then fracPart, with
// the decimal point `point` digits from the start (an exponent moves it:
// 1.5e3 has point 4, and may put it outside the digits).
type decimal struct {
	neg               bool
	intPart, fracPart []byte // intPart without leading zeros
	point             int
}

// maxPoint bounds a decimal's exponent, far beyond any timestamp.
const maxPoint = 1000

// parseDecimal parses [+-]digits[.digits][(e|E)[+-]digits], with at least
// one digit before the exponent ("5.", ".5" and "1e9" are numbers).
func parseDecimal(b []byte) (decimal, bool) {
	var n decimal
	i := 0
	if i < len(b) && (b[i] == '-' || b[i] == '+') {
		n.neg = b[i] == '-'
		i++
	}
	start := i
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	n.intPart = b[start:i]
	if i < len(b) && b[i] == '.' {
		i++
		start = i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		n.fracPart = b[start:i]
	}
	if len(n.intPart)+len(n.fracPart) == 0 {
		return n, false
	}
	exp := 0
	if i < len(b) {
		if b[i] != 'e' && b[i] != 'E' {
			return n, false
		}
		i++
		neg := false
		if i < len(b) && (b[i] == '-' || b[i] == '+') {
			neg = b[i] == '-'
			i++
		}
		if i == len(b) {
			return n, false
		}
		for ; i < len(b); i++ {
			c := b[i]
			if c < '0' || c > '9' {
				return n, false
			}
			if exp < 1e6 {
				exp = exp*10 + int(c-'0')
			}
		}
		if neg {
			exp = -exp
		}
	}
	for len(n.intPart) > 0 && n.intPart[0] == '0' {
		n.intPart = n.intPart[1:]
	}
	n.point = max(min(len(n.intPart)+exp, maxPoint), -maxPoint)
	return n, true
}

// digit returns digit i of the number (0 outside its digits).
func (n *decimal) digit(i int) int64 {
	switch {
	case i < 0:
		return 0
	case i < len(n.intPart):
		return int64(n.intPart[i] - '0')
	case i < len(n.intPart)+len(n.fracPart):
		return int64(n.fracPart[i-len(n.intPart)] - '0')
	}
	return 0
}

// split returns the integer part, the first fd fraction digits as an
// integer, and whether any nonzero digit follows those. ok is false when
// the integer part does not fit an int64.
func (n *decimal) split(fd int) (whole, frac int64, rest, ok bool) {
	ndig := len(n.intPart) + len(n.fracPart)
	for i := 0; i < n.point; i++ {
		dg := n.digit(i)
		if whole > (1<<63-1-dg)/10 {
			return 0, 0, false, false
		}
		whole = whole*10 + dg
	}
	for i := n.point; i < n.point+fd; i++ {
		frac = frac*10 + n.digit(i)
	}
	for i := max(n.point+fd, 0); i < ndig; i++ {
		if n.digit(i) != 0 {
			rest = true
			break
		}
	}
	return whole, frac, rest, true
}

// mulAddDiv returns floor((a*m + c) / d) for m, d > 0, and whether it fits
// an int64.
func mulAddDiv(a, m, c, d int64) (int64, bool) {
	if p, ok := mul64(a, m); ok {
		if s := p + c; (c >= 0) == (s >= p) {
			return floorDiv(s, d), true
		}
	}
	x := new(big.Int).Mul(big.NewInt(a), big.NewInt(m))
	x.Add(x, big.NewInt(c))
	// Div is Euclidean division: with d > 0 it is the floor.
	x.Div(x, big.NewInt(d))
	if !x.IsInt64() {
		return 0, false
	}
	return x.Int64(), true
}

func mul64(a, m int64) (int64, bool) {
	if a == 0 || m == 0 {
		return 0, true
	}
	p := a * m
	if p/m != a || (a == -1 && m == -1<<63) || (m == -1 && a == -1<<63) {
		return 0, false
	}
	return p, true
}

func floorDiv(a, d int64) int64 {
	q := a / d
	if a%d != 0 && (a < 0) != (d < 0) {
		q--
	}
	return q
}

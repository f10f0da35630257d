package bincache

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
)

// Encoder appends little-endian values to B, for a cache header.
type Encoder struct{ B []byte }

func (e *Encoder) U32(v uint32) { e.B = binary.LittleEndian.AppendUint32(e.B, v) }
func (e *Encoder) I64(v int64)  { e.B = binary.LittleEndian.AppendUint64(e.B, uint64(v)) }
func (e *Encoder) Bool(v bool) {
	if v {
		e.U32(1)
	} else {
		e.U32(0)
	}
}
func (e *Encoder) Str(s string) { e.U32(uint32(len(s))); e.B = append(e.B, s...) }

// Strs writes a counted list of strings.
func (e *Encoder) Strs(ss []string) {
	e.U32(uint32(len(ss)))
	for _, s := range ss {
		e.Str(s)
	}
}

// Decoder reads what Encoder wrote from B; the first overrun sets Err and
// every later read returns zeros.
type Decoder struct {
	B   []byte
	Off int
	Err error
}

// Bytes returns the next n bytes.
func (d *Decoder) Bytes(n int) []byte {
	if d.Err != nil || n < 0 || n > len(d.B)-d.Off {
		if d.Err == nil {
			d.Err = io.ErrUnexpectedEOF
		}
		return make([]byte, max(n, 0))
	}
	b := d.B[d.Off : d.Off+n]
	d.Off += n
	return b
}

func (d *Decoder) U32() uint32 { return binary.LittleEndian.Uint32(d.Bytes(4)) }
func (d *Decoder) I64() int64  { return int64(binary.LittleEndian.Uint64(d.Bytes(8))) }
func (d *Decoder) Bool() bool  { return d.U32() == 1 }
func (d *Decoder) Str() string { return string(d.Bytes(int(d.U32()))) }

// Count reads a length that must fit in what is left (each entry takes at
// least 4 bytes), so a damaged one cannot make the reader loop for long.
func (d *Decoder) Count() int {
	n := int(d.U32())
	if n > (len(d.B)-d.Off)/4 {
		if d.Err == nil {
			d.Err = fmt.Errorf("count %d past the header's end", n)
		}
		return 0
	}
	return n
}

// Strs reads a counted list of strings, sharing one allocation.
func (d *Decoder) Strs() []string {
	n := d.Count()
	start := d.Off
	lens := make([]int, n)
	for i := range n {
		lens[i] = int(d.U32())
		d.Bytes(lens[i])
	}
	if d.Err != nil {
		return nil
	}
	var all bytes.Buffer
	all.Grow(d.Off - start - 4*n)
	d2 := &Decoder{B: d.B[start:d.Off]}
	for range n {
		all.Write(d2.Bytes(int(d2.U32())))
	}
	s := all.String()
	out := make([]string, n)
	at := 0
	for i, l := range lens {
		out[i] = s[at : at+l]
		at += l
	}
	return out
}

// Done reports the first error, or an error if bytes are left over.
func (d *Decoder) Done() error {
	if d.Err != nil {
		return d.Err
	}
	if d.Off != len(d.B) {
		return fmt.Errorf("%d trailing header bytes", len(d.B)-d.Off)
	}
	return nil
}

package textfile

import (
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
)

// TestBlocksCutAtLineEnds: random texts, read in pieces of any size, come
// back as blocks of whole lines that join into the text's lines, but that
// a line longer than maxLine+1 may keep only its first maxLine+1 bytes
// (where it ran past that unfinished); the bytes left out are counted.
func TestBlocksCutAtLineEnds(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for trial := range 500 {
		var text strings.Builder
		maxLine := 1 + r.IntN(40)
		for range r.IntN(80) {
			n := r.IntN(30)
			if r.IntN(10) == 0 {
				n = r.IntN(300) // over-long lines, some far over
			}
			line := strings.Repeat(string(rune('a'+r.IntN(26))), n)
			text.WriteString(line)
			text.WriteByte('\n')
		}
		if r.IntN(2) == 0 { // a last line without '\n'
			text.WriteString(strings.Repeat("z", r.IntN(100)))
		}
		var in io.Reader = strings.NewReader(text.String())
		switch r.IntN(3) {
		case 0:
			in = iotest.OneByteReader(in)
		case 1:
			in = iotest.HalfReader(in)
		}
		size := 1 + r.IntN(100)
		b := NewBlocks(in, size, maxLine)
		var got strings.Builder
		var dropped int64
		midLine := false
		for {
			blk, err := b.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("trial %d: %v", trial, err)
			}
			if len(blk.Data) == 0 {
				t.Fatalf("trial %d: an empty block", trial)
			}
			got.Write(blk.Data)
			dropped += blk.Dropped
			if midLine {
				t.Fatalf("trial %d: a block ended mid-line before the last", trial)
			}
			midLine = !strings.HasSuffix(string(blk.Data), "\n")
		}
		gl, tl := strings.Split(got.String(), "\n"), strings.Split(text.String(), "\n")
		if len(gl) != len(tl) {
			t.Fatalf("trial %d (size %d, maxLine %d): %d lines; the text has %d", trial, size, maxLine, len(gl), len(tl))
		}
		for i := range gl {
			if gl[i] != tl[i] && (len(tl[i]) <= maxLine+1 || gl[i] != tl[i][:maxLine+1]) {
				t.Fatalf("trial %d (size %d, maxLine %d): line %d %q; the text's %q", trial, size, maxLine, i+1, gl[i], tl[i])
			}
		}
		if int64(got.Len())+dropped != int64(text.Len()) {
			t.Fatalf("trial %d: %d bytes kept + %d dropped; the text has %d", trial, got.Len(), dropped, text.Len())
		}
	}
}

// TestBlocksReadError: a read error ends the blocks with that error, not
// io.EOF, so a stream cut short never parses as a shorter file.
func TestBlocksReadError(t *testing.T) {
	boom := errors.New("boom")
	in := io.MultiReader(strings.NewReader(strings.Repeat("a b 1\n", 100)), iotest.ErrReader(boom))
	b := NewBlocks(in, 64, 100)
	for {
		_, err := b.Next()
		if err == io.EOF {
			t.Fatal("io.EOF after a read error")
		}
		if err != nil {
			if !errors.Is(err, boom) {
				t.Fatalf("error %v; want boom", err)
			}
			return
		}
	}
}

// TestParseBlocks: results come back in block order from many workers,
// never more than workers blocks held at once, and next's error is
// returned after the blocks before it.
func TestParseBlocks(t *testing.T) {
	for _, workers := range []int{1, 2, 7} {
		var mu sync.Mutex
		n, inFlight, maxHeld := 0, 0, 0 // blocks handed out, held, most held
		next := func() (Block, error) {
			if n == 50 {
				return Block{}, io.EOF
			}
			n++
			mu.Lock()
			inFlight++
			maxHeld = max(maxHeld, inFlight)
			mu.Unlock()
			return Block{Data: []byte(strings.Repeat("x", n))}, nil
		}
		got, err := ParseBlocks(next, workers, func(b Block) int {
			mu.Lock()
			inFlight--
			mu.Unlock()
			return len(b.Data)
		})
		if err != nil || len(got) != 50 {
			t.Fatalf("workers %d: %d results, %v", workers, len(got), err)
		}
		for i, v := range got {
			if v != i+1 {
				t.Fatalf("workers %d: result %d = %d; want %d", workers, i, v, i+1)
			}
		}
		if maxHeld > workers {
			t.Errorf("workers %d: %d blocks held at once", workers, maxHeld)
		}
	}
	boom := errors.New("boom")
	k := 0
	got, err := ParseBlocks(func() (Block, error) {
		if k == 3 {
			return Block{}, boom
		}
		k++
		return Block{Data: []byte("a\n")}, nil
	}, 2, func(b Block) string { return string(b.Data) })
	if !errors.Is(err, boom) || len(got) != 3 {
		t.Errorf("next failing after 3 blocks: %d results, %v; want 3, boom", len(got), err)
	}
}

package textfile

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// TestChunks: the chunks of random texts tile the range, start at line
// starts, and hold at least minChunk bytes but for the last.
func TestChunks(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		var b strings.Builder
		for range r.IntN(60) {
			b.WriteString(strings.Repeat("x", r.IntN(30)))
			b.WriteByte('\n')
		}
		if r.IntN(2) == 0 {
			b.WriteString("tail without newline")
		}
		text := b.String()
		from := int64(r.IntN(len(text) + 1))
		for from > 0 && text[from-1] != '\n' {
			from--
		}
		n, minChunk := 1+r.IntN(8), int64(1+r.IntN(40))
		chunks, err := Chunks(strings.NewReader(text), from, int64(len(text)), n, minChunk)
		if err != nil {
			t.Fatal(err)
		}
		at := from
		for i, c := range chunks {
			if c[0] != at || c[1] <= c[0] {
				t.Fatalf("trial %d: chunk %d = %v after %d in %q", trial, i, c, at, text)
			}
			if c[0] > 0 && text[c[0]-1] != '\n' {
				t.Fatalf("trial %d: chunk %d = %v starts mid-line", trial, i, c)
			}
			at = c[1]
		}
		if at != int64(len(text)) || len(chunks) > n {
			t.Fatalf("trial %d: chunks %v of [%d, %d) (n %d)", trial, chunks, from, len(text), n)
		}
	}
}

// TestMerge: merging the dicts of consecutive chunks numbers strings as
// one dict over the whole sequence does, on any number of workers.
func TestMerge(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := range 300 {
		all := NewDict(0)
		var dicts []*Dict
		var codes [][]uint32 // per dict, the local codes of its tokens in order
		var tokens [][]string
		for range 1 + r.IntN(6) {
			d := &Dict{}
			if trial%3 == 0 || r.IntN(2) == 0 { // every third trial: all dicts by value
				*d = NewDict(int64(r.IntN(2 << 20))) // integers by value below 64 Ki..256 Ki
			}
			var cs []uint32
			var ts []string
			for range r.IntN(50) {
				tok := fmt.Sprint(r.IntN(80))
				switch r.IntN(4) { // beside small integers: the map's strings
				case 0:
					tok = "0" + tok
				case 1:
					tok = fmt.Sprint("v", r.IntN(20))
				case 2: // about the bounds of the dicts' slices
					tok = fmt.Sprint([]int{smallMax, 1 << 16, 1 << 17}[r.IntN(3)] - 40 + r.IntN(80))
				}
				cs = append(cs, d.Code([]byte(tok)))
				ts = append(ts, tok)
				all.Code([]byte(tok))
			}
			dicts, codes, tokens = append(dicts, d), append(codes, cs), append(tokens, ts)
		}
		ids, names, err := Merge(dicts, 1+r.IntN(5))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(names, all.Names()) {
			t.Fatalf("trial %d: names %v; want %v", trial, names, all.Names())
		}
		for p := range dicts {
			for i, c := range codes[p] {
				if got := names[ids[p][c]]; got != tokens[p][i] {
					t.Fatalf("trial %d: dict %d code %d → %q; want %q", trial, p, c, got, tokens[p][i])
				}
			}
		}
	}
}

// TestDictCode: integers looked up by value and strings in the map share
// one numbering, and texts of one integer stay apart.
func TestDictCode(t *testing.T) {
	d := NewDict(0)
	toks := []string{"7", "007", "0", "00", "-1", "+7", "4194303", "4194304", "abc", "7", "00", "4194304", "1234567", "12345678", "0"}
	want := []uint32{0, 1, 2, 3, 4, 5, 6, 7, 8, 0, 3, 7, 9, 10, 2}
	for i, tok := range toks {
		if got := d.Code([]byte(tok)); got != want[i] {
			t.Errorf("Code(%q) = %d; want %d", tok, got, want[i])
		}
	}
	if got, want := d.Names(), []string{"7", "007", "0", "00", "-1", "+7", "4194303", "4194304", "abc", "1234567", "12345678"}; !slices.Equal(got, want) {
		t.Errorf("Names() = %q; want %q", got, want)
	}
}

// gzipped returns text compressed with gzip.
func gzipped(t testing.TB, text string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write([]byte(text)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// zstded returns text compressed with zstd.
func zstded(t testing.TB, text string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw, err := zstd.NewWriter(&b)
	if err != nil {
		t.Fatal(err)
	}
	zw.Write([]byte(text))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestOpenDecompresses: a file compressed with gzip, zstd or bzip2,
// whatever its name, reads as its text through Read and WriteTo, with no
// Size (no parallel chunks over compressed bytes) and a CacheSize of four
// times its bytes; a plain file has its size, and an empty file opens as
// plain. testdata/lines.txt.bz2 is the text below (`bzip2 -9`: Go has no
// bzip2 writer).
func TestOpenDecompresses(t *testing.T) {
	text := strings.Repeat("a b 1\nc d 2\n", 5000)
	bz2, err := os.ReadFile("testdata/lines.txt.bz2")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, c := range []struct {
		name, format string
		data         []byte
		plain        string
	}{
		{"edges.txt.gz", "gzip", gzipped(t, text), text},
		{"edges.txt", "gzip", gzipped(t, text), text}, // the magic bytes decide, not the name
		{"edges.zst", "zstd", zstded(t, text), text},
		{"edges.bz2", "bzip2", bz2, text},
		{"plain.txt", "", []byte(text), text},
		{"empty.txt", "", nil, ""},
	} {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, how := range []string{"Read", "WriteTo"} {
			f, err := Open(path)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			var got []byte
			if how == "Read" {
				got, err = io.ReadAll(struct{ io.Reader }{f}) // Read only
			} else {
				var b bytes.Buffer
				_, err = io.Copy(&b, f) // through File.WriteTo
				got = b.Bytes()
			}
			if err != nil {
				t.Fatalf("%s, %s: %v", c.name, how, err)
			}
			if string(got) != c.plain {
				t.Errorf("%s, %s: read %d bytes; want the %d of its text", c.name, how, len(got), len(c.plain))
			}
			wantSize, wantCache := int64(len(c.data)), int64(len(c.data))
			if c.format != "" {
				wantSize, wantCache = 0, 4*int64(len(c.data)) // no parallel chunks of compressed bytes
			}
			if !f.Regular() || f.Compressed != c.format || f.Size != wantSize || f.CacheSize() != wantCache {
				t.Errorf("%s: Regular %v, Compressed %q, Size %d, CacheSize %d; want regular, %q, %d, %d",
					c.name, f.Regular(), f.Compressed, f.Size, f.CacheSize(), c.format, wantSize, wantCache)
			}
			if err := f.Close(); err != nil {
				t.Errorf("%s: Close: %v", c.name, err)
			}
		}
	}
}

// TestOpenRefusesAndFails: an xz file, which Open does not read, is
// refused with an error naming the file and the format; text that merely
// starts like a compressed stream (a vertex called BZh9) is text; and a
// compressed file cut short or corrupt is an error naming the format, at
// Open or at Read, never a shorter text.
func TestOpenRefusesAndFails(t *testing.T) {
	dir := t.TempDir()
	text := strings.Repeat("a b 1\n", 2000)
	for _, c := range []struct {
		name string
		data []byte
		want string // "" = opens and reads as text
	}{
		{"a.xz", []byte{0xfd, '7', 'z', 'X', 'Z', 0, 0, 4, 0xe6, 0xd6}, "a.xz: compressed with xz; decompress it first"},
		{"bzh.txt", []byte("BZh9 x 1\nBZh9 y 2\n"), ""},
		{"head.gz", gzipped(t, text)[:5], "head.gz: gzip:"},
		{"cut.gz", gzipped(t, text)[:40], "gzip: unexpected EOF"},
		{"cut.zst", zstded(t, text)[:20], "zstd:"},
		{"bad.bz2", []byte("BZh91AY&SY\x00\x01garbage"), "bzip2:"},
	} {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := Open(path)
		if err == nil {
			_, err = io.ReadAll(f)
			f.Close()
		} else if f != nil {
			t.Errorf("%s: a File beside the error", c.name)
		}
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v; want it read as text", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: error %v; want one with %q", c.name, err, c.want)
		}
	}
}

package textfile

import (
	stdgzip "compress/gzip"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkDecompress reads an edge text of about 16 MB through Open, per
// format, beside the standard library's gzip reader (gzip-std): the
// figures that chose klauspost/compress for gzip (BENCHMARKS.md).
func BenchmarkDecompress(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	var text strings.Builder
	for t := 0; text.Len() < 16<<20; t += r.IntN(30) {
		fmt.Fprintf(&text, "%d %d %d\n", r.IntN(50000), r.IntN(50000), 1_700_000_000+t)
	}
	dir := b.TempDir()
	plain := filepath.Join(dir, "edges.txt")
	if err := os.WriteFile(plain, []byte(text.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	gz := filepath.Join(dir, "edges.txt.gz")
	os.WriteFile(gz, gzipped(b, text.String()), 0o644)
	zst := filepath.Join(dir, "edges.txt.zst")
	os.WriteFile(zst, zstded(b, text.String()), 0o644)
	read := func(b *testing.B, open func() (io.ReadCloser, error)) {
		b.SetBytes(int64(text.Len()))
		for range b.N {
			f, err := open()
			if err != nil {
				b.Fatal(err)
			}
			if n, err := io.Copy(io.Discard, struct{ io.Reader }{f}); err != nil || n != int64(text.Len()) {
				b.Fatalf("read %d bytes, %v", n, err)
			}
			f.Close()
		}
	}
	b.Run("gzip-std", func(b *testing.B) {
		read(b, func() (io.ReadCloser, error) {
			f, err := os.Open(gz)
			if err != nil {
				return nil, err
			}
			zr, err := stdgzip.NewReader(f)
			return struct {
				io.Reader
				io.Closer
			}{zr, f}, err
		})
	})
	for _, c := range []struct{ name, path string }{{"gzip", gz}, {"zstd", zst}} {
		b.Run(c.name, func(b *testing.B) {
			read(b, func() (io.ReadCloser, error) { return Open(c.path) })
		})
	}
}

package textfile

import (
	"bufio"
	"bytes"
	"compress/bzip2"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// File is an input file opened for loading. Size is its length in bytes
// when it is a regular, uncompressed file (then its chunks can be read in
// parallel with ReadAt), else 0: a pipe, a device or a compressed file is
// read once, in order, through Read. Info is set for any regular
// file, compressed or not: a cache keys the file by it (and by its raw
// bytes, through the embedded *os.File's ReadAt).
type File struct {
	*os.File
	Info os.FileInfo // nil unless the file is regular
	Size int64
	// Compressed names the compression Read undoes ("gzip", "zstd",
	// "bzip2"), or is "".
	Compressed string

	r   io.Reader // what Read reads: the file, a buffer over it, or a decompressor
	dec func()    // closes the decompressor, if it holds anything
}

// Open opens path for loading. A file compressed with gzip, zstd or bzip2
// (any name: the magic bytes decide) is decompressed as it is read, so
// the reference graphs in testdata/ and SNAP's downloads load as they are
// shipped; one compressed with xz, which Open cannot read, is an error
// that says so, rather than a malformed first line. gzip and zstd go
// through github.com/klauspost/compress (already a dependency, through
// kafka-go): its gzip reads edge text 1.2–1.5× faster than compress/gzip
// (BenchmarkDecompress).
func Open(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	tf := &File{File: f, r: f}
	fi, err := f.Stat()
	regular := err == nil && fi.Mode().IsRegular()
	var magic []byte
	if regular {
		var head [10]byte
		n, err := f.ReadAt(head[:], 0)
		if err != nil && err != io.EOF {
			f.Close()
			return nil, err
		}
		magic = head[:n]
	} else {
		// A pipe cannot be read twice: peek through a buffer that Read
		// then reads from.
		br := bufio.NewReader(f)
		magic, _ = br.Peek(10)
		tf.r = br
	}
	if regular {
		tf.Info = fi
	}
	format := compression(magic)
	switch format {
	case "":
		if regular {
			tf.Size = fi.Size()
		}
	case "gzip":
		zr, err := gzip.NewReader(tf.r)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: gzip: %w", path, err)
		}
		tf.r, tf.dec = zr, func() { zr.Close() }
	case "zstd":
		zr, err := zstd.NewReader(tf.r)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: zstd: %w", path, err)
		}
		tf.r, tf.dec = zr, zr.Close
	case "bzip2":
		tf.r = bzip2.NewReader(tf.r)
	default:
		f.Close()
		return nil, fmt.Errorf("%s: compressed with %s; decompress it first (gzip, zstd and bzip2 files are read as they are)", path, format)
	}
	tf.Compressed = format
	return tf, nil
}

// compression names the compressed format whose magic bytes start head,
// or returns "" for any other content.
func compression(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		return "gzip"
	case bytes.HasPrefix(head, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		return "zstd"
	case bytes.HasPrefix(head, []byte{0xfd, '7', 'z', 'X', 'Z', 0}):
		return "xz"
	case len(head) >= 10 && bytes.HasPrefix(head, []byte("BZh")) && head[3] >= '1' && head[3] <= '9' &&
		(bytes.Equal(head[4:10], []byte{0x31, 0x41, 0x59, 0x26, 0x53, 0x59}) || // a block
			bytes.Equal(head[4:10], []byte{0x17, 0x72, 0x45, 0x38, 0x50, 0x90})): // no block: an empty stream
		return "bzip2"
	}
	return ""
}

// Read reads the file's text: decompressed where it is compressed.
func (f *File) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if err != nil && err != io.EOF && f.Compressed != "" {
		err = fmt.Errorf("%s: %w", f.Compressed, err) // a file cut short reads "gzip: unexpected EOF"
	}
	return n, err
}

// WriteTo writes the file's text to w, as Read reads it (the embedded
// *os.File's WriteTo would copy a compressed file's raw bytes).
func (f *File) WriteTo(w io.Writer) (int64, error) { return io.Copy(w, struct{ io.Reader }{f}) }

// Close closes the decompressor, if any, and the file.
func (f *File) Close() error {
	if f.dec != nil {
		f.dec()
	}
	return f.File.Close()
}

// Regular reports whether the file is a regular one (Info set), which a
// cache can key; its chunks can be read in parallel where Size is set
// too (it is not compressed).
func (f *File) Regular() bool { return f.Info != nil }

// CacheSize is the size to weigh against a cache's minimum: a regular
// file's text, for a compressed one four times its bytes (text edge files
// compress about 3–4×: tgraphgen 1M 3.2×, CollegeMsg 3.3×), 0 for others.
// A compressed file is parsed in one pass, so its cache saves more.
func (f *File) CacheSize() int64 {
	switch {
	case f.Info == nil:
		return 0
	case f.Compressed != "":
		return 4 * f.Info.Size()
	}
	return f.Size
}

// Chunks cuts the bytes [from, to) of ra into up to n chunks of at least
// minChunk bytes (fewer when the range is short), each starting at a line
// start and ending just past a '\n' or at to. Parsed in order, the chunks
// see exactly the lines of the range.
func Chunks(ra io.ReaderAt, from, to int64, n int, minChunk int64) ([][2]int64, error) {
	n = int(max(1, min(int64(n), (to-from)/max(minChunk, 1))))
	var chunks [][2]int64
	buf := make([]byte, 64<<10)
	start := from
	for k := 1; k <= n && start < to; k++ {
		end := to
		if k < n {
			var err error
			if end, err = lineStart(ra, from+(to-from)*int64(k)/int64(n), to, buf); err != nil {
				return nil, err
			}
		}
		if end > start {
			chunks = append(chunks, [2]int64{start, end})
			start = end
		}
	}
	return chunks, nil
}

// lineStart returns the offset just past the first '\n' at or after off
// (to when there is none before it).
func lineStart(ra io.ReaderAt, off, to int64, buf []byte) (int64, error) {
	for off < to {
		n, err := ra.ReadAt(buf[:min(int64(len(buf)), to-off)], off)
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			return off + int64(i) + 1, nil
		}
		off += int64(n)
		if err != nil && err != io.EOF {
			return 0, err
		}
		if n == 0 {
			break
		}
	}
	return to, nil
}

// Parallel calls parse once per chunk, each in its own goroutine, with a
// reader of that chunk, and returns when all have.
func Parallel(ra io.ReaderAt, chunks [][2]int64, parse func(i int, r *io.SectionReader)) {
	var wg sync.WaitGroup
	for i, c := range chunks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			parse(i, io.NewSectionReader(ra, c[0], c[1]-c[0]))
		}()
	}
	wg.Wait()
}

package textfile

import (
	"bytes"
	"io"
	"os"
	"sync"
)

// File is an input file opened for loading. Size is its length in bytes
// when it is a regular file (then its chunks can be read in parallel with
// ReadAt), else 0: a pipe or device is read once, in order.
type File struct {
	*os.File
	Info os.FileInfo // nil when Stat failed
	Size int64
}

// Open opens path for loading.
func Open(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	tf := &File{File: f}
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		tf.Info, tf.Size = fi, fi.Size()
	}
	return tf, nil
}

// Regular reports whether the file is a regular one (Size and Info set).
func (f *File) Regular() bool { return f.Info != nil }

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

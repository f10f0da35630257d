package textfile

import (
	"bytes"
	"io"
	"slices"
	"sync"
)

// Block is a run of whole lines of a stream: Data ends just past a '\n',
// or at the stream's end. An over-long line (more than the Blocks'
// maxLine bytes) keeps its first maxLine+1 bytes and its '\n'; Dropped
// counts the bytes left out between them, which a parser that rejects or
// skips such a line never reads, so that its byte counts stay exact.
type Block struct {
	Data    []byte
	Dropped int64
}

// Blocks cuts a stream that cannot be read at offsets (a decompressed
// file) into blocks of whole lines, so that its lines can be parsed in
// parallel (ParseBlocks) as a regular file's chunks are (Chunks). It holds
// at most one block and one over-long line's first maxLine+1 bytes, however
// long a line the stream holds.
type Blocks struct {
	r       io.Reader
	size    int
	maxLine int
	carry   []byte // the next block's first bytes: those after the last '\n'
	err     error  // what ended the stream: io.EOF at its end
}

// maxBlock caps BlockSize: each block becomes a part with a dictionary of
// its own, so a huge stream is cut into blocks of this size rather than
// into thousands of small ones, and a loader holds workers such blocks.
const maxBlock = 64 << 20

// BlockSize is the block size for a stream of about textSize bytes parsed
// on workers goroutines: two blocks a worker, within minSize and maxBlock.
func BlockSize(textSize int64, workers int, minSize int64) int {
	return int(min(max(textSize/int64(2*max(workers, 1)), minSize), maxBlock))
}

// NewBlocks returns the blocks of r, each of about size bytes.
func NewBlocks(r io.Reader, size, maxLine int) *Blocks {
	return &Blocks{r: r, size: max(size, 1), maxLine: max(maxLine, 1)}
}

// Next returns the next block; after the last it returns io.EOF, and on a
// read error that error (the blocks before it were whole).
func (b *Blocks) Next() (Block, error) {
	var blk Block
	buf := make([]byte, 0, max(b.size, len(b.carry))+b.size/8)
	buf = append(buf, b.carry...)
	b.carry = nil
	lineStart := bytes.LastIndexByte(buf, '\n') + 1 // where the unfinished line starts
	for b.err == nil && (len(buf) < b.size || lineStart == 0) {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, b.size/4+1)
		}
		n, err := b.r.Read(buf[len(buf):cap(buf)])
		if i := bytes.LastIndexByte(buf[len(buf):len(buf)+n], '\n'); i >= 0 {
			lineStart = len(buf) + i + 1
		}
		buf = buf[:len(buf)+n]
		if err != nil {
			b.err = err
		}
		for len(buf)-lineStart > b.maxLine+1 {
			// Keep the over-long line's head; skip to its end.
			blk.Dropped += int64(len(buf) - (lineStart + b.maxLine + 1))
			buf = buf[:lineStart+b.maxLine+1]
			if b.err == nil {
				rest, dropped := b.skipLine()
				blk.Dropped += dropped
				if rest != nil {
					buf = append(buf, '\n')
					lineStart = len(buf)
					buf = append(buf, rest...)
					if i := bytes.LastIndexByte(rest, '\n'); i >= 0 {
						lineStart += i + 1
					}
				}
			}
		}
	}
	if b.err != nil && b.err != io.EOF {
		return Block{}, b.err
	}
	if b.err == nil { // more to come: the unfinished line opens the next block
		b.carry = slices.Clone(buf[lineStart:])
		buf = buf[:lineStart]
	}
	if len(buf) == 0 {
		return Block{}, io.EOF
	}
	blk.Data = buf
	return blk, nil
}

// skipLine reads past the end of the current line: it returns the bytes
// read after its '\n' (nil where the stream ended first) and how many it
// skipped before the '\n'.
func (b *Blocks) skipLine() (rest []byte, skipped int64) {
	scratch := make([]byte, 64<<10)
	for b.err == nil {
		n, err := b.r.Read(scratch)
		if err != nil {
			b.err = err
		}
		if i := bytes.IndexByte(scratch[:n], '\n'); i >= 0 {
			return slices.Clone(scratch[i+1 : n]), skipped + int64(i)
		}
		skipped += int64(n)
	}
	return nil, skipped
}

// ParseBlocks calls parse on each block next returns, on up to workers
// goroutines at once (so at most workers blocks are held), and returns the
// results in block order. It stops at next's first error, after parsing
// the blocks before it, and returns that error unless it is io.EOF.
func ParseBlocks[T any](next func() (Block, error), workers int, parse func(Block) T) ([]T, error) {
	var (
		out  []*T
		wg   sync.WaitGroup
		busy = make(chan struct{}, max(workers, 1))
		err  error
	)
	for {
		busy <- struct{}{} // before reading: a block is held only while a worker can take it
		blk, e := next()
		if e != nil {
			<-busy
			if e != io.EOF {
				err = e
			}
			break
		}
		res := new(T)
		out = append(out, res)
		wg.Add(1)
		go func() {
			defer func() { <-busy; wg.Done() }()
			*res = parse(blk)
		}()
	}
	wg.Wait()
	results := make([]T, len(out))
	for i, r := range out {
		results[i] = *r
	}
	return results, err
}

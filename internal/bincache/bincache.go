package bincache

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"unsafe"
)

// Frame of a cache file (little-endian): magic (8 bytes), format version
// u32, header length u32, header, body, CRC-32C of everything before it
// (u32).
const preLen = 16

// HashSpan is how much of the input's head and tail the key hashes.
const HashSpan = 1 << 20

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Key identifies the input a cache was built from: any change to its
// size, its mtime, or the bytes at either end makes another key.
type Key struct {
	Size, Mtime int64
	HeadTail    [32]byte // SHA-256 of the first and last HashSpan bytes
}

// KeyOf computes the key of the open regular file f.
func KeyOf(f io.ReaderAt, fi os.FileInfo) (Key, error) {
	k := Key{Size: fi.Size(), Mtime: fi.ModTime().UnixNano()}
	h := sha256.New()
	headLen := min(HashSpan, k.Size)
	tailAt := max(k.Size-HashSpan, headLen)
	for _, span := range [2][2]int64{{0, headLen}, {tailAt, k.Size}} {
		if _, err := io.Copy(h, io.NewSectionReader(f, span[0], span[1]-span[0])); err != nil {
			return Key{}, err
		}
	}
	copy(k.HeadTail[:], h.Sum(nil))
	return k, nil
}

// Encode appends the key to e.
func (k Key) Encode(e *Encoder) {
	e.I64(k.Size)
	e.I64(k.Mtime)
	e.B = append(e.B, k.HeadTail[:]...)
}

// DecodeKey reads a key that Encode wrote.
func DecodeKey(d *Decoder) Key {
	k := Key{Size: d.I64(), Mtime: d.I64()}
	copy(k.HeadTail[:], d.Bytes(32))
	return k
}

// Path names the cache file of the input at inputPath in dir:
// "<base>.<hash of the absolute path>" + suffix, so that inputs of the
// same name in different folders keep apart.
func Path(dir, inputPath, suffix string) (string, error) {
	abs, err := filepath.Abs(inputPath)
	if err != nil {
		return "", err
	}
	id := sha256.Sum256([]byte(abs))
	return filepath.Join(dir, filepath.Base(abs)+"."+hex.EncodeToString(id[:8])+suffix), nil
}

// Write writes a cache file at path: the frame around header and what
// body writes. It writes a temporary file in the same folder, syncs it
// and renames it into place, so a reader sees the old file or the whole
// new one, never a part.
func Write(path, magic string, version uint32, header []byte, body func(w io.Writer) error) error {
	if len(magic) != 8 {
		return fmt.Errorf("cache magic %q: want 8 bytes", magic)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after the rename, a no-op
	crc := crc32.New(castagnoli)
	bw := bufio.NewWriterSize(io.MultiWriter(tmp, crc), 1<<20)
	err = writeFrame(bw, crc, magic, version, header, body)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func writeFrame(bw *bufio.Writer, crc hash.Hash32, magic string, version uint32, header []byte, body func(io.Writer) error) error {
	var pre [preLen]byte
	copy(pre[:], magic)
	binary.LittleEndian.PutUint32(pre[8:], version)
	binary.LittleEndian.PutUint32(pre[12:], uint32(len(header)))
	bw.Write(pre[:])
	bw.Write(header)
	if err := body(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil { // the CRC has seen every byte
		return err
	}
	var sum [4]byte
	binary.LittleEndian.PutUint32(sum[:], crc.Sum32())
	bw.Write(sum[:])
	return bw.Flush()
}

// Reader reads a cache file: Open checks the frame's start and reads the
// header; the caller reads exactly BodySize bytes with ReadFull and then
// calls Verify, which checks the CRC. Nothing read is to be trusted
// before Verify returns nil.
type Reader struct {
	f      *os.File
	r      io.Reader
	crc    hash.Hash32
	Header []byte
	size   int64
}

// Open opens the cache file at path and reads its header. It fails with
// an error wrapping fs.ErrNotExist when there is none.
func Open(path, magic string, version uint32) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	cr, err := open(f, magic, version)
	if err != nil {
		f.Close()
		return nil, err
	}
	return cr, nil
}

func open(f *os.File, magic string, version uint32) (*Reader, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	cr := &Reader{f: f, crc: crc32.New(castagnoli), size: fi.Size()}
	cr.r = io.TeeReader(bufio.NewReaderSize(f, 1<<16), cr.crc)
	var pre [preLen]byte
	if _, err := io.ReadFull(cr.r, pre[:]); err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	if string(pre[:8]) != magic {
		return nil, fmt.Errorf("not a %q cache", magic)
	}
	if v := binary.LittleEndian.Uint32(pre[8:]); v != version {
		return nil, fmt.Errorf("format version %d, want %d", v, version)
	}
	hlen := int64(binary.LittleEndian.Uint32(pre[12:]))
	if preLen+hlen+4 > cr.size {
		return nil, errors.New("truncated header")
	}
	cr.Header = make([]byte, hlen)
	if _, err := io.ReadFull(cr.r, cr.Header); err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	return cr, nil
}

// BodySize is the number of bytes between the header and the checksum.
func (cr *Reader) BodySize() int64 { return cr.size - preLen - int64(len(cr.Header)) - 4 }

// ReadFull fills b from the body.
func (cr *Reader) ReadFull(b []byte) error {
	_, err := io.ReadFull(cr.r, b)
	return err
}

// Verify reads the checksum and compares it with what was read; the
// caller must have read the whole body.
func (cr *Reader) Verify() error {
	sum := cr.crc.Sum32()
	var tail [4]byte
	if _, err := io.ReadFull(cr.r, tail[:]); err != nil {
		return err
	}
	if binary.LittleEndian.Uint32(tail[:]) != sum {
		return errors.New("checksum mismatch")
	}
	return nil
}

// Close closes the file.
func (cr *Reader) Close() error { return cr.f.Close() }

// AsBytes views a slice of fixed-size numbers as its bytes. Caches store
// them little-endian; LittleEndian below says whether the host does.
func AsBytes[T uint32 | int64 | float64](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(s[0])))
}

// LittleEndian reports whether the host stores numbers as caches do;
// callers keep no cache on other hosts.
var LittleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

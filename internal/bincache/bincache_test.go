package bincache

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const testMagic = "MWTEST\x00\n"

// TestWriteOpen: a frame reads back as written; any damage is an error
// before or at Verify, never a wrong answer.
func TestWriteOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "x.mwt")
	if _, err := Open(path, testMagic, 1); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("no file: error %v; want ErrNotExist", err)
	}
	e := &Encoder{}
	e.Strs([]string{"a", "", "ccc"})
	e.I64(-5)
	body := []int64{1, 2, 3}
	if err := Write(path, testMagic, 1, e.B, func(w io.Writer) error {
		_, err := w.Write(AsBytes(body))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	read := func(version uint32) ([]string, int64, []int64, error) {
		cr, err := Open(path, testMagic, version)
		if err != nil {
			return nil, 0, nil, err
		}
		defer cr.Close()
		d := &Decoder{B: cr.Header}
		ss, v := d.Strs(), d.I64()
		if err := d.Done(); err != nil {
			return nil, 0, nil, err
		}
		got := make([]int64, cr.BodySize()/8)
		if err := cr.ReadFull(AsBytes(got)); err != nil {
			return nil, 0, nil, err
		}
		return ss, v, got, cr.Verify()
	}
	ss, v, got, err := read(1)
	if err != nil || strings.Join(ss, ",") != "a,,ccc" || v != -5 || len(got) != 3 || got[2] != 3 {
		t.Fatalf("read back %q %d %v, %v", ss, v, got, err)
	}
	if _, _, _, err := read(2); err == nil {
		t.Error("another version: read without error")
	}
	good, _ := os.ReadFile(path)
	for i := range good {
		damaged := []byte(string(good))
		damaged[i] ^= 0x10
		os.WriteFile(path, damaged, 0o644)
		if _, _, _, err := read(1); err == nil {
			t.Errorf("byte %d flipped: read without error", i)
		}
	}
	for n := range len(good) {
		os.WriteFile(path, good[:n], 0o644)
		if _, _, _, err := read(1); err == nil {
			t.Errorf("cut to %d bytes: read without error", n)
		}
	}
}

// TestKeyOf: the key changes with the size, the mtime, and the bytes at
// either end.
func TestKeyOf(t *testing.T) {
	path := filepath.Join(t.TempDir(), "in.txt")
	key := func() Key {
		t.Helper()
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		fi, _ := f.Stat()
		k, err := KeyOf(f, fi)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	mtime := time.Unix(1_700_000_000, 0)
	set := func(s string) {
		os.WriteFile(path, []byte(s), 0o644)
		os.Chtimes(path, mtime, mtime)
	}
	set("abc")
	k0 := key()
	set("abd")
	if key() == k0 {
		t.Error("same key after a change of content")
	}
	set("abc")
	if key() != k0 {
		t.Error("another key for the same content and mtime")
	}
	os.Chtimes(path, mtime.Add(time.Second), mtime.Add(time.Second))
	if key() == k0 {
		t.Error("same key after a change of mtime")
	}
}

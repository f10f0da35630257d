//go:build unix

package textfile

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestOpenPipe: a named pipe, plain or gzip, is read once through the
// buffer that Open peeked its first bytes with, and nothing is lost.
func TestOpenPipe(t *testing.T) {
	text := "# a pipe\na b 1\nc d 2\n"
	for _, data := range [][]byte{[]byte(text), gzipped(t, text)} {
		path := filepath.Join(t.TempDir(), "fifo")
		if err := syscall.Mkfifo(path, 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		go func() {
			w, err := os.OpenFile(path, os.O_WRONLY, 0)
			if err != nil {
				return
			}
			w.Write(data)
			w.Close()
		}()
		f, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(f)
		f.Close()
		if err != nil || string(got) != text || f.Regular() {
			t.Errorf("pipe of %d bytes: read %q, %v, Regular %v; want %q, not regular", len(data), got, err, f.Regular(), text)
		}
	}
}

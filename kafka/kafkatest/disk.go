package kafkatest

import (
	"os"
	"path/filepath"
	"testing"
)

// FillDisk makes the first segment the embedded broker (kfake) writes for
// partition 0 of topic under its data directory dir unwritable, as a full
// disk would: on Linux a link to /dev/full, where every write fails with
// ENOSPC exactly as on a full disk; elsewhere a directory in its place,
// which fails the open. Call it before anything is produced to that
// partition, and never start a broker on dir again (a read of /dev/full
// never ends). It returns the error text a write then gets.
func FillDisk(t testing.TB, dir, topic string) string {
	t.Helper()
	pdir := filepath.Join(dir, "partitions", topic+"-0")
	if err := os.MkdirAll(pdir, 0o755); err != nil {
		t.Fatal(err)
	}
	seg := filepath.Join(pdir, "0.dat") // kfake's name of the segment at offset 0
	if _, err := os.Stat("/dev/full"); err == nil {
		if err := os.Symlink("/dev/full", seg); err != nil {
			t.Fatal(err)
		}
		return "no space left on device"
	}
	if err := os.Mkdir(seg, 0o755); err != nil {
		t.Fatal(err)
	}
	return "is a directory"
}

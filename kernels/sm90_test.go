package kernels

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"strings"
	"testing"
)

// TestSM90UpToDate: kernels/sm_90.sum, written by scripts/kernels-sm90.sh
// when it built the *.sm_90.fatbin files, holds the SHA-256 of every .cu
// and .ptx and of every fatbin, and each matches the file here. A .cu or
// .ptx edited after the fatbins were built (stale machine code, which the
// engine would load instead of the new PTX on an H100 or H200) fails, as
// does a fatbin replaced without its record.
func TestSM90UpToDate(t *testing.T) {
	sum, err := os.ReadFile("sm_90.sum")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(sum))
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		h, f, ok := strings.Cut(line, "  ")
		if !ok || len(h) != 64 {
			t.Fatalf("sm_90.sum: %q is no `sha256  file` line", line)
		}
		want[f] = h
	}
	for _, m := range []string{"temporal", "gpm", "count3"} {
		for _, f := range []string{m + ".cu", m + ".ptx", m + ".sm_90.fatbin"} {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			got := sha256.Sum256(data)
			switch h, ok := want[f]; {
			case !ok:
				t.Errorf("sm_90.sum has no hash of %s: rebuild the fatbins (scripts/kernels-sm90.sh)", f)
			case h != hex.EncodeToString(got[:]):
				t.Errorf("%s changed since kernels/%s.sm_90.fatbin was built (sm_90.sum %s…, file %x…): rebuild it with scripts/kernels-sm90.sh", f, m, h[:12], got[:6])
			}
		}
	}
}

// TestSM90Embedded: each embedded sm_90 module is a fatbin (the driver's
// container: magic 0xBA55ED50, little-endian), not an ELF cubin, which
// the CI refuses to see tracked.
func TestSM90Embedded(t *testing.T) {
	for name, bin := range map[string]string{"temporal": TemporalSM90, "gpm": GPMSM90, "count3": Count3SM90} {
		if len(bin) < 16 || bin[:4] != "\x50\xed\x55\xba" {
			t.Errorf("%s.sm_90.fatbin: %d bytes, magic %q; want a fatbin (50 ed 55 ba)", name, len(bin), bin[:min(4, len(bin))])
		}
	}
}

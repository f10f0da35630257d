package gpu_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/motif/count3"
	"github.com/motifwatch/motifwatch/motif/oracle"
	"github.com/motifwatch/motifwatch/window"
)

// emuCounter is kernels/emu/count3emu (kernels/count3.cu's c3* kernels
// built for the host, run one thread at a time in gpu.Counter's launch
// order) as a count3.WindowDevice, with its piece lengths.
type emuCounter struct {
	bin                   string
	centrePiece, triPiece int64
}

func (e emuCounter) CountSequences(context.Context, *count3.Sequences, int64) (count3.Raw, error) {
	return count3.Raw{}, fmt.Errorf("the emulator counts windows only")
}

func (e emuCounter) CountWindow(_ context.Context, w *window.Window, delta int64, s count3.Scope, fam count3.Families) (count3.Raw, error) {
	var raw count3.Raw
	first := w.First()
	n := min(s.Hi, w.End()) - first
	lo := max(s.Lo, first)
	b2i := func(b bool) int {
		if b {
			return 1
		}
		return 0
	}
	var in bytes.Buffer
	fmt.Fprintf(&in, "%d %d %d %d %d %d %d %d %d %d\n", n, w.IDs().Cap(), delta, lo-first, b2i(s.Mask != nil),
		b2i(fam&count3.Stars != 0), b2i(fam&count3.Small != 0), b2i(fam&count3.Triangles != 0), e.centrePiece, e.triPiece)
	src, dst, ts := w.Columns(first, first+n)
	for k := range n {
		fmt.Fprintf(&in, "%d %d %d", src[k], dst[k], ts[k])
		if s.Mask != nil {
			p := first + k
			fmt.Fprintf(&in, " %d", b2i(p < lo || s.Mask[p-s.Lo]))
		}
		in.WriteByte('\n')
	}
	cmd := exec.Command(e.bin)
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return raw, fmt.Errorf("count3emu: %v\n%s", err, stderr.String())
	}
	for i, f := range strings.Fields(string(out)) {
		if raw[i], err = strconv.ParseInt(f, 10, 64); err != nil {
			return raw, err
		}
	}
	return raw, nil
}

// buildEmu compiles kernels/emu/count3emu.cpp with the host's C++
// compiler (CXX, else g++), with the address and undefined-behaviour
// sanitizers where the compiler has them, so that an index past a buffer
// fails the run.
func buildEmu(t *testing.T) string {
	t.Helper()
	cxx := os.Getenv("CXX")
	if cxx == "" {
		cxx = "g++"
	}
	if _, err := exec.LookPath(cxx); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("no C++ compiler (%s) on PATH under CI: .ci/run installs g++", cxx)
		}
		t.Skipf("no C++ compiler (%s) on PATH: kernels/count3.cu's host build is not checked", cxx)
	}
	bin := filepath.Join(t.TempDir(), "count3emu")
	src := filepath.Join("..", "kernels", "emu", "count3emu.cpp")
	args := []string{"-O1", "-std=c++17", "-o", bin, src}
	out, err := exec.Command(cxx, append([]string{"-fsanitize=address,undefined", "-fno-sanitize-recover=all"}, args...)...).CombinedOutput()
	if err != nil {
		t.Logf("%s without sanitizers (%v): %s", cxx, err, out)
		if out, err := exec.Command(cxx, args...).CombinedOutput(); err != nil {
			t.Fatalf("%s %s: %v\n%s", cxx, src, err, out)
		}
	}
	return bin
}

// kernels/count3.cu's counting over a window, built for the host and run
// one thread at a time in the device's launch order (kernels/emu), gives
// count3's counters, counter for counter: on random windows of few nodes
// (long pair lists, heavy triangles), ties, ranges, root masks,
// self-loops and times at the int64 ends, with sequences and triangles
// cut into pieces of every small length, every family alone and
// together; and on CollegeMsg. The same kernels run on a device in
// TestCount3DeviceWindowPieces (cuda build): this checks their logic
// where no device is.
func TestCount3KernelsOnHost(t *testing.T) {
	bin := buildEmu(t)
	rng := rand.New(rand.NewPCG(27, 5))
	fams := []count3.Families{count3.All, count3.Stars, count3.Triangles, count3.Small, count3.Grid3}
	pieces := [][2]int64{{1, 1}, {2, 3}, {3, 2}, {5, 7}, {1024, 128}}
	var counted int64
	for iter := range 150 {
		cfg := oracle.WindowConfig{MinNodes: 3, MaxNodes: 3 + iter%6, MaxEdges: 10 + 2*iter, MaxTime: 5 + int64(iter%40), SelfLoop: 0.03, Evict: 0.2}
		delta := rng.Int64N(12)
		if iter%4 == 3 {
			cfg.Extreme = 1
			delta = []int64{1 + rng.Int64N(5), 1<<62 + rng.Int64N(3), 1<<63 - 1 - rng.Int64N(3)}[rng.IntN(3)]
		}
		w := oracle.RandomWindow(rng, cfg)
		req := motif.Request{Range: motif.WholeWindow(w), Horizon: motif.Batch}
		if iter%3 == 1 && w.Len() > 0 {
			lo := w.First() + rng.Int64N(int64(w.Len()))
			req.Range = motif.Range{Lo: lo, Hi: lo + 1 + rng.Int64N(w.End()-lo)}
			req.RootMask = make([]bool, req.Range.Hi-req.Range.Lo)
			for i := range req.RootMask {
				req.RootMask[i] = rng.IntN(3) != 0
			}
		}
		p := pieces[iter%len(pieces)]
		fam := fams[iter%len(fams)]
		got, err := count3.Count(context.Background(), w, delta, req, fam, count3.Options{Workers: 2, Device: emuCounter{bin, p[0], p[1]}})
		if err != nil {
			t.Fatal(err)
		}
		want, err := count3.Count(context.Background(), w, delta, req, fam, count3.Options{Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("iteration %d, delta %d, pieces %v, families %b: kernels %v\nhost %v\n%s", iter, delta, p, fam, got, want, oracle.FormatWindow(w))
		}
		for _, v := range want {
			counted += v
		}
	}
	if counted == 0 {
		t.Error("no window counted anything: the test compares nothing")
	}
	w := loadCollegeMsgGz(t)
	for _, delta := range []int64{3600, 86400} {
		for _, p := range [][2]int64{{1024, 128}, {16, 8}} {
			req := motif.Request{Range: motif.WholeWindow(w), Horizon: motif.Batch}
			fam := count3.Grid3 | count3.Small
			got, err := count3.Count(context.Background(), w, delta, req, fam, count3.Options{Workers: 2, Device: emuCounter{bin, p[0], p[1]}})
			if err != nil {
				t.Fatal(err)
			}
			want, err := count3.Count(context.Background(), w, delta, req, fam, count3.Options{Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Fatalf("CollegeMsg, delta %d, pieces %v: kernels %v\nhost %v", delta, p, got, want)
			}
		}
	}
}

// loadCollegeMsgGz loads testdata/temporal/CollegeMsg.txt.gz.
func loadCollegeMsgGz(t *testing.T) *window.Window {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", "temporal", "CollegeMsg.txt.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "CollegeMsg.txt")
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, z); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	w, _, err := ingest.LoadFile(path, ingest.FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

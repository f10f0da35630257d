//go:build cuda

package gpu

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gorgonia.org/cu"

	"github.com/motifwatch/motifwatch/kernels"
)

// TestMain lets a device run time other sm_90 code without Go on that
// machine: with MOTIFWATCH_TEST_SM90_DIR set, each module's sm_90 image is
// read from NAME.sm_90.fatbin there (a missing file keeps the embedded
// code), so one test binary times a fresh scripts/kernels-sm90.sh build
// against the committed one.
func TestMain(m *testing.M) {
	if dir := os.Getenv("MOTIFWATCH_TEST_SM90_DIR"); dir != "" {
		for name, img := range map[string]*string{"temporal": &kernels.TemporalSM90, "gpm": &kernels.GPMSM90, "count3": &kernels.Count3SM90} {
			if b, err := os.ReadFile(filepath.Join(dir, name+".sm_90.fatbin")); err == nil {
				*img = string(b)
			}
		}
	}
	os.Exit(m.Run())
}

// TestModulesLoadBothWays: each module of package kernels loads on the
// device from its sm_90 code (on a device of compute capability 9.x) and
// from its PTX (the fallback everywhere else), and both hold every kernel
// the engine looks up (a kernel missing from one would fail at its first
// launch on the devices that load it); a 9.x device opens with the sm_90
// code of the temporal module, not its PTX. The load times are logged:
// with CUDA_CACHE_DISABLE=1 a PTX load is the driver's full compile.
func TestModulesLoadBothWays(t *testing.T) {
	d, err := openDevice(0, 0, Options{}.withDefaults())
	if err != nil {
		if errors.Is(err, ErrNoDevice) || strings.Contains(err.Error(), "get device") {
			t.Skipf("no CUDA device: %v", err)
		}
		t.Fatal(err)
	}
	defer d.close()
	t.Logf("device opened (compute capability %d.%d): %s", d.ccMajor, d.ccMinor, strings.Join(d.code, "; "))
	if d.ccMajor == 9 && !strings.HasPrefix(d.code[0], "temporal: sm_90 ") {
		t.Errorf("a device of compute capability 9.%d loaded %q; want the sm_90 code", d.ccMinor, d.code[0])
	}
	for _, m := range []struct {
		name, sm90, ptx string
		fns             []string
	}{
		{"temporal", kernels.TemporalSM90, kernels.TemporalPTX, kernelNames},
		{"gpm", kernels.GPMSM90, kernels.GPMPTX, gpmKernels},
		{"count3", kernels.Count3SM90, kernels.Count3PTX, append([]string{count3Kernel}, count3WinKernels...)},
	} {
		for _, form := range []struct{ what, image string }{{"sm_90", m.sm90}, {"PTX", m.ptx}} {
			if form.what == "sm_90" && d.ccMajor != 9 {
				continue
			}
			err := d.do(func() error {
				t0 := time.Now()
				mod, err := cu.LoadData(form.image)
				if err != nil {
					return err
				}
				t.Logf("%s from %s: loaded in %.0f ms", m.name, form.what, time.Since(t0).Seconds()*1e3)
				for _, fn := range m.fns {
					if _, err := mod.Function(fn); err != nil {
						t.Errorf("%s from %s: kernel %s: %v", m.name, form.what, fn, err)
					}
				}
				return mod.Unload()
			})
			if err != nil {
				t.Errorf("%s from %s: %v", m.name, form.what, err)
			}
		}
	}
}

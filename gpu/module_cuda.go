//go:build cuda

package gpu

import (
	"fmt"
	"time"

	"gorgonia.org/cu"
)

// loadModule loads one of package kernels' modules into the device's
// context (on its thread): its sm_90 machine code (sm90, a fatbin) on a
// device of compute capability 9.x, which costs no compile; on any other
// device, or where the driver refuses that code, its PTX, which the driver
// compiles for the device (seconds for temporal.ptx at a start without a
// warm driver cache: BENCHMARKS.md). d.code records which it loaded and
// why, for DeviceInfo.Kernels.
func (d *device) loadModule(name, sm90, ptx string) (cu.Module, error) {
	t0 := time.Now()
	why := fmt.Sprintf("compute capability %d.%d", d.ccMajor, d.ccMinor)
	if d.ccMajor == 9 && sm90 != "" {
		mod, err := cu.LoadData(sm90)
		if err == nil {
			d.code = append(d.code, fmt.Sprintf("%s: sm_90 (%.0f ms)", name, time.Since(t0).Seconds()*1e3))
			return mod, nil
		}
		why = fmt.Sprintf("the driver refused its sm_90 code: %v", err)
	}
	mod, err := cu.LoadData(ptx)
	if err != nil {
		return mod, d.fail("load kernels/"+name+".ptx", err)
	}
	d.code = append(d.code, fmt.Sprintf("%s: PTX compiled by the driver, %s (%.0f ms)", name, why, time.Since(t0).Seconds()*1e3))
	return mod, nil
}

//go:build cuda

package gpu

import (
	"context"
	"fmt"
	"io"
	"unsafe"

	"gorgonia.org/cu"

	"github.com/motifwatch/motifwatch/kernels"
	"github.com/motifwatch/motifwatch/motif/count3"
)

// count3Kernel is kernels/count3.ptx's entry point.
const count3Kernel = "count3Centres"

// Per-slot state of the kernel, in int64s (kernels/count3.cu).
const (
	count3CentreState = 10
	count3Block       = 128
)

// Counter runs motif/count3's passes on one device: over the device's
// own mirror of the window (CountWindow, count3.WindowDevice: the centre
// and triangle passes), or the centre pass alone over sequences the host
// builds (CountSequences, count3.Device).
type Counter struct {
	d *device
	// CountWindow's piece lengths (centrePiece, trianglePiece; tests set
	// them small).
	centrePiece, trianglePiece int64
	phases                     io.Writer // TimePhases
}

var _ count3.Device = (*Counter)(nil)

// Counter loads kernels' count3 module on the engine's first device (at
// once, so a module the driver cannot load fails here) and returns the
// device counter.
func (e *Engine) Counter() (*Counter, error) {
	d := e.devs[0]
	err := d.do(func() error {
		mod, err := d.loadModule("count3", kernels.Count3SM90, kernels.Count3PTX)
		if err != nil {
			return err
		}
		for _, k := range append([]string{count3Kernel}, count3WinKernels...) {
			if d.fns[k], err = mod.Function(k); err != nil {
				return d.fail("kernel "+k, err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &Counter{d: d, centrePiece: centrePiece, trianglePiece: trianglePiece}, nil
}

// CountSequences implements count3.Device: one thread per sequence. A
// negative delta admits no triple (and the kernel's saturated window
// start assumes none).
func (c *Counter) CountSequences(ctx context.Context, s *count3.Sequences, delta int64) (count3.Raw, error) {
	var raw count3.Raw
	n := int64(len(s.Off) - 1)
	if n <= 0 || delta < 0 {
		return raw, nil
	}
	if err := ctx.Err(); err != nil {
		return raw, err
	}
	soff := make([]int64, n+1)
	for i, k := range s.Slots {
		soff[i+1] = soff[i] + int64(k)
	}
	kernel, per := count3Kernel, int64(count3CentreState)
	evBytes := int64(len(s.Events)) * int64(unsafe.Sizeof(count3.Event{}))
	d := c.d
	err := d.do(func() error {
		var bufs []cu.DevicePtr
		defer func() {
			for _, b := range bufs {
				d.pool.put(b)
			}
		}()
		alloc := func(bytes int64) (cu.DevicePtr, error) {
			p, err := d.pool.get(d, max(bytes, 8))
			if err == nil {
				bufs = append(bufs, p)
			}
			return p, err
		}
		offD, err := alloc((n + 1) * 8)
		if err != nil {
			return err
		}
		soffD, err := alloc((n + 1) * 8)
		if err != nil {
			return err
		}
		evD, err := alloc(evBytes)
		if err != nil {
			return err
		}
		scratchD, err := alloc(soff[n] * per * 8)
		if err != nil {
			return err
		}
		rawD, err := alloc(count3.RawLen * 8)
		if err != nil {
			return err
		}
		if err := d.htod(offD, unsafe.Pointer(&s.Off[0]), (n+1)*8); err != nil {
			return err
		}
		if err := d.htod(soffD, unsafe.Pointer(&soff[0]), (n+1)*8); err != nil {
			return err
		}
		if err := d.htod(evD, unsafe.Pointer(&s.Events[0]), evBytes); err != nil {
			return err
		}
		if err := d.htod(rawD, unsafe.Pointer(&raw[0]), count3.RawLen*8); err != nil {
			return err
		}
		grid := min(blocks(n, count3Block), d.sms*16)
		if err := d.launch(kernel, grid, count3Block, offD, soffD, evD, scratchD, rawD, n, delta); err != nil {
			return err
		}
		if err := d.sync(kernel); err != nil {
			return err
		}
		return d.dtoh(unsafe.Pointer(&raw[0]), rawD, count3.RawLen*8)
	})
	if err != nil {
		return count3.Raw{}, fmt.Errorf("gpu count3: %w", err)
	}
	return raw, nil
}

//go:build cuda

package gpu

import (
	"fmt"
	"math/bits"
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"

	"gorgonia.org/cu"

	"github.com/motifwatch/motifwatch/kernels"
)

// device is one CUDA context with its own OS thread: every driver call for
// it runs on that thread (a context is current per thread; calls from any
// other thread fail with InvalidContext). Several devices may share one
// physical GPU (logical partitions), each with its own context.
type device struct {
	id      int // index among the engine's devices
	ordinal int // CUDA device ordinal
	name    string
	sms     int
	total   int64
	// ccMajor, ccMinor: the compute capability (loadModule: the sm_90
	// code on 9.x); code: what loadModule loaded, per module.
	ccMajor, ccMinor int
	code             []string

	calls chan func()
	ctx   cu.CUContext
	mod   cu.Module
	fns   map[string]cu.Function
	planP cu.DevicePtr
	planF cu.DevicePtr
	plans [maxQueries]*encodedPlan // what P and PF hold now, per query slot (nil: unknown)

	pool pool
	win  devWindow

	// mining buffers
	ctl, queue, out, mask cu.DevicePtr
	queueCap, outCap      int64
	// group: tuning.BatchGroup.
	group int
	// expand2Roots: tuning.Expand2Roots (0 with Expand2All).
	expand2Roots int64
	maskCap      int64
	host         []int64 // staging for drained match records

	busy time.Duration // time spent in device work, for the per-device metric
	// Where the time goes: window sync (upload + adjacency maintenance),
	// mining kernels, and draining enumerate buffers to the sink.
	syncTime, mineTime, drainTime time.Duration
	// stats is a copy of the figures, refreshed after each call on the
	// device thread, so a metrics scrape never waits for a long kernel.
	stats atomic.Pointer[DeviceStats]
}

func openDevice(id, ordinal int, o Options) (*device, error) {
	d := &device{id: id, ordinal: ordinal, calls: make(chan func()), fns: map[string]cu.Function{}}
	started := make(chan error)
	go d.loop(started, o)
	if err := <-started; err != nil {
		return nil, err
	}
	return d, nil
}

// loop owns the OS thread of the device's context for its whole life.
func (d *device) loop(started chan<- error, o Options) {
	runtime.LockOSThread()
	err := d.start(o)
	started <- err
	if err != nil {
		return
	}
	for f := range d.calls {
		f()
	}
	d.ctx.Destroy()
}

func (d *device) fail(op string, err error) error {
	if err == nil {
		return nil
	}
	return &CUDAError{Op: op, Device: d.ordinal, Err: err}
}

func (d *device) start(o Options) error {
	dev, err := cu.GetDevice(d.ordinal)
	if err != nil {
		return d.fail("get device", err)
	}
	if d.name, err = dev.Name(); err != nil {
		return d.fail("device name", err)
	}
	if d.sms, err = dev.Attribute(cu.MultiprocessorCount); err != nil {
		return d.fail("multiprocessor count", err)
	}
	if d.total, err = dev.TotalMem(); err != nil {
		return d.fail("total memory", err)
	}
	if d.ccMajor, err = dev.Attribute(cu.ComputeCapabilityMajor); err != nil {
		return d.fail("compute capability", err)
	}
	if d.ccMinor, err = dev.Attribute(cu.ComputeCapabilityMinor); err != nil {
		return d.fail("compute capability", err)
	}
	if d.ctx, err = dev.MakeContext(cu.SchedAuto); err != nil {
		return d.fail("create context", err)
	}
	// All modules load at start: a module the driver cannot load fails
	// here, not in the middle of a batch.
	if d.mod, err = d.loadModule("temporal", kernels.TemporalSM90, kernels.TemporalPTX); err != nil {
		return err
	}
	for _, n := range kernelNames {
		if d.fns[n], err = d.mod.Function(n); err != nil {
			return d.fail("kernel "+n, err)
		}
	}
	if d.planP, _, err = d.mod.Global("P"); err != nil {
		return d.fail("constant P", err)
	}
	if d.planF, _, err = d.mod.Global("PF"); err != nil {
		return d.fail("constant PF", err)
	}
	d.queueCap, d.outCap = int64(o.QueueTasks), int64(o.OutRecords)
	d.group = o.tune.BatchGroup
	d.expand2Roots = o.tune.Expand2Roots
	if d.ctl, err = d.pool.get(d, maxQueries*ctlSlots*8); err != nil {
		return err
	}
	if d.queue, err = d.pool.get(d, d.queueCap*taskBytes); err != nil {
		return err
	}
	return nil
}

// do runs f on the device's thread and waits for it.
func (d *device) do(f func() error) error {
	errc := make(chan error, 1)
	d.calls <- func() {
		t0 := time.Now()
		err := f()
		d.busy += time.Since(t0)
		d.stats.Store(&DeviceStats{Index: d.id, HeldBytes: d.pool.held, InUseBytes: d.pool.inUse,
			WindowBytes: d.win.deviceBytes(), WindowEdges: d.win.end - d.win.first, Busy: d.busy,
			Sync: d.syncTime, Mine: d.mineTime, Drain: d.drainTime})
		errc <- err
	}
	return <-errc
}

func (d *device) close() {
	d.do(func() error {
		d.pool.releaseAll()
		return nil
	})
	close(d.calls)
}

// launch starts kernel name; args are device pointers or int64s (the
// binding passes every parameter as 8 bytes).
func (d *device) launch(name string, grid, block int, args ...any) error {
	if grid <= 0 {
		return nil
	}
	vals := make([]uint64, len(args))
	ptrs := make([]unsafe.Pointer, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case cu.DevicePtr:
			vals[i] = uint64(v)
		case int64:
			vals[i] = uint64(v)
		case int:
			vals[i] = uint64(int64(v))
		default:
			panic(fmt.Sprintf("gpu: kernel %s argument %d has type %T", name, i, a))
		}
		ptrs[i] = unsafe.Pointer(&vals[i])
	}
	f, ok := d.fns[name]
	if !ok {
		panic(fmt.Sprintf("gpu: kernel %s is not loaded (kernelNames lists the temporal module's kernels)", name))
	}
	if err := f.Launch(grid, 1, 1, block, 1, 1, 0, cu.Stream{}, ptrs); err != nil {
		return d.fail("launch "+name, err)
	}
	return nil
}

// sync waits for the device and reports an asynchronous kernel fault.
func (d *device) sync(what string) error {
	return d.fail(what, cu.Synchronize())
}

func blocks(n int64, per int) int { return int((n + int64(per) - 1) / int64(per)) }

func (d *device) htod(dst cu.DevicePtr, src unsafe.Pointer, bytes int64) error {
	if bytes == 0 {
		return nil
	}
	return d.fail("copy to device", cu.MemcpyHtoD(dst, src, bytes))
}

func (d *device) dtoh(dst unsafe.Pointer, src cu.DevicePtr, bytes int64) error {
	if bytes == 0 {
		return nil
	}
	return d.fail("copy from device", cu.MemcpyDtoH(dst, src, bytes))
}

// pool recycles device buffers by power-of-two size class, so per-batch
// scratch does not call cuMemAlloc (which synchronises) every batch.
type pool struct {
	free  map[int64][]cu.DevicePtr
	size  map[cu.DevicePtr]int64
	inUse int64
	held  int64
}

func sizeClass(n int64) int64 {
	if n < 256 {
		return 256
	}
	return 1 << bits.Len64(uint64(n-1))
}

func (p *pool) get(d *device, n int64) (cu.DevicePtr, error) {
	if p.free == nil {
		p.free, p.size = map[int64][]cu.DevicePtr{}, map[cu.DevicePtr]int64{}
	}
	c := sizeClass(n)
	if l := p.free[c]; len(l) > 0 {
		ptr := l[len(l)-1]
		p.free[c] = l[:len(l)-1]
		p.inUse += c
		return ptr, nil
	}
	ptr, err := cu.MemAlloc(c)
	if err != nil {
		// Give cached buffers back and try once more before failing.
		p.trim()
		if ptr, err = cu.MemAlloc(c); err != nil {
			free, _, _ := cu.MemInfo()
			return 0, &OutOfMemoryError{Device: d.ordinal, Need: c, Total: free, What: "a buffer"}
		}
	}
	p.size[ptr] = c
	p.inUse += c
	p.held += c
	return ptr, nil
}

func (p *pool) put(ptr cu.DevicePtr) {
	if ptr == 0 {
		return
	}
	c := p.size[ptr]
	p.free[c] = append(p.free[c], ptr)
	p.inUse -= c
}

func (p *pool) trim() {
	for c, l := range p.free {
		for _, ptr := range l {
			cu.MemFree(ptr)
			delete(p.size, ptr)
			p.held -= c
		}
		delete(p.free, c)
	}
}

func (p *pool) releaseAll() {
	for ptr := range p.size {
		cu.MemFree(ptr)
	}
	p.free, p.size, p.inUse, p.held = nil, nil, 0, 0
}

//go:build cuda

package gpu

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"unsafe"

	"gorgonia.org/cu"

	"github.com/motifwatch/motifwatch/gpm"
	"github.com/motifwatch/motifwatch/kernels"
)

// Layout constants of kernels/gpm.cu.
const (
	gpmMaxK     = 32 // MAXK: tr slots per warp
	gpmLevels   = gpmMaxK + 1
	gpmWPB      = 4 // WPB: warps per block
	gpmMaxMotif = 8 // dense raw-code tally: 2^28 counters at k = 8
	// gpmSlice is the iterations a warp runs per kernel slice when
	// balancing: between slices the host reads the warps' activity.
	gpmSlice = 1024
)

// GPM is the static GPM engine on one device (see GPMOptions): the
// workflow of gpm/te.go run by warps over TE arrays in global memory.
type GPM struct {
	mu sync.Mutex
	o  GPMOptions
	d  *device
}

var _ gpm.Engine = (*GPM)(nil)

// NewGPM opens the device and loads kernels/gpm.ptx.
func NewGPM(o GPMOptions) (*GPM, error) {
	if o.Threshold <= 0 || o.Threshold > 1 {
		o.Threshold = 0.5
	}
	d, err := openDevice(0, o.Device, Options{QueueTasks: 1, OutRecords: 1}.withDefaults())
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoDevice, err)
	}
	err = d.do(func() error {
		mod, err := cu.LoadData(kernels.GPMPTX)
		if err != nil {
			return d.fail("load kernels/gpm.ptx", err)
		}
		for _, n := range []string{"gpmRun", "gpmZero"} {
			if d.fns[n], err = mod.Function(n); err != nil {
				return d.fail("kernel "+n, err)
			}
		}
		return nil
	})
	if err != nil {
		d.close()
		return nil, err
	}
	return &GPM{o: o, d: d}, nil
}

// Close releases the device.
func (e *GPM) Close() error {
	if e.d != nil {
		e.d.close()
		e.d = nil
	}
	return nil
}

// gpmState is the host copy of every warp's TE bookkeeping (not the
// extension arrays, which stay on the device).
type gpmState struct {
	tr       []uint32
	code     []uint64
	nxt, cnt []int64
	st       []int64 // len, base, root offset, root stride
}

func newGPMState(warps int) *gpmState {
	return &gpmState{tr: make([]uint32, warps*gpmMaxK), code: make([]uint64, warps*gpmLevels),
		nxt: make([]int64, warps*gpmLevels), cnt: make([]int64, warps*gpmLevels), st: make([]int64, warps*4)}
}

// gpmBuffers are the device arrays of one run.
type gpmBuffers struct {
	off, adj, tr, code, nxt, cnt, st, ext, counts, ctl cu.DevicePtr
}

// Run implements gpm.Engine.
func (e *GPM) Run(ctx context.Context, g *gpm.Graph, job gpm.Job) (*gpm.Result, error) {
	if err := job.Validate(); err != nil {
		return nil, err
	}
	if job.Enumerate > 0 {
		return nil, errors.New("gpu gpm: enumerate mode runs on the CPU engine (--backend cpu)")
	}
	if job.App == gpm.Motif && job.K > gpmMaxMotif {
		return nil, fmt.Errorf("gpu gpm: motif k = %d: the device tally holds k ≤ %d", job.K, gpmMaxMotif)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	d := e.d
	tg := gpm.Prepare(g, job.App)
	n := tg.N()
	warps := e.o.Warps
	if warps <= 0 {
		warps = 64 * d.sms
	}
	warps = max(min(warps, n), 1)
	// Per-level capacity: the summed degree of the traversal (motifs) or
	// one upward list (cliques).
	c := int64(max(tg.MaxDegree(), 1))
	if job.App == gpm.Motif {
		c *= int64(job.K)
	}
	countsLen := int64(warps)
	if job.App == gpm.Motif {
		countsLen = 1 << gpm.PairBit(0, job.K)
	}
	extBytes := int64(warps) * int64(job.K) * c * 8
	need := extBytes + countsLen*8 + int64(warps)*(gpmMaxK*4+3*gpmLevels*8+32) + int64(len(tg.Offsets()))*8 + int64(len(tg.Adj()))*4
	limit := e.o.MemoryLimit
	if limit <= 0 {
		limit = d.total / 2
	}
	if need > limit {
		return nil, fmt.Errorf("%w: gpu %s k=%d needs %d MiB (%d warps × max degree %d × k² %d × 8 B of TE arrays, plus tallies and the graph) but the limit is %d MiB; use fewer warps (--workers)",
			gpm.ErrMemory, job.App, job.K, need>>20, warps, tg.MaxDegree(), job.K*job.K, limit>>20)
	}
	res := &gpm.Result{App: job.App, K: job.K, Stats: gpm.Stats{Backend: "gpu", Workers: warps, Footprint: need}}

	s := newGPMState(warps)
	for w := range warps {
		s.st[w*4+2], s.st[w*4+3] = int64(w), int64(warps)
		s.cnt[w*gpmLevels] = int64((n - w + warps - 1) / warps) // roots w, w+warps, …
	}
	var b gpmBuffers
	var counts []uint64
	err := d.do(func() (err error) {
		defer func() {
			for _, p := range []cu.DevicePtr{b.off, b.adj, b.tr, b.code, b.nxt, b.cnt, b.st, b.ext, b.counts, b.ctl} {
				d.pool.put(p)
			}
		}()
		alloc := func(p *cu.DevicePtr, bytes int64) {
			if err == nil {
				*p, err = d.pool.get(d, max(bytes, 8))
			}
		}
		alloc(&b.off, int64(len(tg.Offsets()))*8)
		alloc(&b.adj, int64(len(tg.Adj()))*4)
		alloc(&b.tr, int64(len(s.tr))*4)
		alloc(&b.code, int64(len(s.code))*8)
		alloc(&b.nxt, int64(len(s.nxt))*8)
		alloc(&b.cnt, int64(len(s.cnt))*8)
		alloc(&b.st, int64(len(s.st))*8)
		alloc(&b.ext, extBytes)
		alloc(&b.counts, countsLen*8)
		alloc(&b.ctl, 16)
		if err != nil {
			return err
		}
		if err := d.htod(b.off, unsafe.Pointer(&tg.Offsets()[0]), int64(len(tg.Offsets()))*8); err != nil {
			return err
		}
		if len(tg.Adj()) > 0 {
			if err := d.htod(b.adj, unsafe.Pointer(&tg.Adj()[0]), int64(len(tg.Adj()))*4); err != nil {
				return err
			}
		}
		if err := s.upload(d, &b); err != nil {
			return err
		}
		if err := d.launch("gpmZero", 1024, 256, b.counts, countsLen); err != nil {
			return err
		}
		budget := int64(math.MaxInt64)
		if e.o.Balance {
			budget = gpmSlice
		}
		app := int64(0)
		if job.App == gpm.Motif {
			app = 1
		}
		threshold := int64(math.Ceil(e.o.Threshold * float64(warps)))
		for {
			if err := ctx.Err(); err != nil {
				return err
			}
			ctl := [2]int64{}
			if err := d.htod(b.ctl, unsafe.Pointer(&ctl[0]), 16); err != nil {
				return err
			}
			if err := d.launch("gpmRun", blocks(int64(warps), gpmWPB), gpmWPB*32, b.off, b.adj, app, int64(job.K),
				int64(warps), c, budget, b.tr, b.code, b.nxt, b.cnt, b.st, b.ext, b.counts, b.ctl); err != nil {
				return err
			}
			if err := d.sync("gpmRun"); err != nil {
				return err
			}
			if err := d.dtoh(unsafe.Pointer(&ctl[0]), b.ctl, 16); err != nil {
				return err
			}
			res.Stats.Traversals += uint64(ctl[1])
			if ctl[0] == 0 {
				break
			}
			if ctl[0] < threshold && e.o.Balance {
				if err := s.download(d, &b); err != nil {
					return err
				}
				moved, err := s.redistribute(d, &b, warps, job.K, c)
				if err != nil {
					return err
				}
				res.Stats.Rebalances++
				res.Stats.Moved += int64(moved)
				if err := s.upload(d, &b); err != nil {
					return err
				}
			}
		}
		counts = make([]uint64, countsLen)
		return d.dtoh(unsafe.Pointer(&counts[0]), b.counts, countsLen*8)
	})
	if err != nil {
		return nil, err
	}
	if job.App == gpm.Clique {
		var total uint64
		for _, x := range counts {
			total += x
		}
		gpm.CliqueResult(res, total)
		return res, nil
	}
	raw := gpm.NewRawCounts(job.K)
	for code, x := range counts {
		if x != 0 {
			raw.Add(uint64(code), x)
		}
	}
	gpm.Finish(res, raw)
	return res, nil
}

func (s *gpmState) upload(d *device, b *gpmBuffers) error {
	return errors.Join(
		d.htod(b.tr, unsafe.Pointer(&s.tr[0]), int64(len(s.tr))*4),
		d.htod(b.code, unsafe.Pointer(&s.code[0]), int64(len(s.code))*8),
		d.htod(b.nxt, unsafe.Pointer(&s.nxt[0]), int64(len(s.nxt))*8),
		d.htod(b.cnt, unsafe.Pointer(&s.cnt[0]), int64(len(s.cnt))*8),
		d.htod(b.st, unsafe.Pointer(&s.st[0]), int64(len(s.st))*8))
}

func (s *gpmState) download(d *device, b *gpmBuffers) error {
	return errors.Join(
		d.dtoh(unsafe.Pointer(&s.tr[0]), b.tr, int64(len(s.tr))*4),
		d.dtoh(unsafe.Pointer(&s.code[0]), b.code, int64(len(s.code))*8),
		d.dtoh(unsafe.Pointer(&s.nxt[0]), b.nxt, int64(len(s.nxt))*8),
		d.dtoh(unsafe.Pointer(&s.cnt[0]), b.cnt, int64(len(s.cnt))*8),
		d.dtoh(unsafe.Pointer(&s.st[0]), b.st, int64(len(s.st))*8))
}

// splittable returns warp w's shallowest level with unconsumed
// extensions below its current traversal, or -1 (gpm.TE.splittable).
func (s *gpmState) splittable(w int) int {
	length, base := s.st[w*4], s.st[w*4+1]
	for l := base; l < length; l++ {
		if s.nxt[w*gpmLevels+int(l)] < s.cnt[w*gpmLevels+int(l)] {
			return int(l)
		}
	}
	return -1
}

// redistribute is the paper's redistribute step on the parked warps'
// state: while there are idle warps and donors, the next donor in
// round-robin order gives the larger half of its shallowest unconsumed
// extensions to the next idle warp (level 0, the roots, is a range of
// the donor's stride; deeper levels are copied device to device). The
// receiver's TE starts at that level (base) with the donor's prefix.
func (s *gpmState) redistribute(d *device, b *gpmBuffers, warps, k int, c int64) (int, error) {
	var idle, donors []int
	for w := range warps {
		switch {
		case s.st[w*4] <= s.st[w*4+1]:
			idle = append(idle, w)
		case s.splittable(w) >= 0:
			donors = append(donors, w)
		}
	}
	moved := 0
	for i := 0; len(idle) > 0 && len(donors) > 0; {
		i %= len(donors)
		dw := donors[i]
		l := s.splittable(dw)
		if l < 0 {
			donors = append(donors[:i], donors[i+1:]...)
			continue
		}
		rw := idle[0]
		idle = idle[1:]
		dl, rl := dw*gpmLevels+l, rw*gpmLevels+l
		rest := s.cnt[dl] - s.nxt[dl]
		give := (rest + 1) / 2
		cut := s.cnt[dl] - give
		copy(s.tr[rw*gpmMaxK:rw*gpmMaxK+l], s.tr[dw*gpmMaxK:dw*gpmMaxK+l])
		copy(s.code[rw*gpmLevels:rw*gpmLevels+l+1], s.code[dw*gpmLevels:dw*gpmLevels+l+1])
		s.st[rw*4], s.st[rw*4+1] = int64(l), int64(l)
		if l == 0 {
			s.st[rw*4+2], s.st[rw*4+3] = s.st[dw*4+2], s.st[dw*4+3]
			s.nxt[rl], s.cnt[rl] = cut, s.cnt[dl]
		} else {
			src := b.ext + cu.DevicePtr(((int64(dw)*int64(k)+int64(l))*c+cut)*8)
			dst := b.ext + cu.DevicePtr((int64(rw)*int64(k)+int64(l))*c*8)
			if err := d.fail("copy extensions", cu.MemcpyDtoD(dst, src, give*8)); err != nil {
				return moved, err
			}
			s.nxt[rl], s.cnt[rl] = 0, give
		}
		s.cnt[dl] = cut
		moved++
		i++
	}
	return moved, nil
}

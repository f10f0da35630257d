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
	"github.com/motifwatch/motifwatch/internal/backend"
	"github.com/motifwatch/motifwatch/kernels"
)

// Layout constants of kernels/gpm.cu.
const (
	gpmWPB      = 4 // WPB: warps per block
	gpmMaxMotif = 8 // dense raw-code tally: 2^28 counters at k = 8
	// gpmSlice is the iterations a warp runs per kernel slice when
	// balancing: between slices the host reads the warps' activity.
	gpmSlice = 1024
	// gpmCtl is the words of ctl: warps parked with work left,
	// iterations, cliques.
	gpmCtl = 3
)

// GPM is the static GPM engine on one device (see GPMOptions): the
// workflow of gpm/te.go run by warps over TE arrays in global memory.
type GPM struct {
	mu sync.Mutex
	o  GPMOptions
	d  *device
}

var _ gpm.Engine = (*GPM)(nil)

// gpmKernels are the gpm module's kernels.
var gpmKernels = []string{"gpmRun", "gpmCliquePA", "gpmMoveExt", "gpmZero"}

// NewGPM opens the device and loads kernels' gpm module.
func NewGPM(o GPMOptions) (*GPM, error) {
	if o.Threshold <= 0 || o.Threshold > 1 {
		o.Threshold = 0.5
	}
	d, err := openDevice(0, o.Device, Options{QueueTasks: 1, OutRecords: 1}.withDefaults())
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoDevice, err)
	}
	err = d.do(func() error {
		mod, err := d.loadModule("gpm", kernels.GPMSM90, kernels.GPMPTX)
		if err != nil {
			return err
		}
		for _, n := range gpmKernels {
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
// extension arrays, which stay on the device), in the kernels' layout:
// per warp k traversal slots and k+1 levels. A run makes it only when it
// first redistributes: until then the TEs live on the device alone.
type gpmState struct {
	k, lv          int // strides: traversal slots, levels
	tr             []uint32
	code           []uint64 // gpmRun only
	nxt, cnt, full []int64  // full: gpmCliquePA only
	st             []int64  // len, base, root offset, root stride
	// moves are a redistribution's extension runs for gpmMoveExt.
	moves []int64
}

func newGPMState(warps, k int, pa bool) *gpmState {
	lv := k + 1
	s := &gpmState{k: k, lv: lv, tr: make([]uint32, warps*k), nxt: make([]int64, warps*lv), cnt: make([]int64, warps*lv),
		st: make([]int64, warps*4)}
	if pa {
		s.full = make([]int64, warps*lv)
	} else {
		s.code = make([]uint64, warps*lv)
	}
	return s
}

// gpmBuffers are the device arrays of one run.
type gpmBuffers struct {
	off, adj, tr, code, nxt, cnt, full, st, ext, counts, ctl cu.DevicePtr
	moves                                                    cu.DevicePtr // made at the first redistribution
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
	pa := job.App == gpm.Clique && !e.o.LiteralCliques
	warps := e.o.Warps
	if warps <= 0 {
		warps = 64 * d.sms
	}
	if !e.o.Balance {
		// Without redistribution a warp past the roots never gets work;
		// with it, warps beyond them (small graphs) take donated subtrees.
		warps = min(warps, n)
	}
	warps = max(warps, 1)
	// Per-level capacity: the summed degree of the traversal (motifs) or
	// one upward list (cliques). Pattern-aware cliques keep the vertex
	// alone (4 B), the others vertex and adjacency bits (8 B).
	c := int64(max(tg.MaxDegree(), 1))
	if job.App == gpm.Motif {
		c *= int64(job.K)
	}
	elem := int64(8)
	if pa {
		elem = 4
	}
	countsLen := int64(0)
	if job.App == gpm.Motif {
		countsLen = 1 << gpm.PairBit(0, job.K)
	}
	extBytes := int64(warps) * int64(job.K) * c * elem
	lv := int64(job.K) + 1 // levels per warp
	need := extBytes + countsLen*8 + int64(warps)*(int64(job.K)*4+4*lv*8+32) + int64(len(tg.Offsets()))*8 + int64(len(tg.Adj()))*4
	limit := e.o.MemoryLimit
	if limit <= 0 {
		limit = d.total / 2
	}
	if need > limit {
		per := "max degree"
		if job.App == gpm.Motif {
			per = "k × max degree"
		}
		return nil, fmt.Errorf("%w: gpu %s k=%d needs %d MiB (TE arrays of %d warps × k = %d levels × %d entries (%s) × %d B, plus tallies and the graph) but the limit is %d MiB; use fewer warps (--workers)",
			gpm.ErrMemory, job.App, job.K, need>>20, warps, job.K, c, per, elem, limit>>20)
	}
	res := &gpm.Result{App: job.App, K: job.K, Stats: gpm.Stats{Backend: backend.GPU, Workers: warps, Footprint: need}}

	var b gpmBuffers
	var counts []uint64
	var cliques uint64
	err := d.do(func() (err error) {
		defer func() {
			for _, p := range []cu.DevicePtr{b.off, b.adj, b.tr, b.code, b.nxt, b.cnt, b.full, b.st, b.ext, b.counts, b.ctl, b.moves} {
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
		alloc(&b.tr, int64(warps)*int64(job.K)*4)
		alloc(&b.nxt, int64(warps)*lv*8)
		alloc(&b.cnt, int64(warps)*lv*8)
		if pa {
			alloc(&b.full, int64(warps)*lv*8)
		} else {
			alloc(&b.code, int64(warps)*lv*8)
		}
		alloc(&b.st, int64(warps)*4*8)
		alloc(&b.ext, extBytes)
		alloc(&b.counts, countsLen*8)
		alloc(&b.ctl, gpmCtl*8)
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
		if countsLen > 0 {
			if err := d.launch("gpmZero", 1024, 256, b.counts, countsLen); err != nil {
				return err
			}
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
		// The first launch starts every warp on its roots (fresh): a job
		// that ends within it is one launch and one synchronise, with
		// only ctl crossing the bus. s, the host copy of the TEs, is made
		// at the first redistribution.
		var s *gpmState
		fresh := int64(1)
		for ; ; fresh = 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			ctl := [gpmCtl]int64{}
			if err := d.htod(b.ctl, unsafe.Pointer(&ctl[0]), gpmCtl*8); err != nil {
				return err
			}
			grid := blocks(int64(warps), gpmWPB)
			if pa {
				err = d.launch("gpmCliquePA", grid, gpmWPB*32, b.off, b.adj, int64(job.K), int64(warps), c, budget,
					fresh, int64(n), b.tr, b.nxt, b.cnt, b.full, b.st, b.ext, b.ctl)
			} else {
				err = d.launch("gpmRun", grid, gpmWPB*32, b.off, b.adj, app, int64(job.K), int64(warps), c, budget,
					fresh, int64(n), b.tr, b.code, b.nxt, b.cnt, b.st, b.ext, b.counts, b.ctl)
			}
			if err != nil {
				return err
			}
			if err := d.sync("gpm kernel"); err != nil {
				return err
			}
			if err := d.dtoh(unsafe.Pointer(&ctl[0]), b.ctl, gpmCtl*8); err != nil {
				return err
			}
			res.Stats.Traversals += uint64(ctl[1])
			cliques += uint64(ctl[2])
			if ctl[0] == 0 {
				break
			}
			if ctl[0] < threshold && e.o.Balance {
				if s == nil {
					s = newGPMState(warps, job.K, pa)
					if b.moves, err = d.pool.get(d, int64(warps)*3*8); err != nil {
						return err
					}
				}
				if err := s.download(d, &b); err != nil {
					return err
				}
				moved, err := s.redistribute(d, &b, warps, c, elem, pa)
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
		if countsLen == 0 {
			return nil
		}
		counts = make([]uint64, countsLen)
		return d.dtoh(unsafe.Pointer(&counts[0]), b.counts, countsLen*8)
	})
	if err != nil {
		return nil, err
	}
	if job.App == gpm.Clique {
		gpm.CliqueResult(res, cliques)
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

// gpmArray is one state slice and its device buffer.
type gpmArray struct {
	dev   cu.DevicePtr
	host  unsafe.Pointer
	bytes int64
}

// arrays pairs the state's slices with their device buffers.
func (s *gpmState) arrays(b *gpmBuffers) []gpmArray {
	a := []gpmArray{{b.tr, unsafe.Pointer(&s.tr[0]), int64(len(s.tr)) * 4}, {b.nxt, unsafe.Pointer(&s.nxt[0]), int64(len(s.nxt)) * 8},
		{b.cnt, unsafe.Pointer(&s.cnt[0]), int64(len(s.cnt)) * 8}, {b.st, unsafe.Pointer(&s.st[0]), int64(len(s.st)) * 8}}
	if s.full != nil {
		a = append(a, gpmArray{b.full, unsafe.Pointer(&s.full[0]), int64(len(s.full)) * 8})
	}
	if s.code != nil {
		a = append(a, gpmArray{b.code, unsafe.Pointer(&s.code[0]), int64(len(s.code)) * 8})
	}
	return a
}

func (s *gpmState) upload(d *device, b *gpmBuffers) error {
	for _, a := range s.arrays(b) {
		if err := d.htod(a.dev, a.host, a.bytes); err != nil {
			return err
		}
	}
	return nil
}

func (s *gpmState) download(d *device, b *gpmBuffers) error {
	for _, a := range s.arrays(b) {
		if err := d.dtoh(a.host, a.dev, a.bytes); err != nil {
			return err
		}
	}
	return nil
}

// splittable returns warp w's shallowest level with unconsumed
// extensions below its current traversal, or -1 (gpm.TE.splittable).
func (s *gpmState) splittable(w int) int {
	length, base := s.st[w*4], s.st[w*4+1]
	for l := base; l < length; l++ {
		if s.nxt[w*s.lv+int(l)] < s.cnt[w*s.lv+int(l)] {
			return int(l)
		}
	}
	return -1
}

// redistribute is the paper's redistribute step on the parked warps'
// state: while there are idle warps and donors, the next donor in
// round-robin order gives the larger half of its shallowest unconsumed
// extensions to the next idle warp (level 0, the roots, is a range of
// the donor's stride; deeper levels are copied device to device, all of
// a redistribution's runs by one gpmMoveExt launch). The receiver's TE
// starts at that level (base) with the donor's prefix. Pattern-aware
// cliques (pa; extensions of elem = 4 B) copy the whole tail of the
// donor's candidates from the cut (full, not cnt): a vertex given away
// at this level is still a candidate deeper in the donor's subtree, and
// the receiver's deeper levels narrow the tail (gpm.TE.Split's Cands).
func (s *gpmState) redistribute(d *device, b *gpmBuffers, warps int, c, elem int64, pa bool) (int, error) {
	var idle, donors []int
	for w := range warps {
		switch {
		case s.st[w*4] <= s.st[w*4+1]:
			idle = append(idle, w)
		case s.splittable(w) >= 0:
			donors = append(donors, w)
		}
	}
	k, lv, words := int64(s.k), s.lv, elem/4
	s.moves = s.moves[:0]
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
		dl, rl := dw*lv+l, rw*lv+l
		rest := s.cnt[dl] - s.nxt[dl]
		give := (rest + 1) / 2
		cut := s.cnt[dl] - give
		copy(s.tr[rw*s.k:rw*s.k+l], s.tr[dw*s.k:dw*s.k+l])
		if s.code != nil {
			copy(s.code[rw*lv:rw*lv+l+1], s.code[dw*lv:dw*lv+l+1])
		}
		s.st[rw*4], s.st[rw*4+1] = int64(l), int64(l)
		if l == 0 {
			s.st[rw*4+2], s.st[rw*4+3] = s.st[dw*4+2], s.st[dw*4+3]
			s.nxt[rl], s.cnt[rl] = cut, s.cnt[dl]
			if pa {
				s.full[rl] = s.cnt[dl]
			}
		} else {
			tail := give
			if pa {
				tail = s.full[dl] - cut
				s.full[rl] = tail
			}
			src := ((int64(dw)*k+int64(l))*c + cut) * words
			dst := (int64(rw)*k + int64(l)) * c * words
			s.moves = append(s.moves, src, dst, tail*words)
			s.nxt[rl], s.cnt[rl] = 0, give
		}
		s.cnt[dl] = cut
		moved++
		i++
	}
	if n := int64(len(s.moves) / 3); n > 0 {
		if err := d.htod(b.moves, unsafe.Pointer(&s.moves[0]), n*3*8); err != nil {
			return moved, err
		}
		if err := d.launch("gpmMoveExt", min(blocks(n, gpmWPB), 1024), gpmWPB*32, b.ext, b.moves, n); err != nil {
			return moved, err
		}
	}
	return moved, nil
}

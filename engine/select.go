package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/motifwatch/motifwatch/gpu"
	"github.com/motifwatch/motifwatch/internal/backend"
	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/motif/count3"
	"github.com/motifwatch/motifwatch/motif/cpu"
	"github.com/motifwatch/motifwatch/window"
)

// Selected is the engine a backend choice produced. Its Engine counts
// count-mode requests for SNAP's 36 three-edge shapes and the four-node
// stars with motif/count3 (on the host's cores unless
// gpu.Options.Count3Device, which counts them over the device's window
// mirror), on the CPU backend the two-edge and two-node four-edge shapes
// too, and mines everything else.
type Selected struct {
	motif.Engine
	// Backend is what runs: backend.GPU or backend.CPU, never Auto.
	Backend backend.Backend
	// GPU is the GPU engine when Backend is GPU (for its device metrics).
	GPU *gpu.Engine
}

// Close releases the devices, if any.
func (s *Selected) Close() error {
	if s.GPU != nil {
		return s.GPU.Close()
	}
	return nil
}

// Sync mirrors the window on the devices ahead of mining (the GPU
// backend; nothing on the CPU): see gpu.Engine.Sync.
func (s *Selected) Sync(ctx context.Context, w *window.Window) error {
	if s.GPU == nil {
		return nil
	}
	return s.GPU.Sync(ctx, w)
}

// Expect announces the plans that will be mined in count mode (see
// count3.Engine.Expect), replacing those announced before; a no-op for
// an engine that counts nothing.
func (s *Selected) Expect(plans ...*motif.Plan) {
	if e, ok := s.Engine.(interface{ Expect(...*motif.Plan) }); ok {
		e.Expect(plans...)
	}
}

// MineBatch counts plans over one request together where it can (the
// streaming processor's stream.BatchMiner, for a batch's count-only
// queries): the plans the GPU engine holds go to one gpu.Engine.MineBatch
// call (one launch); the SNAP shapes motif/count3 counts, the plans the
// kernel cannot hold, and everything on the CPU backend are mined plan by
// plan, as Mine would. Results are in plans' order.
func (s *Selected) MineBatch(ctx context.Context, w *window.Window, plans []*motif.Plan, req motif.Request) ([]motif.Result, error) {
	out := make([]motif.Result, len(plans))
	c3, _ := s.Engine.(*count3.Engine)
	var onGPU []int
	var gpuPlans []*motif.Plan
	for i, p := range plans {
		if s.GPU != nil && req.Sink == nil && (c3 == nil || !c3.Counts(w, p, req)) && gpu.Supports(p) == nil {
			onGPU, gpuPlans = append(onGPU, i), append(gpuPlans, p)
			continue
		}
		r, err := s.Engine.Mine(ctx, w, p, req)
		if err != nil {
			return out, err
		}
		out[i] = r
	}
	if len(gpuPlans) == 0 {
		return out, nil
	}
	rs, err := s.GPU.MineBatch(ctx, w, gpuPlans, req)
	for j, i := range onGPU[:min(len(rs), len(onGPU))] {
		out[i] = rs[j]
	}
	return out, err
}

// Counted returns the cell that the engine counts p's count-mode requests
// as (motif/count3), or false when they are mined.
func (s *Selected) Counted(p *motif.Plan) (count3.Cell, bool) {
	if c3, ok := s.Engine.(*count3.Engine); ok {
		return c3.Shape(p)
	}
	return -1, false
}

// Select builds the engine for a backend: cpu, gpu (an error when no
// device is usable) or auto (the GPU when one is usable, else the CPU with
// a logged warning). A GPU engine mines on the CPU the queries its kernel
// cannot hold (ErrUnsupported), with a warning once per query.
func Select(b backend.Backend, workers int, opts gpu.Options, log *slog.Logger) (*Selected, error) {
	exact := cpu.New(workers)
	counting := count3.Options{Workers: exact.Workers()}
	switch b {
	case backend.CPU, "":
		return &Selected{Engine: count3.NewEngine(exact, counting), Backend: backend.CPU}, nil
	case backend.GPU, backend.Auto:
	default:
		return nil, fmt.Errorf("engine backend %q: want auto, cpu or gpu", b)
	}
	g, err := gpu.New(opts)
	if err != nil {
		if b == backend.GPU {
			return nil, fmt.Errorf("engine backend gpu: %w", err)
		}
		log.Warn("engine backend auto: no usable GPU, mining on the CPU", "reason", err.Error(), "cuda_build", gpu.Available)
		return &Selected{Engine: count3.NewEngine(exact, counting), Backend: backend.CPU}, nil
	}
	for _, d := range g.Devices() {
		log.Info("GPU device opened", "index", d.Index, "ordinal", d.Ordinal, "name", d.Name,
			"multiprocessors", d.Multiprocessors, "memory_mib", d.TotalBytes>>20,
			"compute_capability", d.ComputeCapability, "kernels", d.Kernels)
	}
	// The Small family (two-edge and two-node four-edge shapes) stays
	// with the GPU kernel unless asked (gpu.Options.CountSmallOnHost): on
	// the host's cores its counting costs the whole window, which the
	// kernel beats at narrow δ; the trade-off against wide windows is not
	// measured on a device yet.
	if !opts.CountSmallOnHost {
		counting.Families = count3.Grid3
	}
	if opts.Count3Device {
		if c, err := g.Counter(); err != nil {
			log.Warn("SNAP-shape counting on the CPU", "reason", err.Error())
		} else {
			counting.Device = c
		}
	}
	return &Selected{Engine: count3.NewEngine(&fallback{gpu: g, cpu: exact, log: log}, counting), Backend: backend.GPU, GPU: g}, nil
}

// fallback mines on the GPU and hands plans the kernel cannot hold to the CPU.
type fallback struct {
	gpu    *gpu.Engine
	cpu    *cpu.Engine
	log    *slog.Logger
	warned sync.Map
}

func (f *fallback) Mine(ctx context.Context, w *window.Window, p *motif.Plan, req motif.Request) (motif.Result, error) {
	r, err := f.gpu.Mine(ctx, w, p, req)
	var un *gpu.ErrUnsupported
	if errors.As(err, &un) {
		if _, seen := f.warned.LoadOrStore(p.Query.Name, true); !seen {
			f.log.Warn("query mined on the CPU", "query", p.Query.Name, "reason", un.Reason)
		}
		return f.cpu.Mine(ctx, w, p, req)
	}
	return r, err
}

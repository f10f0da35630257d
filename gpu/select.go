package gpu

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/motif/count3"
	"github.com/motifwatch/motifwatch/window"
)

// Backends, as config's engine.backend and `monitor mine --backend` name them.
const (
	BackendAuto = "auto"
	BackendCPU  = "cpu"
	BackendGPU  = "gpu"
)

// Selected is the engine a backend choice produced. Its Engine counts
// count-mode requests for SNAP's 36 three-edge shapes with motif/count3
// (on the host's cores unless Options.Count3Device: the device path is
// slower, Options.Count3Device says by how much) and mines everything else.
type Selected struct {
	motif.Engine
	// Backend is what runs: "gpu" or "cpu".
	Backend string
	// GPU is the GPU engine when Backend is "gpu" (for its device metrics).
	GPU *Engine
}

// Close releases the devices, if any.
func (s *Selected) Close() error {
	if s.GPU != nil {
		return s.GPU.Close()
	}
	return nil
}

// Sync mirrors the window on the devices ahead of mining (the GPU
// backend; nothing on the CPU): see Engine.Sync.
func (s *Selected) Sync(ctx context.Context, w *window.Window) error {
	if s.GPU == nil {
		return nil
	}
	return s.GPU.Sync(ctx, w)
}

// Select builds the engine for a backend: cpu, gpu (an error when no
// device is usable) or auto (the GPU when one is usable, else the CPU with
// a logged warning). A GPU engine mines on the CPU the queries its kernel
// cannot hold (ErrUnsupported), with a warning once per query.
func Select(backend string, workers int, opts Options, log *slog.Logger) (*Selected, error) {
	cpu := motif.NewCPU(workers)
	counting := count3.Options{Workers: cpu.Workers()}
	switch backend {
	case BackendCPU, "":
		return &Selected{Engine: count3.NewEngine(cpu, counting), Backend: BackendCPU}, nil
	case BackendGPU, BackendAuto:
	default:
		return nil, fmt.Errorf("engine backend %q: want auto, cpu or gpu", backend)
	}
	g, err := New(opts)
	if err != nil {
		if backend == BackendGPU {
			return nil, fmt.Errorf("engine backend gpu: %w", err)
		}
		log.Warn("engine backend auto: no usable GPU, mining on the CPU", "reason", err.Error(), "cuda_build", Available)
		return &Selected{Engine: count3.NewEngine(cpu, counting), Backend: BackendCPU}, nil
	}
	for _, d := range g.Devices() {
		log.Info("GPU device opened", "index", d.Index, "ordinal", d.Ordinal, "name", d.Name,
			"multiprocessors", d.Multiprocessors, "memory_mib", d.TotalBytes>>20)
	}
	if opts.count3OnDevice() {
		if c, err := g.Counter(); err != nil {
			log.Warn("SNAP-shape counting on the CPU", "reason", err.Error())
		} else {
			counting.Device = c
		}
	}
	return &Selected{Engine: count3.NewEngine(&fallback{gpu: g, cpu: cpu, log: log}, counting), Backend: BackendGPU, GPU: g}, nil
}

// fallback mines on the GPU and hands plans the kernel cannot hold to the CPU.
type fallback struct {
	gpu    *Engine
	cpu    *motif.CPU
	log    *slog.Logger
	warned sync.Map
}

func (f *fallback) Mine(ctx context.Context, w *window.Window, p *motif.Plan, req motif.Request) (motif.Result, error) {
	r, err := f.gpu.Mine(ctx, w, p, req)
	var un *ErrUnsupported
	if errors.As(err, &un) {
		if _, seen := f.warned.LoadOrStore(p.Query.Name, true); !seen {
			f.log.Warn("query mined on the CPU", "query", p.Query.Name, "reason", un.Reason)
		}
		return f.cpu.Mine(ctx, w, p, req)
	}
	return r, err
}

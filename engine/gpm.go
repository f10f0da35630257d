package engine

import (
	"github.com/motifwatch/motifwatch/gpm"
	"github.com/motifwatch/motifwatch/gpu"
	"github.com/motifwatch/motifwatch/internal/backend"
)

// GPM builds the static-GPM engine for b: cpu, gpu (the device's error
// when it does not open) or auto (the GPU when it opens, else the CPU,
// after telling noGPU why). close releases the device, if any.
func GPM(b backend.Backend, onGPU gpu.GPMOptions, onCPU gpm.CPUOptions, noGPU func(reason error)) (e gpm.Engine, close func() error, err error) {
	if b == backend.GPU || b == backend.Auto {
		g, err := gpu.NewGPM(onGPU)
		switch {
		case err == nil:
			return g, g.Close, nil
		case b == backend.GPU:
			return nil, nil, err
		}
		noGPU(err)
	}
	return gpm.NewCPU(onCPU), func() error { return nil }, nil
}

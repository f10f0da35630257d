//go:build !cuda

package gpu

import (
	"context"
	"fmt"

	"github.com/motifwatch/motifwatch/gpm"
)

// GPM is the static GPM engine's twin in builds without CUDA: NewGPM
// always fails with ErrNoDevice.
type GPM struct{}

var _ gpm.Engine = (*GPM)(nil)

// NewGPM reports that this build has no CUDA support.
func NewGPM(o GPMOptions) (*GPM, error) {
	return nil, fmt.Errorf("%w: this binary was built without the cuda build tag (go build -tags cuda)", ErrNoDevice)
}

// Run implements gpm.Engine; it never runs (NewGPM fails).
func (e *GPM) Run(ctx context.Context, g *gpm.Graph, job gpm.Job) (*gpm.Result, error) {
	return nil, ErrNoDevice
}

// Close releases nothing.
func (e *GPM) Close() error { return nil }

//go:build !cuda

package gpu

import (
	"context"

	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/motif/count3"
	"github.com/motifwatch/motifwatch/window"
)

// Available reports whether this build can drive CUDA devices: false, it
// was built without the `cuda` tag.
const Available = false

// Engine is the GPU engine's twin in builds without CUDA: New always
// fails with ErrNoDevice, so callers take the CPU path.
type Engine struct{}

var _ motif.Engine = (*Engine)(nil)

// New reports that this build has no CUDA support.
func New(opts Options) (*Engine, error) {
	return nil, ErrNoDevice
}

// Mine implements motif.Engine; it never runs (New fails).
func (e *Engine) Mine(ctx context.Context, w *window.Window, p *motif.Plan, req motif.Request) (motif.Result, error) {
	return motif.Result{}, ErrNoDevice
}

// MineBatch fails: no devices.
func (e *Engine) MineBatch(ctx context.Context, w *window.Window, plans []*motif.Plan, req motif.Request) ([]motif.Result, error) {
	return nil, ErrNoDevice
}

// Prepare fails: no devices.
func (e *Engine) Prepare(ctx context.Context, w *window.Window) error { return ErrNoDevice }

// Sync fails: no devices.
func (e *Engine) Sync(ctx context.Context, w *window.Window) error { return ErrNoDevice }

// Close releases nothing.
func (e *Engine) Close() error { return nil }

// Devices lists no devices.
func (e *Engine) Devices() []DeviceInfo { return nil }

// Stats reports no devices.
func (e *Engine) Stats() []DeviceStats { return nil }

// Counter is the device counter's twin: Engine.Counter always fails.
type Counter struct{}

var _ count3.Device = (*Counter)(nil)

// Counter reports that this build has no CUDA support.
func (e *Engine) Counter() (*Counter, error) { return nil, ErrNoDevice }

// CountSequences never runs (Counter fails).
func (c *Counter) CountSequences(ctx context.Context, s *count3.Sequences, delta int64) (count3.Raw, error) {
	return count3.Raw{}, ErrNoDevice
}

//go:build cuda

package engine_test

import (
	"errors"
	"log/slog"
	"testing"

	"github.com/motifwatch/motifwatch/engine"
	"github.com/motifwatch/motifwatch/gpu"
	"github.com/motifwatch/motifwatch/internal/backend"
	"github.com/motifwatch/motifwatch/motif/count3"
)

// Select counts SNAP's shapes on the host unless Count3Device asks for
// the device (gpu.Options.Count3Device: off by default).
func TestCount3SelectPicksHost(t *testing.T) {
	g, err := gpu.New(gpu.Options{Devices: []int{0}})
	if errors.Is(err, gpu.ErrNoDevice) {
		t.Skipf("no CUDA device: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Counter(); err != nil {
		t.Fatal(err)
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	t.Setenv("MOTIFWATCH_GPU_COUNT3", "")
	for _, onDevice := range []bool{false, true} {
		s, err := engine.Select(backend.GPU, 2, gpu.Options{Devices: []int{0}, Count3Device: onDevice}, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		e, ok := s.Engine.(*count3.Engine)
		if !ok {
			t.Fatalf("Select's engine is %T, want *count3.Engine", s.Engine)
		}
		if got := e.Device() != nil; got != onDevice {
			t.Errorf("Count3Device %v: counting on the device %v", onDevice, got)
		}
		// The Small family stays with the kernel on the GPU backend.
		if c, ok := s.Counted(compile(t, "[a -> b, b -> a]")); ok {
			t.Errorf("GPU backend counts a two-edge query as %v; want it mined by the kernel", c)
		}
		if _, ok := s.Counted(compile(t, "[a -> b, b -> c, c -> a]")); !ok {
			t.Error("GPU backend does not count a SNAP shape")
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	s, err := engine.Select(backend.GPU, 2, gpu.Options{Devices: []int{0}, CountSmallOnHost: true}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if c, ok := s.Counted(compile(t, "[a -> b, b -> a]")); !ok || c.String() != "pair2-oi" {
		t.Errorf("CountSmallOnHost: a two-edge query counted as %v, %v; want pair2-oi", c, ok)
	}
}

package engine_test

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/motifwatch/motifwatch/gpm"
	"github.com/motifwatch/motifwatch/gpu"
	"github.com/motifwatch/motifwatch/internal/backend"
	"github.com/motifwatch/motifwatch/internal/engine"
)

// Without a usable device: cpu mines on the CPU, auto falls back to it
// with a warning, gpu fails with the device's error.
func TestSelectWithoutDevice(t *testing.T) {
	if gpu.Available {
		t.Skip("a cuda build: the device path is tested with the cuda tag")
	}
	var logged bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logged, nil))
	for _, b := range []backend.Backend{backend.CPU, backend.Auto} {
		s, err := engine.Select(b, 1, gpu.Options{}, log)
		if err != nil || s.Backend != backend.CPU || s.GPU != nil {
			t.Fatalf("Select(%s) = %+v, %v; want the CPU engine", b, s, err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if !strings.Contains(logged.String(), "engine backend auto: no usable GPU, mining on the CPU") {
		t.Errorf("auto logged %q; want the fallback warning", logged.String())
	}
	if _, err := engine.Select(backend.GPU, 1, gpu.Options{}, log); !errors.Is(err, gpu.ErrNoDevice) {
		t.Errorf("Select(gpu) error = %v; want ErrNoDevice", err)
	}
	if _, err := engine.Select("tpu", 1, gpu.Options{}, log); err == nil {
		t.Error("Select(tpu): no error")
	}
}

func TestGPMWithoutDevice(t *testing.T) {
	if gpu.Available {
		t.Skip("a cuda build: the device path is tested with the cuda tag")
	}
	var reasons []error
	noGPU := func(reason error) { reasons = append(reasons, reason) }
	for _, b := range []backend.Backend{backend.CPU, backend.Auto} {
		e, closeEngine, err := engine.GPM(b, gpu.GPMOptions{}, gpm.CPUOptions{Workers: 1}, noGPU)
		if err != nil {
			t.Fatalf("GPM(%s): %v", b, err)
		}
		if _, ok := e.(*gpm.CPU); !ok {
			t.Errorf("GPM(%s) = %T; want *gpm.CPU", b, e)
		}
		if err := closeEngine(); err != nil {
			t.Fatal(err)
		}
	}
	if len(reasons) != 1 || !errors.Is(reasons[0], gpu.ErrNoDevice) {
		t.Errorf("noGPU told %v; want one ErrNoDevice (for auto)", reasons)
	}
	if _, _, err := engine.GPM(backend.GPU, gpu.GPMOptions{}, gpm.CPUOptions{}, noGPU); !errors.Is(err, gpu.ErrNoDevice) {
		t.Errorf("GPM(gpu) error = %v; want ErrNoDevice", err)
	}
}

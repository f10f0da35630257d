package engine_test

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/motifwatch/motifwatch/engine"
	"github.com/motifwatch/motifwatch/gpm"
	"github.com/motifwatch/motifwatch/gpu"
	"github.com/motifwatch/motifwatch/internal/backend"
	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/motif/oracle"
	"github.com/motifwatch/motifwatch/window"
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

// The CPU backend counts the two-edge and two-node four-edge shapes
// (motif/count3's Small family), the four-node paths, four-cycles and paws
// as well as SNAP's; other shapes (a five-node path) are mined.
func TestSelectCountsSmallShapesOnCPU(t *testing.T) {
	s, err := engine.Select(backend.CPU, 1, gpu.Options{}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, tc := range []struct{ yaml, want string }{
		{"[a -> b, b -> a]", "pair2-oi"},
		{"[x -> hub, hub -> y]", "wedge-io"},
		{"[a -> b, b -> a, a -> b, b -> a]", "pair4-oioi"},
		{"[a -> b, b -> c, c -> a]", "snap-2-4"},
		{"[a -> b, b -> c, c -> d]", "path4-123-fff"},
		{"[a -> b, b -> c, c -> d, d -> a]", "cycle4-1234-ffff"},
		{"[p -> q, q -> r, r -> s, s -> q]", "paw-1234-ffff"},
		{"[a -> b, b -> c, c -> d, d -> e]", ""},
	} {
		p := compile(t, tc.yaml)
		c, ok := s.Counted(p)
		if got := map[bool]string{true: c.String(), false: ""}[ok]; got != tc.want {
			t.Errorf("Counted(%s) = %q; want %q", tc.yaml, got, tc.want)
		}
	}
}

func compile(t *testing.T, edges string) *motif.Plan {
	t.Helper()
	qs, err := motif.ParseQueries([]byte("queries:\n  - name: q\n    delta: 10\n    edges: "+edges+"\n"), "test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	w, err := window.New(oracle.Schema())
	if err != nil {
		t.Fatal(err)
	}
	p, err := motif.Compile(qs[0], w)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

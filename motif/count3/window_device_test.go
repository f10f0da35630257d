package count3

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/motif/oracle"
	"github.com/motifwatch/motifwatch/window"
)

// hostWindowDevice is a WindowDevice that counts on the host: what it is
// handed (the scope, the families) must give the host's counters.
type hostWindowDevice struct {
	cpuDevice
	calls *int
	err   error // returned instead of counting, when set
}

func (d hostWindowDevice) CountWindow(ctx context.Context, w *window.Window, delta int64, s Scope, fam Families) (Raw, error) {
	*d.calls++
	if d.err != nil {
		return Raw{}, d.err
	}
	if fam&Paths != 0 {
		return Raw{}, fmt.Errorf("a WindowDevice was handed the paths (families %b)", fam)
	}
	req := motif.Request{Range: motif.Range{Lo: s.Lo, Hi: s.Hi}, RootMask: s.Mask, Horizon: motif.Batch}
	if s.Mask != nil {
		req.RootMask = s.Mask[:s.Hi-s.Lo]
	}
	return Count(ctx, w, delta, req, fam, Options{Workers: 2})
}

// A WindowDevice counts every family but the paths, which Count adds on
// the host: the counters equal the host's for every family set, range
// and mask. A device that has no room for the window (ErrDeviceFull)
// leaves the counting to the host; any other error of the device is
// Count's.
func TestCountWindowDevice(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 11))
	fams := []Families{All, Grid3, Stars, Triangles, Small, Paths, Triangles | Paths, Small | Paths}
	var calls int
	for iter := range 60 {
		cfg := oracle.WindowConfig{MinNodes: 3, MaxNodes: 9, MaxEdges: 80, MaxTime: 30, SelfLoop: 0.03, Evict: 0.3}
		w := oracle.RandomWindow(rng, cfg)
		delta := rng.Int64N(12)
		req := randomRequest(rng, w)
		fam := fams[iter%len(fams)]
		want, err := Count(context.Background(), w, delta, req, fam, Options{Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		for _, dev := range []hostWindowDevice{
			{calls: &calls},
			{calls: &calls, err: fmt.Errorf("gpu count3: %w", ErrDeviceFull)},
		} {
			got, err := Count(context.Background(), w, delta, req, fam, Options{Workers: 2, Device: dev})
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Fatalf("iteration %d, families %b, device error %v: %v\nhost %v", iter, fam, dev.err, got, want)
			}
		}
		if min(req.Range.Hi, w.End()) <= max(req.Range.Lo, w.First()) || w.Len() == 0 {
			continue // Count returns before any pass
		}
		broken := errors.New("the device broke")
		if _, err := Count(context.Background(), w, delta, req, fam|Stars, Options{Workers: 2, Device: hostWindowDevice{calls: &calls, err: broken}}); !errors.Is(err, broken) {
			t.Fatalf("iteration %d: a device that fails: Count returned %v", iter, err)
		}
	}
	if calls == 0 {
		t.Error("no window reached the device")
	}
}

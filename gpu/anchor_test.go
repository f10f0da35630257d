package gpu

import (
	"slices"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/window"
)

// builtinPlans compiles the built-in motifs names at delta 3600 in the
// kernel's step order (order), as Engine.Mine encodes them.
func builtinPlans(t *testing.T, names ...string) map[string]*motif.Plan {
	t.Helper()
	w, err := window.New(window.Schema{TimeUnit: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	plans := map[string]*motif.Plan{}
	for _, n := range names {
		plans[n] = order(compileBuiltin(t, w, n, 3600))
	}
	return plans
}

// TestAnchorLayout checks S_PREVNODES: the packed endpoints of a step's
// previous matched edge ((from+1) | (to+1)<<4; 0 where it has none) and
// a closing last step's list. M2's last step (0->2 between 0->1 and 1->3)
// scans out(0), whose previous edge 0->1 starts at 0; M9's last (2->3
// between 1->2 and 2->0) has both neighbours at 2; M7's last step 0->1
// closes the motif with out(0) ranked (its next edge is 0->2) and in(1)
// not: scan out(0); M10's and M4's last, 0->1 before 1->2 (and after no
// matched edge): in(1).
func TestAnchorLayout(t *testing.T) {
	plans := builtinPlans(t, "M1", "M2", "M4", "M7", "M9", "M10")
	pack := func(from, to int) int64 { return int64(from+1) | int64(to+1)<<4 }
	for _, c := range []struct {
		name string
		step int
		want int64
	}{
		{"M2", 2, pack(0, 1)},
		{"M2", 1, 0},
		{"M9", 3, pack(1, 2)},
		{"M1", 2, 0},
		{"M7", 3, scanOut},
		{"M7", 2, pack(0, 2)},
		{"M10", 4, scanIn},
		{"M4", 3, scanIn},
	} {
		enc, err := encodePlan(plans[c.name], true)
		if err != nil {
			t.Fatal(err)
		}
		if got := enc.P[pSteps+c.step*stepSize+sPrevNodes]; got != c.want {
			t.Errorf("%s step %d: S_PREVNODES %#x; want %#x", c.name, c.step, got, c.want)
		}
	}
}

// TestAnchorChoice: the plans whose one-query launches run the anchor
// builds (anchorPays): those with a step whose run's end the other builds
// search for over the whole list where the anchor builds start from the
// previous edge's rank (M2), or whose counted last step closes the motif
// with one list ranked and the other not and no closing step before it
// (M7; not M10, whose 2->0 closes at step 2) — never a pruned plan (M4's
// last step would qualify). The build: mine6a, with expand2 mine6ax;
// NoAnchor: none; AnchorAll: every plan without the pruning; batches
// never (mineq6*).
func TestAnchorChoice(t *testing.T) {
	names := []string{"M1", "M2", "M3", "M4", "M5", "M6", "M7", "M8", "M9", "M10", "M11", "M12", "M13", "M4-A"}
	plans := builtinPlans(t, names...)
	want := map[string]bool{"M2": true, "M7": true}
	for _, name := range names {
		p := plans[name]
		for _, c := range []struct {
			what string
			o    tuning
			want bool
		}{
			{"default", tuning{}, want[name]},
			{"NoAnchor", tuning{NoAnchor: true}, false},
			{"AnchorAll", tuning{AnchorAll: true}, true},
			{"ClosePruneAll", tuning{ClosePruneAll: true}, want[name]},
		} {
			for _, count := range []bool{true, false} {
				enc, err := c.o.withDefaults().encode(p, count)
				if err != nil {
					t.Fatal(err)
				}
				w := c.want && !enc.pruned()
				if enc.anchored() != w {
					t.Errorf("%s, %s, count %v: anchored %v, want %v", name, c.what, count, enc.anchored(), w)
				}
				k := mineKernel(false, enc.pruned())
				if enc.expanded2() {
					k = mineKernelX(enc.pruned())
				}
				plain := k
				if enc.anchored() {
					k = anchorKernel(k)
				}
				wantK := map[string]string{"mine6": "mine6a", "mine6x": "mine6ax"}[plain]
				if !w {
					wantK = plain
				}
				if k != wantK || !slices.Contains(kernelNames, k) {
					t.Errorf("%s, %s, count %v: kernel %s, want %s (in the module)", name, c.what, count, k, wantK)
				}
			}
		}
	}
	if got := anchorKernel("mine6p"); got != "mine6p" {
		t.Errorf("anchorKernel(mine6p) = %s: the pruned builds have no anchor build", got)
	}
}

// TestPreScanChoice: the plans whose plain one-query launches run the
// prescan's build (prescans): a closing step the walk takes depth-first,
// below the step above a counted last step (M10's 3->1 at step 2 of 5) or
// any closing step where the last is not counted (enumerate mode; M4-A's
// last step has a check, so it is visited in count mode too; but its
// anti-edge sends its launches to the checked build). Never a batch, an
// anchored, pruned or checked plan (their builds have no prescan);
// PreScan < 0: none.
func TestPreScanChoice(t *testing.T) {
	names := []string{"M1", "M2", "M3", "M4", "M5", "M6", "M7", "M8", "M9", "M10", "M11", "M12", "M13", "M4-A"}
	plans := builtinPlans(t, names...)
	closing := map[string]bool{"M3": true, "M4": true, "M7": true, "M9": true, "M10": true, "M11": true, "M12": true, "M13": true, "M4-A": true}
	for _, name := range names {
		for _, count := range []bool{true, false} {
			for vi, o := range []tuning{{}, {PreScan: -1}, {NoClosePrune: true}} {
				enc, err := o.withDefaults().encode(plans[name], count)
				if err != nil {
					t.Fatal(err)
				}
				want := o.PreScan >= 0 && (name == "M10" || (enc.P[pTally] == 0 && closing[name]))
				if enc.prescanned() != want {
					t.Errorf("%s, count %v, variant %d: prescanned %v, want %v", name, count, vi, enc.prescanned(), want)
				}
				k := launchKernel([]*encodedPlan{enc}, false, false)
				wantK := mineKernel(false, enc.pruned())
				switch {
				case enc.checked():
					wantK = checkedKernel(false, false) // M4-A's anti-edge: the checked build, no prescan
				case enc.anchored():
					wantK = anchorKernel(wantK)
				case want && !enc.pruned():
					wantK = "mine6s"
				}
				if k != wantK || !slices.Contains(kernelNames, k) {
					t.Errorf("%s, count %v, variant %d: kernel %s, want %s (in the module)", name, count, vi, k, wantK)
				}
				wantB := mineKernel(true, enc.pruned())
				if enc.checked() {
					wantB = checkedKernel(true, false)
				}
				if b := launchKernel([]*encodedPlan{enc, enc}, true, false); b != wantB {
					t.Errorf("%s: a batch launch runs %s", name, b)
				}
			}
		}
	}
}

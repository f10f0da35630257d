package gpu

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/kernels"
	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/window"
)

// TestKernelNamesMatchPTX: every entry point of the embedded temporal PTX
// is loaded, and every name loaded is an entry point.
func TestKernelNamesMatchPTX(t *testing.T) {
	var entries []string
	for _, m := range regexp.MustCompile(`(?m)^\.visible \.entry (\w+)\(`).FindAllStringSubmatch(kernels.TemporalPTX, -1) {
		entries = append(entries, m[1])
	}
	if len(entries) == 0 {
		t.Fatal("no .entry in kernels.TemporalPTX")
	}
	names := slices.Clone(kernelNames)
	slices.Sort(entries)
	slices.Sort(names)
	if !slices.Equal(entries, names) {
		t.Errorf("temporal PTX entries %v; kernelNames %v", entries, names)
	}
}

// mineBuilds reads the mining builds of kernels/temporal.cu, name to its
// MINE_KERNEL line's batch flag and features (F_* names).
func mineBuilds(t *testing.T) map[string]mineBuild {
	t.Helper()
	src, err := os.ReadFile("../kernels/temporal.cu")
	if err != nil {
		t.Fatal(err)
	}
	builds := map[string]mineBuild{}
	for _, m := range regexp.MustCompile(`(?m)^MINE_KERNEL\((\w+), \d+, (true|false), ([\w |]+)\)`).FindAllStringSubmatch(string(src), -1) {
		b := mineBuild{batch: m[2] == "true", feats: map[string]bool{}}
		for _, f := range strings.Split(m[3], "|") {
			if f = strings.TrimSpace(f); f != "0" {
				b.feats[f] = true
			}
		}
		builds[m[1]] = b
	}
	if len(builds) == 0 {
		t.Fatal("no MINE_KERNEL line in kernels/temporal.cu")
	}
	return builds
}

type mineBuild struct {
	batch bool
	feats map[string]bool
}

// TestLaunchBuildHasWhatItsPlansUse: the build every launch runs (one
// query or a batch of two, count or enumerate mode, light or heavy) has
// the code its plans need: F_CHECKS exactly where a plan has a predicate
// or an anti-edge or the launch enumerates (the lean builds have no
// checks), the pruning where a plan has it laid out, the batch offsets for
// a batch; and no feature its plans do not use, since each costs the walk
// (F_EXP2 only where the plan has expand2 on and the launch is heavy,
// F_ANCHOR only for anchored plans).
func TestLaunchBuildHasWhatItsPlansUse(t *testing.T) {
	builds := mineBuilds(t)
	w, err := window.New(window.Schema{TimeUnit: time.Second, EdgeAttrs: []window.Attr{{Name: "amount", Kind: window.Number}}})
	if err != nil {
		t.Fatal(err)
	}
	plans := map[string]*motif.Plan{}
	for _, name := range []string{"M1", "M2", "M3", "M4", "M5", "M6", "M7", "M8", "M9", "M10", "M11", "M12", "M13", "M4-A"} {
		plans[name] = order(compileBuiltin(t, w, name, 3600))
	}
	qs, err := motif.ParseQueries([]byte(`queries:
  - {name: pred, delta: 600, edges: [A -> B, B -> C, C -> A], where: "e2.amount > 1000"}
  - {name: pred4, delta: 600, edges: [A -> B, B -> C, C -> D, D -> A], where: "e1.amount > 10"}
  - {name: anti, delta: 600, edges: [A -> B, B -> C], not: [B -> A]}
`), "test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range qs {
		p, err := motif.Compile(q, w)
		if err != nil {
			t.Fatal(err)
		}
		plans[q.Name] = order(p)
	}
	for name, p := range plans {
		for _, count := range []bool{true, false} {
			enc, err := (tuning{}).withDefaults().encode(p, count)
			if err != nil {
				t.Fatal(err)
			}
			checks := len(p.Preds) > 0 || len(p.Antis) > 0
			if enc.checked() != checks {
				t.Errorf("%s: checked %v, want %v", name, enc.checked(), checks)
			}
			for _, batch := range []bool{false, true} {
				encs := []*encodedPlan{enc}
				if batch {
					encs = append(encs, enc)
				}
				for _, heavy := range []bool{false, true} {
					for _, enumerate := range []bool{false, true} {
						if enumerate && (batch || count) {
							continue // enumerate mode: one query, plans encoded for it
						}
						k := launchKernel(encs, heavy, enumerate)
						b, ok := builds[k]
						at := fmt.Sprintf("%s (count %v, batch %v, heavy %v, enumerate %v): build %s", name, count, batch, heavy, enumerate, k)
						switch {
						case !ok || !slices.Contains(kernelNames, k):
							t.Errorf("%s is not a loaded MINE_KERNEL build", at)
						case b.batch != batch:
							t.Errorf("%s: batch build %v", at, b.batch)
						case b.feats["F_CHECKS"] != (checks || enumerate):
							t.Errorf("%s: F_CHECKS %v, want %v", at, b.feats["F_CHECKS"], checks || enumerate)
						case enc.pruned() && !b.feats["F_PRUNE"]:
							t.Errorf("%s: the plan's pruning is laid out, the build has none", at)
						case b.feats["F_EXP2"] && !(heavy && !batch && enc.expanded2()):
							t.Errorf("%s: expand2 where the plan does not run it", at)
						case b.feats["F_ANCHOR"] && !enc.anchored():
							t.Errorf("%s: the anchor build for a plan not anchored", at)
						}
					}
				}
			}
		}
	}
}

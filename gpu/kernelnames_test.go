package gpu

import (
	"regexp"
	"slices"
	"testing"

	"github.com/motifwatch/motifwatch/kernels"
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

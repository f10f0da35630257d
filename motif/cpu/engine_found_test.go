package cpu_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/motif/cpu"
	"github.com/motifwatch/motifwatch/motif/oracle"
)

// TestCPUFoundEqualsMatches checks the running count of Request.Found: by
// the end it has every final match, counted once, whatever the workers.
func TestCPUFoundEqualsMatches(t *testing.T) {
	total := int64(0)
	for i := range 40 {
		_, w, _, p := randomCase(t, 7, i, oracle.DefaultWindowConfig())
		for _, workers := range []int{1, 3} {
			found := new(atomic.Int64)
			res, err := cpu.New(workers).Mine(context.Background(), w, p,
				motif.Request{Range: motif.WholeWindow(w), Horizon: motif.Batch, Found: found})
			if err != nil {
				t.Fatal(err)
			}
			if found.Load() != res.Matches {
				t.Errorf("case %d, %d workers: Found = %d; want Result.Matches = %d", i, workers, found.Load(), res.Matches)
			}
			total += res.Matches
		}
	}
	if total == 0 {
		t.Fatal("no case had a match: the test compares nothing")
	}
}

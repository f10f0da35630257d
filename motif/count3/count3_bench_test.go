package count3

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/motif"
)

// BenchmarkCount counts the whole grid of CollegeMsg (or of the edge file
// named by MOTIFWATCH_COUNT3_GRAPH, e.g. a tgraphgen graph) per family,
// 1 and 2 workers, δ 3600 and 86400.
func BenchmarkCount(b *testing.B) {
	w := loadCollegeMsg(b)
	if path := os.Getenv("MOTIFWATCH_COUNT3_GRAPH"); path != "" {
		var err error
		if w, _, err = ingest.LoadFile(path, ingest.FileOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	req := motif.Request{Range: motif.WholeWindow(w), Horizon: motif.Batch}
	for _, fam := range []struct {
		name string
		f    Families
	}{{"stars", Stars}, {"triangles", Triangles}} {
		for _, delta := range []int64{3600, 86400} {
			for _, workers := range []int{1, 2} {
				b.Run(fmt.Sprintf("%s/delta=%d/workers=%d", fam.name, delta, workers), func(b *testing.B) {
					for b.Loop() {
						if _, err := Count(context.Background(), w, delta, req, fam.f, Options{Workers: workers}); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}

package count3

import "testing"

// BenchmarkFourAgainstEngine prices the cycle and paw counters against
// the general CPU engine that enumerates the same query, 2 workers each,
// on CollegeMsg (or MOTIFWATCH_COUNT3_GRAPH): Everest's M3 and M9 (paws)
// and M4 and M7 (four-cycles); the environment as for benchAgainstEngine.
func BenchmarkFourAgainstEngine(b *testing.B) {
	benchAgainstEngine(b, []string{"M3", "M9", "M4", "M7"}, []int64{3600, 86400})
}

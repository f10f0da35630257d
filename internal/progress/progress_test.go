package progress

import (
	"testing"
	"time"
)

func TestLine(t *testing.T) {
	got := Line("mining M1 (root edges)", 250, 1000, 1234567, true, "matches", 3*time.Second)
	want := "mining M1 (root edges): 25.0%, 1,234,567 matches so far, 3s, ETA 9s"
	if got != want {
		t.Errorf("Line = %q; want %q", got, want)
	}
	got = Line("gpm", 0, 10, 0, false, "subgraphs", 1500*time.Millisecond)
	if want := "gpm: 0.0%, 1.5s"; got != want {
		t.Errorf("Line at the start = %q; want %q (no ETA yet, no count)", got, want)
	}
}

func TestGrouped(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", -1234567: "-1,234,567", 3979317: "3,979,317"} {
		if got := Grouped(n); got != want {
			t.Errorf("Grouped(%d) = %q; want %q", n, got, want)
		}
	}
	if got := Grouped(uint64(18446744073709551615)); got != "18,446,744,073,709,551,615" {
		t.Errorf("Grouped(max uint64) = %q", got)
	}
}

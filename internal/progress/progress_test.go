package progress

import "testing"

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

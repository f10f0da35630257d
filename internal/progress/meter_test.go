package progress

import (
	"strings"
	"testing"
	"time"
)

// TestMeterNoETAWhenTheShareLies is issue 26.6's run: gpm --app clique
// -k 12 on ca-GrQc (5,242 vertices, 14,496 edges) had started 97.4% of
// its roots at 5 s and 99.2% after 10 min, 2.6×10^10 cliques later; a
// linear ETA said 0s, then 5s. No line may promise a time, and the
// explosion is warned of once, early.
func TestMeterNoETAWhenTheShareLies(t *testing.T) {
	m := Meter{What: "gpm clique k=12 (root vertices)", Noun: "subgraphs", Total: 5242, Input: 14496, Counts: true}
	warnings := 0
	var firstWarning time.Duration
	for i := 1; i <= 120; i++ {
		at := time.Duration(i) * 5 * time.Second
		// 97.4% at 5 s, creeping to 99.2% at 600 s; ~4.3e7 cliques a second.
		done := int64(5106) + int64(94*float64(i-1)/119)
		found := int64(4.3e7 * at.Seconds())
		line, warning := m.Sample(done, found, at)
		if !strings.Contains(line, "ETA unknown") {
			t.Fatalf("at %s: %q; want ETA unknown (the share done does not measure the work left)", at, line)
		}
		if warning != "" {
			if warnings++; warnings == 1 {
				firstWarning = at
			}
		}
	}
	if warnings != 1 || firstWarning > 10*time.Second {
		t.Errorf("%d explosion warnings, the first at %s; want one within 10s", warnings, firstWarning)
	}
}

// TestMeterETAOnASteadyRun: a run that advances steadily (with some
// noise) gets an ETA once its projections agree, close to the truth.
func TestMeterETAOnASteadyRun(t *testing.T) {
	m := Meter{What: "mining M1 (root edges)", Noun: "matches", Total: 1000, Input: 1000, Counts: true}
	noise := []int64{0, 6, -5, 3, -4, 5, -2, 4, -6, 1, 2, -3, 0, 5, -1, 0, 3, -2, 1, 0}
	shown := 0
	for i := 1; i < 20; i++ {
		at := time.Duration(i) * time.Second
		done := int64(50*i) + noise[i] // 20 s in all
		line, warning := m.Sample(done, int64(i)*100, at)
		if warning != "" {
			t.Errorf("at %s: warning %q on a run of 100 matches a second over 1,000 edges", at, warning)
		}
		_, eta, ok := strings.Cut(line, "ETA ")
		if !ok || eta == "unknown" {
			if i > 4 {
				t.Errorf("at %s: %q; want an ETA by now", at, line)
			}
			continue
		}
		shown++
		left, err := time.ParseDuration(eta)
		if truth := 20*time.Second - at; err != nil || left < truth-2*time.Second || left > truth+2*time.Second {
			t.Errorf("at %s: ETA %q; want about %s", at, eta, truth)
		}
	}
	if shown == 0 {
		t.Error("no ETA on a steady run")
	}
	if line, _ := m.Sample(1000, 2000, 21*time.Second); !strings.Contains(line, "100.0%") || !strings.Contains(line, "ETA unknown") {
		t.Errorf("every unit begun, the run going on: %q; want 100.0%% and ETA unknown", line)
	}
}

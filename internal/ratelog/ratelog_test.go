package ratelog

import (
	"testing"
	"time"
)

func TestAllow(t *testing.T) {
	clock := time.Unix(0, 0)
	l := New(10*time.Second, func() time.Time { return clock })
	steps := []struct {
		advance    time.Duration
		key        string
		ok         bool
		suppressed int
	}{
		{0, "a", true, 0},
		{time.Second, "a", false, 0},
		{time.Second, "a", false, 0},
		{0, "b", true, 0}, // keys are independent
		{8 * time.Second, "a", true, 2},
		{time.Second, "a", false, 0},
		{20 * time.Second, "a", true, 1},
	}
	for i, s := range steps {
		clock = clock.Add(s.advance)
		ok, n := l.Allow(s.key)
		if ok != s.ok || n != s.suppressed {
			t.Errorf("step %d: Allow(%q) = %v, %d; want %v, %d", i, s.key, ok, n, s.ok, s.suppressed)
		}
	}
}

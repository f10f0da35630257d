package motif

import "math"

// AddTicks returns t + d, saturated to the int64 range. Interval ends
// (t_1 + Delta, t_i + Within, t_i + a hop limit) are computed with it: no
// edge time lies outside the int64 range, so an end clamped to it selects
// exactly the edges the true end selects, where a wrapped sum would select
// none (or all).
func AddTicks(t, d int64) int64 {
	s := t + d
	if (s > t) != (d > 0) { // the sum wrapped
		if d > 0 {
			return math.MaxInt64
		}
		return math.MinInt64
	}
	return s
}

// SubTicks returns t − d, saturated to the int64 range (interval starts:
// t_k − Delta, t_i − a hop limit); see AddTicks.
func SubTicks(t, d int64) int64 {
	s := t - d
	if (s < t) != (d > 0) { // the difference wrapped
		if d > 0 {
			return math.MinInt64
		}
		return math.MaxInt64
	}
	return s
}

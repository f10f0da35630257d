package daemon

import (
	"context"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"time"
)

// The status page's history: a sample every historyStep, the last
// historyLen of them (16 minutes) in fixed arrays, so that its memory is
// bounded whatever runs: 192 × (8 + 4 × 4) B = 4.5 KiB for the time and
// the daemon-wide series, plus 768 B per query for at most
// historyMaxQueries queries (48 KiB): under 53 KiB in all.
const (
	historyStep       = 5 * time.Second
	historyLen        = 192
	historyMaxQueries = 64
)

// The daemon-wide series of the history.
const (
	seriesEdgesPerSecond    = iota // edges appended to the window per second
	seriesRejectedPerSecond        // records dead-lettered or late per second
	seriesLag                      // consumer lag in records (NaN: unknown)
	seriesLatencyP99               // batch latency p99 in seconds (NaN: no batch)
	numSeries
)

// historyRing is a fixed-size ring of samples, oldest overwritten.
// Unknown values are NaN. It is not safe for concurrent use (the status
// board's lock guards it).
type historyRing struct {
	at      [historyLen]int64 // Unix milliseconds of each sample
	series  [numSeries][historyLen]float32
	queries map[string]*[historyLen]float32 // matches per minute, by query
	next, n int                             // next slot to write; slots written (≤ historyLen)
}

func newHistoryRing() *historyRing {
	return &historyRing{queries: map[string]*[historyLen]float32{}}
}

// historySample is one sample's values.
type historySample struct {
	at      time.Time
	values  [numSeries]float64
	queries map[string]float64 // matches per minute
}

// push writes s over the oldest sample. A query absent from s gets NaN,
// and a query whose series holds nothing but NaN is dropped (removed by a
// reload, and aged out); a query beyond historyMaxQueries has no history.
func (r *historyRing) push(s historySample) {
	i := r.next
	r.at[i] = s.at.UnixMilli()
	for k := range numSeries {
		r.series[k][i] = float32(s.values[k])
	}
	for q, v := range s.queries {
		ser, ok := r.queries[q]
		if !ok {
			if len(r.queries) >= historyMaxQueries {
				continue
			}
			ser = new([historyLen]float32)
			for j := range ser {
				ser[j] = float32(math.NaN())
			}
			r.queries[q] = ser
		}
		ser[i] = float32(v)
	}
	for q, ser := range r.queries {
		if _, ok := s.queries[q]; ok {
			continue
		}
		ser[i] = float32(math.NaN())
		if !slices.ContainsFunc(ser[:], func(v float32) bool { return !math.IsNaN(float64(v)) }) {
			delete(r.queries, q)
		}
	}
	r.next = (i + 1) % historyLen
	r.n = min(r.n+1, historyLen)
}

// History is the status page's history as /api/status serves it: the
// sample times and, for each series, its values in the same order
// (oldest first; null where unknown).
type History struct {
	StepSeconds float64 `json:"step_seconds"`
	// Capacity is how many samples the history keeps at most.
	Capacity          int                     `json:"capacity"`
	Times             []int64                 `json:"times"` // Unix milliseconds
	EdgesPerSecond    []jsonNumber            `json:"edges_per_second"`
	RejectedPerSecond []jsonNumber            `json:"rejected_per_second"`
	LagRecords        []jsonNumber            `json:"lag_records"`
	LatencyP99Seconds []jsonNumber            `json:"latency_p99_seconds"`
	MatchesPerMinute  map[string][]jsonNumber `json:"matches_per_minute"`
}

// jsonNumber is a float that NaN writes as null (unknown).
type jsonNumber float64

func (v jsonNumber) MarshalJSON() ([]byte, error) {
	f := float64(v)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, f, 'g', 6, 64), nil
}

func (v *jsonNumber) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*v = jsonNumber(math.NaN())
		return nil
	}
	var f float64
	err := json.Unmarshal(b, &f)
	*v = jsonNumber(f)
	return err
}

// history returns the ring's samples, oldest first.
func (r *historyRing) history() History {
	h := History{StepSeconds: historyStep.Seconds(), Capacity: historyLen, Times: make([]int64, 0, r.n), MatchesPerMinute: map[string][]jsonNumber{}}
	start := (r.next - r.n + historyLen) % historyLen
	col := func(ser *[historyLen]float32) []jsonNumber {
		out := make([]jsonNumber, r.n)
		for j := range r.n {
			out[j] = jsonNumber(ser[(start+j)%historyLen])
		}
		return out
	}
	for j := range r.n {
		h.Times = append(h.Times, r.at[(start+j)%historyLen])
	}
	h.EdgesPerSecond = col(&r.series[seriesEdgesPerSecond])
	h.RejectedPerSecond = col(&r.series[seriesRejectedPerSecond])
	h.LagRecords = col(&r.series[seriesLag])
	h.LatencyP99Seconds = col(&r.series[seriesLatencyP99])
	for q, ser := range r.queries {
		h.MatchesPerMinute[q] = col(ser)
	}
	return h
}

// sampleEvery takes a history sample every step until ctx ends.
func (b *statusBoard) sampleEvery(ctx context.Context, step time.Duration) error {
	return tick(ctx, step, b.sample)
}

// sample adds one sample to the history: the rates since the previous
// sample, from the board's totals and the registry's counters.
func (b *statusBoard) sample() {
	m := b.readMetrics()
	down, _ := b.brokersDown()
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	cur := historyTotals{at: now, edges: b.edges, rejected: m.rejected(), matches: b.matches, latency: m.latency}
	s := historySample{at: now, queries: map[string]float64{}}
	for k := range numSeries {
		s.values[k] = math.NaN()
	}
	if prev := b.histPrev; prev != nil {
		if span := now.Sub(prev.at).Seconds(); span > 0 {
			s.values[seriesEdgesPerSecond] = float64(cur.edges-prev.edges) / span
			s.values[seriesRejectedPerSecond] = max(cur.rejected-prev.rejected, 0) / span
			for _, q := range b.queries {
				s.queries[q.Name] = 60 * float64(cur.matches[q.Name]-prev.matches[q.Name]) / span
			}
		}
		s.values[seriesLatencyP99] = histogramQuantile(0.99, m.latency.minus(prev.latency))
	}
	if lag, ok := m.lagTotal(); ok && !down {
		s.values[seriesLag] = float64(lag)
	}
	cur.matches = cloneCounts(b.matches)
	b.histPrev = &cur
	b.hist.push(s)
}

// historyTotals are the running totals at the previous sample.
type historyTotals struct {
	at       time.Time
	edges    int64
	rejected float64
	matches  map[string]int64
	latency  buckets
}

func cloneCounts(m map[string]int64) map[string]int64 {
	out := make(map[string]int64, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// buckets is a cumulative histogram: upper bounds ascending, with the
// count of observations at or below each (the last bound +Inf).
type buckets struct {
	upper []float64
	count []float64
}

// minus returns the observations of b not in older (a histogram of the
// span between them); older with other bounds counts as empty.
func (b buckets) minus(older buckets) buckets {
	out := buckets{upper: b.upper, count: slices.Clone(b.count)}
	if !slices.Equal(b.upper, older.upper) {
		return out
	}
	for i := range out.count {
		out.count[i] -= older.count[i]
	}
	return out
}

// histogramQuantile estimates the q-quantile of a cumulative histogram
// as Prometheus' histogram_quantile does: linear within the bucket that
// holds it, the highest finite bound when it falls in +Inf. NaN when the
// histogram is empty.
func histogramQuantile(q float64, b buckets) float64 {
	n := len(b.count)
	if n == 0 || b.count[n-1] <= 0 {
		return math.NaN()
	}
	rank := q * b.count[n-1]
	i, _ := slices.BinarySearchFunc(b.count, rank, func(c, r float64) int {
		if c < r {
			return -1
		}
		return 1 // the first bucket whose count reaches rank
	})
	if i >= n {
		i = n - 1
	}
	if math.IsInf(b.upper[i], 1) {
		if n >= 2 {
			return b.upper[n-2]
		}
		return math.NaN()
	}
	lower, below := 0.0, 0.0
	if i > 0 {
		lower, below = b.upper[i-1], b.count[i-1]
	}
	in := b.count[i] - below
	if in <= 0 {
		return b.upper[i]
	}
	return lower + (b.upper[i]-lower)*(rank-below)/in
}

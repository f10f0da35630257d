package testenv

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Scrape reads http://addr/metrics (Prometheus text format). The result
// holds every series under its full name with labels ("name{a="b"}") and
// the sum of a name's series under the bare name.
func Scrape(t testing.TB, addr string) map[string]float64 {
	t.Helper()
	m, err := TryScrape(addr)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TryScrape is Scrape returning its error.
func TryScrape(addr string) (map[string]float64, error) {
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s/metrics: %s", addr, resp.Status)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	return parseMetrics(string(body)), nil
}

func parseMetrics(body string) map[string]float64 {
	out := map[string]float64{}
	for _, line := range strings.Split(body, "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		name, rest, _ := strings.Cut(line, " ")
		base, labels, _ := strings.Cut(name, "{")
		v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
		if err != nil {
			continue
		}
		out[base] += v
		if labels != "" {
			out[name] = v
		}
	}
	return out
}

// WaitMetrics scrapes addr every interval until cond holds for the
// scraped metrics, and returns them; after timeout the test fails with
// what, and the last scrape.
func WaitMetrics(t testing.TB, addr string, timeout, interval time.Duration, what string, cond func(m map[string]float64) bool) map[string]float64 {
	t.Helper()
	var m map[string]float64
	if !Poll(timeout, interval, func() bool { m = Scrape(t, addr); return cond(m) }) {
		t.Fatalf("%s: not within %s; metrics: %v", what, timeout, m)
	}
	return m
}

// Gathered returns the value of the unlabelled counter or gauge name in
// reg, gathered in-process (Scrape reads a server's /metrics instead).
func Gathered(t testing.TB, reg prometheus.Gatherer, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name && len(mf.GetMetric()) == 1 {
			m := mf.GetMetric()[0]
			switch {
			case m.Counter != nil:
				return m.Counter.GetValue()
			case m.Gauge != nil:
				return m.Gauge.GetValue()
			}
		}
	}
	t.Fatalf("no series %s", name)
	return 0
}

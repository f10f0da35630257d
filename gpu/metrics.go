package gpu

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
)

// Collector exports the engine's per-device figures to Prometheus at
// scrape time (the device threads keep a copy; a scrape never waits).
type Collector struct {
	e                              *Engine
	held, window, edges, busy, tot *prometheus.Desc
}

// NewCollector returns a collector for e's devices (e may be nil).
func NewCollector(e *Engine) *Collector {
	l := []string{"device", "name"}
	return &Collector{e: e,
		held:   prometheus.NewDesc("motifwatch_gpu_memory_bytes", "Device memory the GPU engine holds (window mirror, scratch and buffers).", l, nil),
		window: prometheus.NewDesc("motifwatch_gpu_window_bytes", "Device memory the window mirror takes.", l, nil),
		edges:  prometheus.NewDesc("motifwatch_gpu_window_edges", "Window edges mirrored on the device.", l, nil),
		busy:   prometheus.NewDesc("motifwatch_gpu_busy_seconds_total", "Time the device spent on engine work (upload, adjacency maintenance, mining, drains).", l, nil),
		tot:    prometheus.NewDesc("motifwatch_gpu_memory_total_bytes", "The device's total memory.", l, nil),
	}
}

// Describe implements prometheus.Collector.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.held, c.window, c.edges, c.busy, c.tot} {
		ch <- d
	}
}

// Collect implements prometheus.Collector. A collector without an engine
// (the CPU backend) exports nothing but keeps the names described, so
// dashboards and rules can name them in every deployment.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	if c.e == nil {
		return
	}
	infos := c.e.Devices()
	for i, st := range c.e.Stats() {
		l := []string{strconv.Itoa(i), infos[i].Name}
		ch <- prometheus.MustNewConstMetric(c.held, prometheus.GaugeValue, float64(st.HeldBytes), l...)
		ch <- prometheus.MustNewConstMetric(c.window, prometheus.GaugeValue, float64(st.WindowBytes), l...)
		ch <- prometheus.MustNewConstMetric(c.edges, prometheus.GaugeValue, float64(st.WindowEdges), l...)
		ch <- prometheus.MustNewConstMetric(c.busy, prometheus.CounterValue, st.Busy.Seconds(), l...)
		ch <- prometheus.MustNewConstMetric(c.tot, prometheus.GaugeValue, float64(infos[i].TotalBytes), l...)
	}
}

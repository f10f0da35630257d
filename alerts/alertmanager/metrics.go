package alertmanager

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/motifwatch/motifwatch/internal/promreg"
)

type metrics struct {
	sent       prometheus.Counter
	errors     prometheus.Counter
	dropped    *prometheus.CounterVec
	queueBytes prometheus.Gauge
	queued     prometheus.Gauge
}

// RegisterMetrics registers the notifier's metrics with reg without a
// Notifier, so that they exist (at 0) when no Alertmanager is configured
// and the shipped rules and dashboards name known series either way.
func RegisterMetrics(reg prometheus.Registerer) error {
	_, err := newMetrics(reg)
	return err
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		sent: prometheus.NewCounter(prometheus.CounterOpts{Name: "motifwatch_alertmanager_sent_total",
			Help: "Alerts Alertmanager accepted."}),
		errors: prometheus.NewCounter(prometheus.CounterOpts{Name: "motifwatch_alertmanager_post_errors_total",
			Help: "POSTs to Alertmanager that failed and are retried (no answer, timeout, 5xx, 429)."}),
		dropped: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "motifwatch_alertmanager_dropped_total",
			Help: "Alerts never posted to Alertmanager, by reason: queue_full (the oldest, while it was away), rejected (4xx), shutdown (left at Close). The alert topic has them all."},
			[]string{"reason"}),
		queueBytes: prometheus.NewGauge(prometheus.GaugeOpts{Name: "motifwatch_alertmanager_queue_bytes",
			Help: "Encoded alerts waiting for Alertmanager, the batch being posted included (at most alerts.alertmanager.queue_bytes)."}),
		queued: prometheus.NewGauge(prometheus.GaugeOpts{Name: "motifwatch_alertmanager_queue_alerts",
			Help: "Alerts waiting for Alertmanager, not counting the batch being posted."}),
	}
	for _, r := range []string{DropQueueFull, DropRejected, DropShutdown} {
		m.dropped.WithLabelValues(r)
	}
	if reg == nil {
		return m, nil
	}
	var err error
	m.sent = promreg.Register(reg, m.sent, &err)
	m.errors = promreg.Register(reg, m.errors, &err)
	m.dropped = promreg.Register(reg, m.dropped, &err)
	m.queueBytes = promreg.Register(reg, m.queueBytes, &err)
	m.queued = promreg.Register(reg, m.queued, &err)
	return m, err
}

package daemon

import (
	"log/slog"
	"math"
	"runtime/debug"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/motifwatch/motifwatch/config"
	"github.com/motifwatch/motifwatch/internal/promreg"
)

// noteMemoryBudget publishes the configuration's memory budget
// (config.MemoryBudget) as motifwatch_memory_budget_bytes{part} and logs
// it with the Go runtime's memory limit in effect (`monitor run` sets the
// budget as that limit; GOMEMLIMIT wins). Without a budget (a cap it
// needs is off) the series are absent and the log line says why.
func noteMemoryBudget(cfg *config.Config, reg prometheus.Registerer, log *slog.Logger) error {
	b, ok := cfg.MemoryBudget()
	if !ok {
		log.Info("memory budget: none (window.max_bytes, window.max_buffered_bytes or, with the embedded broker, kafka.embedded.retention_bytes is 0): memory grows with the input")
		return nil
	}
	var err error
	g := promreg.Register(reg, prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "motifwatch_memory_budget_bytes",
		Help: "The memory the caps allow the daemon (docs/CONFIG.md, Memory), by part: window (window.max_bytes), buffered (window.max_buffered_bytes), base (the rest: runtime, clients, batches in flight), broker (the embedded broker's retention); their sum is the Go memory limit of monitor run unless GOMEMLIMIT is set."},
		[]string{"part"}), &err)
	if err != nil {
		return err
	}
	for part, v := range map[string]int64{"window": b.Window, "buffered": b.Buffered, "base": b.Base, "broker": b.Broker} {
		g.WithLabelValues(part).Set(float64(v))
	}
	limit := slog.Int64("go_memory_limit", debug.SetMemoryLimit(-1)) // -1 only reads it
	if limit.Value.Int64() == math.MaxInt64 {
		limit = slog.String("go_memory_limit", "none")
	}
	log.Info("memory budget", "budget", b.String(), "budget_bytes", b.Total(), limit)
	return nil
}

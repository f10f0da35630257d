package daemon

import (
	"context"
	"fmt"
	"time"

	"github.com/motifwatch/motifwatch/config"
	"github.com/motifwatch/motifwatch/kafka"
)

// historyStart returns where a rebuilt window's history starts: per
// partition, the first offset within span (plus the allowed lateness)
// before the oldest of the records at last (the last record before each
// partition's start offset in to), by record timestamps. Those are edge
// times for records `monitor produce` wrote; the lateness margin covers
// producers whose clocks lag. found is false when none of those records
// is left to read.
func historyStart(ctx context.Context, k kafkaClients, cfg *config.Config, last, to map[int]int64, span time.Duration) (from map[int]int64, found bool, err error) {
	var oldest time.Time
	if err := kafka.Replay(ctx, k.brokers, k.dialer, cfg.Kafka.EdgeTopic, last, to, func(m kafka.Message) error {
		if oldest.IsZero() || m.Time.Before(oldest) {
			oldest = m.Time
		}
		return nil
	}); err != nil {
		return nil, false, fmt.Errorf("reading the committed positions: %w", err)
	}
	if oldest.IsZero() {
		return nil, false, nil
	}
	from, err = k.admin.OffsetsForTime(ctx, cfg.Kafka.EdgeTopic, oldest.Add(-span-cfg.Window.AllowedLateness))
	return from, err == nil, err
}

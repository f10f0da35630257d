package bench

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"strconv"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/motifwatch/motifwatch/feed"
	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/kafka"
	"github.com/motifwatch/motifwatch/synth"
)

// Records loads o.File or generates o.Edges synthetic edges of o.Seed, as
// records in time order (seq = index, so the daemon orders ties as
// `monitor mine` does).
func Records(o Options) ([]kafka.Record, error) {
	if o.File != "" {
		w, st, err := ingest.LoadFile(o.File, ingest.FileOptions{})
		if err != nil {
			return nil, err
		}
		if o.Log != nil {
			fmt.Fprintf(o.Log, "bench: loaded %s: %d edges (%d self-loops dropped)\n", o.File, w.Len(), st.SelfLoops)
		}
		return slices.Collect(feed.Window(w)), nil
	}
	// tgraphgen's defaults: ~8 edges per node, a mean gap of 25 s, Zipf
	// 1.2, replies 0.3, closures 0.1, bursts 0.2.
	c := synth.Default(o.Edges, o.Seed)
	c.Nodes, c.MeanGap, c.Zipf, c.Burst = max(o.Edges/8, 2), 25, 1.2, 0.2
	edges, err := synth.Generate(c)
	if err != nil {
		return nil, err
	}
	recs := make([]kafka.Record, len(edges))
	for i, e := range edges {
		recs[i] = kafka.Record{Src: strconv.FormatUint(uint64(e.Src), 10), Dst: strconv.FormatUint(uint64(e.Dst), 10), T: e.T, Seq: int64(i)}
	}
	return recs, nil
}

// produceSplit produces records with one producer per partition (each
// partition's records in time order, keyed by source like monitor
// produce), at rate edges/s in all (0: unpaced), then a sentinel per
// partition past the allowed lateness, so that the watermark releases
// every edge without waiting for the partitions to go idle (the
// sentinels are self-loops: never appended, never matched).
func produceSplit(ctx context.Context, brokers []string, topic string, records []kafka.Record, parts int, rate float64, batch int, lateness int64) error {
	partition := kafka.SrcPartitioner(parts)
	byPart := make([][]kafka.Record, parts)
	for _, r := range records {
		p := partition(r.Src)
		byPart[p] = append(byPart[p], r)
	}
	var lastT int64
	if len(records) > 0 {
		lastT = records[len(records)-1].T
	}
	g, gctx := errgroup.WithContext(ctx)
	for p := range parts {
		recs := byPart[p]
		g.Go(func() error {
			seq := func(yield func(kafka.Record) bool) {
				for _, r := range recs {
					if !yield(r) {
						return
					}
				}
			}
			opts := kafka.ProduceOptions{Brokers: brokers, Topic: topic, TimeUnit: time.Second, BatchSize: batch}
			if rate > 0 && len(recs) > 0 {
				opts.Rate = rate * float64(len(recs)) / float64(len(records))
			}
			if _, err := kafka.Produce(gctx, iter.Seq[kafka.Record](seq), opts); err != nil {
				return fmt.Errorf("bench: producing partition %d: %w", p, err)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	// The sentinels: one record per partition, round robin over them.
	sentinel := func(yield func(kafka.Record) bool) {
		for i := range parts {
			name := "bench-sentinel-" + strconv.Itoa(i)
			if !yield(kafka.Record{Src: name, Dst: name, T: lastT + lateness + 2, Seq: int64(len(records) + i)}) {
				return
			}
		}
	}
	_, err := kafka.Produce(ctx, sentinel, kafka.ProduceOptions{Brokers: brokers, Topic: topic, TimeUnit: time.Second,
		Partitioning: kafka.RoundRobin, BatchSize: 1})
	return err
}

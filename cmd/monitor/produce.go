package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/motifwatch/motifwatch/feed"
	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/kafka"
	"github.com/motifwatch/motifwatch/synth"
	"github.com/motifwatch/motifwatch/window"
)

// produceOptions are the flags of `monitor produce`.
type produceOptions struct {
	file          string
	demo          bool
	seed          uint64
	edges         int
	brokers       []string
	topic         string
	format        string
	rate          float64
	speedup       float64
	seq           bool
	timeUnit      time.Duration
	partitionsBy  string
	partitions    int
	batch         int
	skipBad       bool
	keepSelfLoops bool
	progress      time.Duration

	rateSet, speedupSet bool // given on the command line
}

// demoSpeedup paces --demo when neither --rate nor --speedup is given:
// a minute of the feed (~30 payments and a planted pattern every two
// minutes) per second.
const demoSpeedup = 60

func newProduceCmd() *cobra.Command {
	o := produceOptions{}
	cmd := &cobra.Command{
		Use:   "produce (--file FILE | --demo) --brokers HOST:PORT[,...] [flags]",
		Short: "Replay an edge file (or the demo feed) into a Kafka topic",
		Long: `Write one record per edge of an edge file ("src dst t [attrs]" lines, as
for mine) to a Kafka topic, in the order mine sees them: by time, ties in
file order. Each record is JSON ({"src":…,"dst":…,"t":…,"seq":…,attrs…})
or a CSV line (src,dst,t,seq,attrs…); seq is the edge's 0-based index in
that order, which the daemon uses to order equal timestamps, so its alerts
equal mine's exactly. The record's key is its source node (one account's
edges stay in one partition, in order) unless --partitions-by roundrobin,
and its timestamp is the edge time (t × --time-unit since the Unix epoch),
so the daemon can seek by time. On a real cluster with time-based retention
(retention.ms), old edge times are deleted soon after: replay old data into
a topic with retention.ms=-1.

--demo streams the daemon's demo feed instead: synthetic payments with
planted money rings, fan-ins and quick returns (see monitor run's demo
queries), until interrupted or --edges N are sent.

Records are written in batches, each acknowledged by all in-sync replicas
before the next; --rate or --speedup paces them.`,
		Example: `  monitor produce --file edges.txt --brokers kafka-1:9092 --topic edges
  monitor produce --file CollegeMsg.txt --brokers localhost:9092 --speedup 3600
  monitor produce --demo --brokers localhost:9092 --edges 10000`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageError{fmt.Errorf("produce: unexpected argument %q (the file goes after --file)", args[0])}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			o.rateSet = cmd.Flags().Changed("rate")
			o.speedupSet = cmd.Flags().Changed("speedup")
			return runProduce(ctx, o, cmd.ErrOrStderr())
		},
	}
	// A flag that does not parse is bad usage too (exit status 2).
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return usageError{fmt.Errorf("produce: %w", err)}
	})
	f := cmd.Flags()
	f.StringVar(&o.file, "file", "", "temporal edge file to replay (plain text, gzip, zstd or bzip2)")
	f.BoolVar(&o.demo, "demo", false, "stream the demo feed (payments with planted patterns) instead of --file")
	f.Uint64Var(&o.seed, "seed", 1, "seed of --demo")
	f.IntVar(&o.edges, "edges", 0, "with --demo, stop after N edges (0: until interrupted)")
	f.StringSliceVar(&o.brokers, "brokers", nil, "Kafka bootstrap brokers, host:port[,host:port...]")
	f.StringVar(&o.topic, "topic", "edges", "topic to write to")
	f.StringVar(&o.format, "format", "json", "record format: json or csv")
	f.Float64Var(&o.rate, "rate", 0, "at most N records per second (0: as fast as the brokers take them)")
	f.Float64Var(&o.speedup, "speedup", 0, "replay at X times the edges' own pace (0: no pacing; --demo defaults to 60)")
	f.BoolVar(&o.seq, "seq", true, "include the seq field (needed for exact agreement with mine on equal timestamps)")
	f.DurationVar(&o.timeUnit, "time-unit", time.Second, "duration of one timestamp tick in the file (and of t in the records)")
	f.StringVar(&o.partitionsBy, "partitions-by", "src", "partitioning: src (key = source node) or roundrobin (no key)")
	f.IntVar(&o.partitions, "partitions", 0, "create the topic with N partitions if it is missing (0: it must exist)")
	f.IntVar(&o.batch, "batch", 1000, "records per write")
	f.BoolVar(&o.skipBad, "skip-bad", false, "count and report malformed lines instead of stopping at the first")
	f.BoolVar(&o.keepSelfLoops, "keep-self-loops", false, "keep self-loop edges (they never match a motif edge)")
	f.DurationVar(&o.progress, "progress", 5*time.Second, "interval of progress lines on stderr (0: none)")
	return cmd
}

func (o *produceOptions) check() (kafka.Format, kafka.Partitioning, error) {
	usage := func(format string, args ...any) (kafka.Format, kafka.Partitioning, error) {
		return 0, 0, usageError{fmt.Errorf("produce: "+format, args...)}
	}
	format, ferr := kafka.ParseFormat(o.format)
	part, perr := kafka.ParsePartitioning(o.partitionsBy)
	switch {
	case o.file == "" && !o.demo:
		return usage("give --file FILE or --demo")
	case o.file != "" && o.demo:
		return usage("--file and --demo exclude each other")
	case len(o.brokers) == 0:
		return usage("give --brokers HOST:PORT[,...]")
	case len(o.brokers) == 1 && o.brokers[0] == "embedded":
		return usage("--brokers embedded: an embedded broker lives inside one process; give the address of a running broker (monitor run logs its embedded broker's address)")
	case ferr != nil:
		return usage("--format %q: want json or csv", o.format)
	case perr != nil:
		return usage("--partitions-by %q: want src or roundrobin", o.partitionsBy)
	case o.rate < 0:
		return usage("--rate %v must not be negative", o.rate)
	case o.speedup < 0:
		return usage("--speedup %v must not be negative", o.speedup)
	case o.rate > 0 && o.speedup > 0:
		return usage("--rate and --speedup exclude each other")
	case o.timeUnit <= 0:
		return usage("--time-unit %v must be positive", o.timeUnit)
	case o.partitions < 0:
		return usage("--partitions %d must not be negative", o.partitions)
	case o.batch <= 0:
		return usage("--batch %d must be positive", o.batch)
	case o.edges < 0:
		return usage("--edges %d must not be negative", o.edges)
	case o.edges > 0 && !o.demo:
		return usage("--edges only applies to --demo")
	case o.progress < 0:
		return usage("--progress %v must not be negative", o.progress)
	}
	for _, b := range o.brokers {
		if _, port, ok := strings.Cut(b, ":"); !ok || port == "" {
			return usage("--brokers: %q is not host:port", b)
		}
	}
	return format, part, nil
}

func runProduce(ctx context.Context, o produceOptions, stderr io.Writer) error {
	format, part, err := o.check()
	if err != nil {
		return err
	}
	if o.demo && !o.rateSet && !o.speedupSet {
		o.speedup = demoSpeedup
	}
	opts := kafka.ProduceOptions{
		Brokers:      o.brokers,
		Topic:        o.topic,
		Format:       format,
		OmitSeq:      !o.seq,
		TimeUnit:     o.timeUnit,
		Partitioning: part,
		Rate:         o.rate,
		Speedup:      o.speedup,
		BatchSize:    o.batch,
	}
	var (
		w     *window.Window
		total string // the record count, if known
	)
	if o.demo {
		if o.edges > 0 {
			total = fmt.Sprint(o.edges)
		}
	} else {
		if w, err = o.load(stderr); err != nil {
			return err
		}
		total = fmt.Sprint(w.Len())
	}
	if o.partitions > 0 {
		spec := kafka.TopicSpec{Name: o.topic, Partitions: o.partitions}
		if err := kafka.EnsureTopics(ctx, o.brokers, nil, []kafka.TopicSpec{spec}); err != nil {
			return err
		}
	}

	start := time.Now()
	last := start
	if o.progress > 0 {
		opts.Progress = func(sent int) {
			now := time.Now()
			if now.Sub(last) < o.progress {
				return
			}
			last = now
			secs := now.Sub(start).Seconds()
			of := ""
			if total != "" {
				of = "/" + total
			}
			fmt.Fprintf(stderr, "producing to %s: %d%s records, %.1fs, %.0f/s\n", o.topic, sent, of, secs, float64(sent)/secs)
		}
	}
	var n int
	if o.demo {
		src, ferr := newDemoFeed(o.seed, o.edges)
		if ferr != nil {
			return ferr
		}
		n, err = kafka.Produce(ctx, feed.Demo(src, o.timeUnit), opts)
	} else {
		n, err = feed.ProduceWindow(ctx, w, opts)
	}
	secs := time.Since(start).Seconds()
	interrupted := err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err())
	if err == nil || interrupted {
		fmt.Fprintf(stderr, "produced %d records to topic %s in %.2fs (%.0f/s)\n", n, o.topic, secs, float64(n)/max(secs, 1e-9))
	}
	switch {
	case interrupted && o.demo && o.edges == 0:
		return nil // an endless feed ends by interruption
	case interrupted:
		return fmt.Errorf("produce: interrupted after %d of %s records", n, total)
	}
	return err
}

func (o *produceOptions) load(stderr io.Writer) (*window.Window, error) {
	start := time.Now()
	w, st, err := ingest.LoadFile(o.file, ingest.FileOptions{TimeUnit: o.timeUnit, SkipBad: o.skipBad, KeepSelfLoops: o.keepSelfLoops})
	if err != nil {
		return nil, err
	}
	for _, l := range st.Warnings(o.file, o.timeUnit) {
		fmt.Fprintln(stderr, l)
	}
	fmt.Fprintf(stderr, "loaded %s: %d edges (%d self-loops dropped) in %.2fs\n",
		o.file, w.Len(), st.SelfLoops, time.Since(start).Seconds())
	return w, nil
}

// newDemoFeed returns the demo feed: synth's default payment traffic with
// planted patterns, n edges (0: endless).
func newDemoFeed(seed uint64, n int) (*synth.Feed, error) {
	cfg := synth.DefaultFeed(seed)
	cfg.Edges = n
	return synth.NewFeed(cfg)
}

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/motifwatch/motifwatch/bench"
	"github.com/motifwatch/motifwatch/config"
	"github.com/motifwatch/motifwatch/internal/backend"
)

// benchOptions are the flags of `monitor bench`.
type benchOptions struct {
	config, queries, file string
	brokers               []string
	edges                 int
	seed                  uint64
	partitions            int
	rate                  float64
	format                string
	backend               string
	workers               int
	batchSize             int
	batchWait             time.Duration
	produceBatch          int
	timeout               time.Duration
	cpuProfile            string
	gpu                   *gpuFlags
}

func newBenchCmd() *cobra.Command {
	o := benchOptions{}
	cmd := &cobra.Command{
		Use:   "bench [flags]",
		Short: "Measure the streaming path: edges/s, batch latency and where the time goes",
		Long: `Size a deployment: produce N edges into a fresh topic of P partitions (on
an embedded broker, or --brokers), then run the daemon's own pipeline on
them (monitor run's code, with the config's window, engine and caps) and
report the edges per second, the batch latency percentiles (a batch's
first record fetched → its alerts acknowledged → its offsets committed)
and the time per stage (fetch, decode, reorder, window, device_sync, mine,
alert_write, commit, and mine_wait: taking records in waiting for the
previous batch's mining).

The edges come from --file (an edge file, as for mine) or the synthetic
generator (--edges, --seed: a tgraphgen-like bursty messaging graph). The
queries are --queries, else the config's, else the built-in M1–M10 at
δ = 3600 (Everest's ten), all in count mode.

Without --rate the whole backlog is produced first and consumed as fast as
the pipeline goes (throughput). With --rate R it is produced while the
daemon consumes, at R edges/s (one producer per partition): the latency
figure at that load.`,
		Example: `  monitor bench --edges 1000000 --partitions 8
  monitor bench --edges 1000000 --partitions 8 --rate 200000
  monitor bench --file graph.txt --config motifwatch.yaml --backend gpu --format json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return benchRun(cmd.Context(), o, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{fmt.Errorf("bench: %w", err)} })
	f := cmd.Flags()
	f.StringVar(&o.config, "config", "", "daemon configuration file (window, engine, caps; its Kafka topics are replaced by fresh ones)")
	f.StringVar(&o.queries, "queries", "", "query file (default: the config's queries, else M1–M10 at δ 3600)")
	f.StringVar(&o.file, "file", "", "edge file to produce (default: synthetic edges)")
	f.StringSliceVar(&o.brokers, "brokers", nil, "Kafka brokers, host:port[,...] (default: an embedded broker)")
	f.IntVar(&o.edges, "edges", 1_000_000, "synthetic edges to produce (without --file)")
	f.Uint64Var(&o.seed, "seed", 1, "seed of the synthetic edges")
	f.IntVar(&o.partitions, "partitions", 8, "partitions of the edge topic")
	f.Float64Var(&o.rate, "rate", 0, "produce at this many edges/s while consuming (0: produce the backlog first)")
	f.StringVar(&o.format, "format", "table", "report format: table or json")
	f.StringVar(&o.backend, "backend", "", "engine.backend override: cpu, gpu or auto")
	f.IntVar(&o.workers, "workers", -1, "engine.workers override (0: one per CPU)")
	f.IntVar(&o.batchSize, "batch-size", 0, "window.batch_size override")
	f.DurationVar(&o.batchWait, "batch-wait", 0, "window.batch_max_wait override")
	f.IntVar(&o.produceBatch, "produce-batch", 10_000, "records per produce request")
	f.DurationVar(&o.timeout, "timeout", 10*time.Minute, "give up after this long")
	f.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the consuming phase (pprof) to this file")
	o.gpu = addGPUFlags(f)
	return cmd
}

func (o *benchOptions) check() error {
	usage := func(format string, args ...any) error { return usageError{fmt.Errorf("bench: "+format, args...)} }
	switch {
	case o.file == "" && o.edges <= 0:
		return usage("--edges %d must be positive", o.edges)
	case o.partitions <= 0:
		return usage("--partitions %d must be positive", o.partitions)
	case o.rate < 0:
		return usage("--rate %v must not be negative", o.rate)
	case o.format != "table" && o.format != "json":
		return usage("--format %q: want table or json", o.format)
	case o.batchSize < 0:
		return usage("--batch-size %d must not be negative", o.batchSize)
	case o.batchWait < 0:
		return usage("--batch-wait %v must not be negative", o.batchWait)
	case o.produceBatch <= 0:
		return usage("--produce-batch %d must be positive", o.produceBatch)
	case o.timeout <= 0:
		return usage("--timeout %v must be positive", o.timeout)
	}
	return o.gpu.check("bench")
}

func benchRun(ctx context.Context, o benchOptions, stdout, stderr io.Writer) error {
	if err := o.check(); err != nil {
		return err
	}
	cfg, err := o.daemonConfig()
	if err != nil {
		return err
	}
	rep, err := bench.Run(ctx, bench.Options{Config: cfg, File: o.file, Edges: o.edges, Seed: o.seed,
		Brokers: o.brokers, Partitions: o.partitions, ProduceBatch: o.produceBatch, Rate: o.rate,
		Timeout: o.timeout, CPUProfile: o.cpuProfile, Log: stderr})
	if rep == nil {
		return err
	}
	if perr := printBench(stdout, o.format, rep); perr != nil {
		return perr
	}
	return err // a run cut short, after its report
}

// daemonConfig is --config (or the defaults) with the flags' overrides.
func (o *benchOptions) daemonConfig() (*config.Config, error) {
	cfg := config.DefaultConfig()
	if o.config != "" {
		var err error
		if cfg, err = config.Load(o.config); err != nil {
			return nil, err
		}
	}
	if o.queries != "" {
		cfg.Queries.Files, cfg.Queries.Inline = []string{o.queries}, nil
	}
	if o.backend != "" {
		cfg.Engine.Backend = backend.Backend(o.backend)
	}
	if o.workers >= 0 {
		cfg.Engine.Workers = o.workers
	}
	if o.gpu != nil {
		o.gpu.apply(&cfg.Engine.GPU)
	}
	if o.batchSize > 0 {
		cfg.Window.BatchSize = o.batchSize
	}
	if o.batchWait > 0 {
		cfg.Window.BatchMaxWait = o.batchWait
	}
	return cfg, nil
}

func printBench(w io.Writer, format string, r *bench.Report) error {
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "edges\t%d\t\n", r.Edges)
	if r.Partial {
		fmt.Fprintf(tw, "PARTIAL: edges mined before the cut\t%d\t\n", r.Released)
	}
	fmt.Fprintf(tw, "partitions\t%d\t\n", r.Partitions)
	fmt.Fprintf(tw, "queries\t%d\t\n", r.Queries)
	fmt.Fprintf(tw, "backend\t%s\t\n", r.Backend)
	if r.Rate > 0 {
		fmt.Fprintf(tw, "paced at (edges/s)\t%.0f\t\n", r.Rate)
	} else {
		fmt.Fprintf(tw, "backlog produced in (s)\t%.2f\t\n", r.ProduceSeconds)
	}
	fmt.Fprintf(tw, "start to first record (s)\t%.2f\t\n", r.StartSeconds)
	fmt.Fprintf(tw, "first record to last commit (s)\t%.3f\t\n", r.Seconds)
	fmt.Fprintf(tw, "edges/s\t%.0f\t\n", r.EdgesPerSecond)
	fmt.Fprintf(tw, "batches\t%d\t\n", r.Batches)
	if r.Late+r.DeadLettered > 0 {
		fmt.Fprintf(tw, "late / dead-lettered (not mined)\t%d / %d\t\n", r.Late, r.DeadLettered)
	}
	if r.ReleasedEarly > 0 {
		fmt.Fprintf(tw, "released early (reorder buffer full)\t%d\t\n", r.ReleasedEarly)
	}
	fmt.Fprintf(tw, "batch latency p50 / p90 / p99 / max (ms)\t%.1f / %.1f / %.1f / %.1f\t\n",
		r.LatencyP50*1e3, r.LatencyP90*1e3, r.LatencyP99*1e3, r.LatencyMax*1e3)
	fmt.Fprintf(tw, "\t\t\n")
	fmt.Fprintf(tw, "stage\tseconds\tshare of wall time\t\n")
	lanes := bench.LaneTimes(r.Stages, r.Partitions, r.Seconds)
	for i, l := range bench.Lanes {
		for _, s := range r.Stages {
			if bench.LaneOf(s.Stage) != l.Name {
				continue
			}
			if l.Concurrent {
				fmt.Fprintf(tw, "%s [%s, concurrent]\t%.3f\t%.1f%% busy (%.1f%% per partition)\t\n",
					s.Stage, l.Name, s.Seconds, 100*s.Share, 100*s.Share/float64(max(r.Partitions, 1)))
				continue
			}
			fmt.Fprintf(tw, "%s [%s, serial]\t%.3f\t%.1f%%\t\n", s.Stage, l.Name, s.Seconds, 100*s.Share)
		}
		if !l.Concurrent {
			fmt.Fprintf(tw, "%s lane, serial sum\t%.3f\t%.1f%%\t\n", l.Name, lanes[i].Seconds, 100*lanes[i].Share)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "(concurrent stages run on every partition at once: their time is busy time summed over the %d partitions,\n"+
		" so it can pass 100%% of the wall time. The pipeline and batch lanes each run one stage at a time, side by side:\n"+
		" each lane's sum is at most the wall time, and the two overlap.)\n", r.Partitions)
	return err
}

package main

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/spf13/cobra"

	"github.com/motifwatch/motifwatch/config"
	"github.com/motifwatch/motifwatch/kafka"
)

func newBrokerCmd() *cobra.Command {
	var (
		port, partitions int
		dir, retention   string
		topics           []string
	)
	cmd := &cobra.Command{
		Use:   "broker [--port 9092] [--dir DIR] [--topics a,b] [--partitions 4] [--retention-bytes 8MiB]",
		Short: "Run the embedded Kafka-protocol broker alone, for local trials",
		Long: `Run the in-process Kafka-protocol broker that 'monitor run' embeds by
default, on its own: point 'monitor run' (kafka.brokers: [127.0.0.1:9092]),
'monitor produce' or any Kafka client at the address it prints, and stop
and start the daemon against it as against a cluster.

It listens on 127.0.0.1 only. Without --dir it keeps everything in memory:
topics, records and committed offsets are lost when it stops. With --dir
they are written there and reloaded at the next start (with the same --dir).
--retention-bytes bounds every partition (0: keep everything): every 10 s
the oldest records of a partition holding more are dropped, which bounds
the broker's memory (or --dir). Its warnings and errors go to stderr:
a write to --dir that fails (a full disk) is logged as an ERROR naming
the file, at most once every 10 s; its clients get an unexpected server
error (code -1) meanwhile.
Ctrl-C (or SIGTERM) stops it cleanly. It is meant for development and
trials, not for production volumes.`,
		Example: `  monitor broker
  monitor broker --port 9092 --dir /tmp/mw-broker --topics edges,motif-alerts`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if partitions < 1 {
				return usageError{fmt.Errorf("broker: --partitions %d must be at least 1", partitions)}
			}
			if port < 0 || port > 65535 {
				return usageError{fmt.Errorf("broker: --port %d (want 1 to 65535, or 0 for a free port)", port)}
			}
			retentionBytes, err := config.ParseByteSize(retention)
			if err == nil && retentionBytes < 0 {
				err = errors.New("must not be negative (0: keep everything)")
			}
			if err != nil {
				return usageError{fmt.Errorf("broker: --retention-bytes %q: %w", retention, err)}
			}
			var specs []kafka.TopicSpec
			var names []string
			for _, name := range topics {
				if name = strings.TrimSpace(name); name != "" {
					specs = append(specs, kafka.TopicSpec{Name: name, Partitions: partitions})
					names = append(names, name)
				}
			}
			ctx := cmd.Context()
			// The broker's warnings and errors (a full --dir above all,
			// which its clients see only as an unexpected server error)
			// go to stderr.
			log := slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: slog.LevelWarn}))
			emb, err := kafka.StartEmbedded(ctx, kafka.EmbeddedOptions{Port: port, DataDir: dir, Topics: specs, DefaultPartitions: partitions,
				RetentionBytes: int64(retentionBytes), Logger: log})
			if err != nil {
				return err
			}
			defer emb.Close()
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "broker listening on %s\n", strings.Join(emb.Addrs(), ","))
			if dir != "" {
				fmt.Fprintf(out, "data in %s (kept across restarts with the same --dir)\n", dir)
			} else {
				fmt.Fprintln(out, "data in memory only: everything is lost when it stops (--dir keeps it)")
			}
			if retentionBytes > 0 {
				fmt.Fprintf(out, "retention %s per partition\n", retentionBytes)
			} else {
				fmt.Fprintln(out, "retention unlimited: it keeps every record (--retention-bytes bounds it)")
			}
			if len(specs) > 0 {
				fmt.Fprintf(out, "topics %s (new ones with %d partitions)\n", strings.Join(names, ", "), partitions)
			}
			fmt.Fprintln(out, "Ctrl-C stops it")
			<-ctx.Done()
			emb.Close()
			fmt.Fprintln(out, "broker stopped")
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVar(&port, "port", 9092, "TCP port on 127.0.0.1 (0: a free port)")
	f.StringVar(&dir, "dir", "", "data directory: topics, records and offsets survive a restart (default: memory only)")
	f.StringSliceVar(&topics, "topics", []string{"edges", "motif-alerts", "edges-dlq"}, "topics to create if missing (the daemon's defaults; \"\" for none)")
	f.IntVar(&partitions, "partitions", 4, "partitions of the topics it creates")
	f.StringVar(&retention, "retention-bytes", config.ByteSize(config.DefaultEmbeddedRetentionBytes).String(), "most bytes kept per partition, like 8MiB (0: keep everything)")
	return cmd
}

package kafka

import (
	"context"
	"fmt"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"

	"github.com/motifwatch/motifwatch/ingest"
)

// BenchmarkDeadLetterWrite measures the dead-letter writer over the Kafka
// protocol (kfake in-process, on TCP): per-record is one acknowledged
// Write per record (how the daemon dead-lettered before batching), batch
// is Write of 10,000 records at a time (the daemon's queue, written at
// each batch end). Records are 100-byte undecodable values with the
// motifwatch-* headers, as a producer of garbage makes them.
func BenchmarkDeadLetterWrite(b *testing.B) {
	for _, bc := range []struct {
		name  string
		batch int
	}{{"per-record", 1}, {"batch-10000", 10_000}} {
		b.Run(bc.name, func(b *testing.B) {
			brokers := newCluster(b, 3, "dlq")
			dl, err := NewDeadLetter(DeadLetterOptions{Brokers: brokers, Topic: "dlq"})
			if err != nil {
				b.Fatal(err)
			}
			defer dl.Close()
			recs := make([]DeadRecord, bc.batch)
			for i := range recs {
				recs[i] = DeadRecord{Msg: kafkago.Message{Topic: "edges", Partition: i % 3, Offset: int64(i), Time: time.Unix(1_700_000_000, 0),
					Value: fmt.Appendf(nil, `{"src":"acct-%08d","dst":"acct-%08d","t":17000000%02d,"amount":12.5,"note":"unterminated`, i, i+1, i%100)},
					Reason: "invalid JSON: unexpected end of record, want '\"'", Class: ingest.ClassDecode}
			}
			ctx := context.Background()
			if _, err := dl.Write(ctx, recs[:1]); err != nil { // metadata, connections
				b.Fatal(err)
			}
			b.ResetTimer()
			written := 0
			for written < b.N {
				n := min(bc.batch, b.N-written)
				out, err := dl.Write(ctx, recs[:n])
				if err != nil || len(out.Written) != n {
					b.Fatalf("Write(%d) = %d written, %v", n, len(out.Written), err)
				}
				written += n
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
		})
	}
}

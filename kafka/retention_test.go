package kafka_test

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"

	"github.com/motifwatch/motifwatch/kafka"
	"github.com/motifwatch/motifwatch/kafka/kafkatest"
)

// produceBatches writes n batches of per records of size bytes each to
// partition 0 of topic, one WriteMessages call (one record batch) at a
// time, values numbered from first.
func produceBatches(t *testing.T, e *kafka.Embedded, topic string, first, n, per, size int) {
	t.Helper()
	ctx := testContext(t)
	w := &kafkago.Writer{Addr: kafkago.TCP(e.Addrs()...), Topic: topic, Transport: testTransport(t),
		RequiredAcks: kafkago.RequireAll, BatchTimeout: time.Millisecond, BatchSize: per}
	defer w.Close()
	pad := bytes.Repeat([]byte("x"), size)
	for b := range n {
		msgs := make([]kafkago.Message, per)
		for i := range msgs {
			msgs[i] = kafkago.Message{Value: fmt.Appendf(nil, "%08d%s", first+b*per+i, pad)}
		}
		if err := w.WriteMessages(ctx, msgs...); err != nil {
			t.Fatalf("WriteMessages: %v", err)
		}
	}
}

// TestEmbeddedRetentionBoundsPartitions: with RetentionBytes the log start
// advances and the partition's bytes stay within the bound however much
// is produced, and the newest records survive; without it nothing goes.
func TestEmbeddedRetentionBoundsPartitions(t *testing.T) {
	const retention = 64 << 10
	for _, rb := range []int64{retention, 0} {
		t.Run(fmt.Sprintf("retention=%d", rb), func(t *testing.T) {
			// An hour: the test's passes are ApplyRetention's, not the ticker's.
			e := kafkatest.StartEmbedded(t, kafka.EmbeddedOptions{RetentionBytes: rb, CleanInterval: time.Hour,
				Topics: []kafka.TopicSpec{{Name: "edges", Partitions: 1}}})
			var last int64
			for round := range 4 {
				// 40 batches of 10 records of ~1 KiB: ~400 KiB a round,
				// over six times the retention.
				produceBatches(t, e, "edges", round*400, 40, 10, 1000)
				e.ApplyRetention()
				pi := e.Cluster().PartitionInfo("edges", 0)
				if pi.HighWatermark != int64((round+1)*400) {
					t.Fatalf("round %d: high watermark %d; want %d", round, pi.HighWatermark, (round+1)*400)
				}
				if rb == 0 {
					if pi.LogStartOffset != 0 {
						t.Fatalf("round %d: unlimited retention but log start %d", round, pi.LogStartOffset)
					}
					continue
				}
				if pi.NumBytes > rb {
					t.Errorf("round %d: partition holds %d bytes after a cleaner pass; retention is %d", round, pi.NumBytes, rb)
				}
				if pi.LogStartOffset <= last {
					t.Errorf("round %d: log start %d did not advance from %d", round, pi.LogStartOffset, last)
				}
				// The cleaner drops whole batches of ~10 KiB: it keeps all
				// but the last one that fits.
				if pi.NumBytes < rb-15<<10 {
					t.Errorf("round %d: partition holds %d bytes; the cleaner dropped more than the excess over %d", round, pi.NumBytes, rb)
				}
				last = pi.LogStartOffset
			}
			if rb == 0 {
				return
			}
			// What remains reads back from the log start: the newest records.
			var msgs []kafkago.Message
			for _, m := range kafkatest.ReadTopic(t, e.Addrs(), "edges") {
				if m.Partition == 0 {
					msgs = append(msgs, m)
				}
			}
			if len(msgs) == 0 || msgs[0].Offset != last || msgs[len(msgs)-1].Offset != 1599 {
				t.Fatalf("read back %d messages; want offsets %d to 1599", len(msgs), last)
			}
			if got, want := string(msgs[len(msgs)-1].Value[:8]), "00001599"; got != want {
				t.Errorf("last value starts %q; want %q", got, want)
			}
		})
	}
}

// TestEmbeddedRetentionCleanerRuns: the broker's own cleaner applies the
// retention without ApplyRetention, to topics that set no retention.
func TestEmbeddedRetentionCleanerRuns(t *testing.T) {
	e := kafkatest.StartEmbedded(t, kafka.EmbeddedOptions{RetentionBytes: 16 << 10, CleanInterval: 20 * time.Millisecond,
		Topics: []kafka.TopicSpec{{Name: "edges", Partitions: 1}}})
	produceBatches(t, e, "edges", 0, 20, 10, 1000)
	// Polls with a generous deadline: the pass comes within ~20 ms on an
	// idle machine, but when is not what is tested.
	deadline := time.Now().Add(30 * time.Second)
	for {
		pi := e.Cluster().PartitionInfo("edges", 0)
		if pi.LogStartOffset > 0 && pi.NumBytes <= 16<<10 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 30 s: log start %d, %d bytes; want the cleaner to have trimmed to 16 KiB", pi.LogStartOffset, pi.NumBytes)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestEmbeddedRetentionFreesSegments: the cleaner frees storage, not only
// offsets: kfake deletes a segment once all of it lies before the log
// start, so segments must be small next to the retention. Measured on
// DataDir's files, which are what the in-memory broker keeps in memory.
func TestEmbeddedRetentionFreesSegments(t *testing.T) {
	const retention = 256 << 10
	dir := t.TempDir()
	e := kafkatest.StartEmbedded(t, kafka.EmbeddedOptions{RetentionBytes: retention, CleanInterval: time.Hour, DataDir: dir,
		Topics: []kafka.TopicSpec{{Name: "edges", Partitions: 1}}})
	var peak int64
	for round := range 8 {
		produceBatches(t, e, "edges", round*400, 40, 10, 1000) // ~400 KiB
		e.ApplyRetention()
		size := dirSize(t, dir)
		peak = max(peak, size)
		// Retention, plus the segment being written and one not yet wholly
		// expired (a quarter of the retention each), plus metadata.
		if size > retention*2 {
			t.Fatalf("round %d: data dir holds %d bytes after a cleaner pass; retention is %d per partition", round, size, retention)
		}
	}
	t.Logf("data dir peak %d bytes after passes, retention %d, 3.2 MB produced", peak, retention)
}

func dirSize(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) { // removed by the cleaner meanwhile
				return nil
			}
			return err
		}
		n += info.Size()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

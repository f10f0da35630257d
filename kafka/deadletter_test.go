package kafka

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"strconv"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"

	"github.com/motifwatch/motifwatch/ingest"
)

// createTopic creates topic with one partition and the given
// max.message.bytes (0: the broker's default, 1 MiB).
func createTopic(t *testing.T, brokers []string, topic string, maxMessageBytes int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tr := &kafkago.Transport{}
	defer tr.CloseIdleConnections()
	c := &kafkago.Client{Addr: kafkago.TCP(brokers...), Transport: tr}
	tc := kafkago.TopicConfig{Topic: topic, NumPartitions: 1, ReplicationFactor: 1}
	if maxMessageBytes > 0 {
		tc.ConfigEntries = []kafkago.ConfigEntry{{ConfigName: "max.message.bytes", ConfigValue: strconv.Itoa(maxMessageBytes)}}
	}
	res, err := c.CreateTopics(ctx, &kafkago.CreateTopicsRequest{Topics: []kafkago.TopicConfig{tc}})
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Errors[topic]; err != nil {
		t.Fatalf("creating %s: %v", topic, err)
	}
}

func headerMap(m kafkago.Message) map[string]string {
	h := map[string]string{}
	for _, kv := range m.Headers {
		h[kv.Key] = string(kv.Value)
	}
	return h
}

// TestDeadLetterTruncates writes a record just under the broker's 1 MiB
// limit with source headers (as the edge topic accepted it): whole, with
// the motifwatch-* headers, it is over the limit, and a dead-letter writer
// that sent it whole was refused forever. It is written cut to the cap,
// with its size and hash, next to a small record written whole.
func TestDeadLetterTruncates(t *testing.T) {
	brokers := newCluster(t, 1, "edges")
	createTopic(t, brokers, "dlq", 0)
	dl, err := NewDeadLetter(DeadLetterOptions{Brokers: brokers, Topic: "dlq"})
	if err != nil {
		t.Fatal(err)
	}
	defer dl.Close()
	big := bytes.Repeat([]byte(`{"src":"a","dst":"b","t":1,"pad":"0123456789abcdef"}`), (1<<20-300)/51)
	small := []byte(`{"src":`)
	recs := []DeadRecord{
		{Msg: kafkago.Message{Topic: "edges", Partition: 0, Offset: 7, Key: []byte("k"), Value: big,
			Headers: []kafkago.Header{{Key: "trace", Value: []byte("t1")}}}, Reason: "record over input.max_record_bytes", Class: ingest.ClassOversize},
		{Msg: kafkago.Message{Topic: "edges", Partition: 0, Offset: 8, Value: small}, Reason: "invalid JSON", Class: ingest.ClassDecode},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, err := dl.Write(ctx, recs)
	if err != nil || len(out.Written) != 2 || out.Truncated != 1 || len(out.Lost)+len(out.Retry)+out.Refused != 0 {
		t.Fatalf("Write = %+v, %v; want both written, one truncated", out, err)
	}
	got := readTopic(t, brokers, "dlq")[0]
	if len(got) != 2 {
		t.Fatalf("%d dead letters; want 2", len(got))
	}
	byOffset := map[string]kafkago.Message{}
	for _, m := range got {
		byOffset[headerMap(m)[HeaderSourceOffset]] = m
	}
	m := byOffset["7"]
	h := headerMap(m)
	sum := sha256.Sum256(big)
	for k, want := range map[string]string{
		HeaderTruncated: "value", HeaderOriginalSize: strconv.Itoa(len(big)), HeaderOriginalSHA256: hex.EncodeToString(sum[:]),
		HeaderReason: recs[0].Reason, "trace": "t1", HeaderSourcePartition: "0",
	} {
		if h[k] != want {
			t.Errorf("truncated dead letter: header %s = %q; want %q", k, h[k], want)
		}
	}
	if n := len(m.Value); n < DefaultDeadLetterMaxBytes-1024 || n > DefaultDeadLetterMaxBytes || !bytes.HasPrefix(big, m.Value) {
		t.Errorf("truncated dead letter: value of %d bytes, a prefix of the source: %v; want a prefix of just under %d bytes",
			n, bytes.HasPrefix(big, m.Value), DefaultDeadLetterMaxBytes)
	}
	if string(m.Key) != "k" {
		t.Errorf("truncated dead letter: key %q; want k", m.Key)
	}
	s := byOffset["8"]
	if hs := headerMap(s); !bytes.Equal(s.Value, small) || hs[HeaderTruncated] != "" || hs[HeaderOriginalSize] != "" {
		t.Errorf("small dead letter: value %q, headers %v; want the value whole, no truncation headers", s.Value, hs)
	}
}

// TestDeadLetterPermanentRefusals: on a dead-letter topic whose
// max.message.bytes is below the cap, a capped record is refused for good
// (MESSAGE_TOO_LARGE): Write tries it alone, then minimal, and the minimal
// form is accepted. On a topic that refuses even that, the record is
// Lost, with the broker's error and no error from Write (nothing to
// retry), and the valid records of the same batch are written.
func TestDeadLetterPermanentRefusals(t *testing.T) {
	brokers := newCluster(t, 1, "edges")
	createTopic(t, brokers, "dlq-small", 3000)
	createTopic(t, brokers, "dlq-tiny", 600)
	// Random bytes: the writer compresses, and the broker measures the
	// compressed batch.
	value := make([]byte, 20_000)
	rand.NewChaCha8([32]byte{1}).Read(value)
	big := DeadRecord{Msg: kafkago.Message{Topic: "edges", Offset: 1, Value: value,
		Headers: []kafkago.Header{{Key: "h", Value: bytes.Repeat([]byte("y"), 2000)}}}, Reason: "bad", Class: ingest.ClassDecode}
	ok := DeadRecord{Msg: kafkago.Message{Topic: "edges", Offset: 2, Value: []byte("z")}, Reason: "bad", Class: ingest.ClassDecode}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	small, err := NewDeadLetter(DeadLetterOptions{Brokers: brokers, Topic: "dlq-small", MaxBytes: 16 << 10})
	if err != nil {
		t.Fatal(err)
	}
	defer small.Close()
	out, err := small.Write(ctx, []DeadRecord{big})
	if err != nil || len(out.Written) != 1 || out.Truncated != 1 || out.Refused != 1 || len(out.Lost) != 0 {
		t.Fatalf("Write to a 3000-byte topic = %+v, %v; want written minimal after 1 refusal", out, err)
	}
	got := readTopic(t, brokers, "dlq-small")[0]
	if len(got) != 1 {
		t.Fatalf("%d dead letters on dlq-small; want 1", len(got))
	}
	if h := headerMap(got[0]); h[HeaderTruncated] != "headers,value" || h[HeaderOriginalSize] != "20000" || h["h"] != "" {
		t.Errorf("minimal dead letter headers %v; want truncated headers,value, original size 20000, source header dropped", h)
	}

	tiny, err := NewDeadLetter(DeadLetterOptions{Brokers: brokers, Topic: "dlq-tiny"})
	if err != nil {
		t.Fatal(err)
	}
	defer tiny.Close()
	out, err = tiny.Write(ctx, []DeadRecord{big, ok})
	if err != nil {
		t.Fatalf("Write to a 600-byte topic: %v; want nil (the refusal is permanent, nothing to retry)", err)
	}
	if len(out.Lost) != 1 || out.Lost[0].Msg.Offset != 1 || !errors.Is(out.Lost[0].Err, kafkago.MessageSizeTooLarge) {
		t.Errorf("Lost = %+v; want the big record with MESSAGE_TOO_LARGE", out.Lost)
	}
	if len(out.Written) != 1 || out.Written[0].Msg.Offset != 2 {
		t.Errorf("Written = %+v; want the small record", out.Written)
	}
	if out.Refused < 2 || len(out.Retry) != 0 {
		t.Errorf("Refused = %d, Retry = %d; want at least 2 refusals (capped, minimal), no retry", out.Refused, len(out.Retry))
	}
}

// TestTooLarge: only size refusals are worth a smaller form.
func TestTooLarge(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{kafkago.MessageSizeTooLarge, true},
		{kafkago.RecordListTooLarge, true},
		{kafkago.MessageTooLargeError{}, true},
		{fmt.Errorf("wrapped: %w", kafkago.MessageSizeTooLarge), true},
		{kafkago.InvalidRecord, false},
		{kafkago.TopicAuthorizationFailed, false},
		{kafkago.NotLeaderForPartition, false},
	} {
		if got := tooLarge(tc.err); got != tc.want {
			t.Errorf("tooLarge(%v) = %v; want %v", tc.err, got, tc.want)
		}
	}
}

// TestPermanent classifies kafka-go's errors.
func TestPermanent(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{kafkago.MessageSizeTooLarge, true},
		{kafkago.InvalidRecord, true},
		{kafkago.RecordListTooLarge, true},
		{kafkago.TopicAuthorizationFailed, true},
		{kafkago.MessageTooLargeError{}, true},
		{fmt.Errorf("wrapped: %w", kafkago.WriteErrors{kafkago.MessageSizeTooLarge}[0]), true},
		{kafkago.NotLeaderForPartition, false},
		{kafkago.NotEnoughReplicas, false},
		{kafkago.RequestTimedOut, false},
		{kafkago.Unknown, false},
		{&net.OpError{Op: "dial", Err: errors.New("connection refused")}, false},
		{io.EOF, false},
		{context.DeadlineExceeded, false},
		{nil, false},
	} {
		if got := Permanent(tc.err); got != tc.want {
			t.Errorf("Permanent(%v) = %v; want %v", tc.err, got, tc.want)
		}
	}
}

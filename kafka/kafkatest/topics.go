package kafkatest

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"

	"github.com/motifwatch/motifwatch/kafka"
)

// An operator's changes to a live topic, over the wire protocol as a
// tool such as kafka-topics.sh makes them: the tests of a daemon that
// must notice them (partitions added, a topic deleted and created
// again) use these.

// topicTimeout bounds one administrative request.
const topicTimeout = 20 * time.Second

func adminClient(brokers []string) (*kafkago.Client, func()) {
	tr := &kafkago.Transport{}
	return &kafkago.Client{Addr: kafkago.TCP(brokers...), Transport: tr, Timeout: topicTimeout}, tr.CloseIdleConnections
}

// AddPartitions grows topic to total partitions (CreatePartitions).
func AddPartitions(t testing.TB, brokers []string, topic string, total int) {
	t.Helper()
	c, done := adminClient(brokers)
	defer done()
	ctx, cancel := context.WithTimeout(context.Background(), topicTimeout)
	defer cancel()
	res, err := c.CreatePartitions(ctx, &kafkago.CreatePartitionsRequest{
		Topics: []kafkago.TopicPartitionsConfig{{Name: topic, Count: int32(total)}}})
	if err == nil && len(res.Errors) > 0 {
		err = res.Errors[topic]
	}
	if err != nil {
		t.Fatalf("growing topic %q to %d partitions: %v", topic, total, err)
	}
}

// DeleteTopic deletes topic; the brokers drop its records and every
// group's committed offsets of it.
func DeleteTopic(t testing.TB, brokers []string, topic string) {
	t.Helper()
	c, done := adminClient(brokers)
	defer done()
	ctx, cancel := context.WithTimeout(context.Background(), topicTimeout)
	defer cancel()
	res, err := c.DeleteTopics(ctx, &kafkago.DeleteTopicsRequest{Topics: []string{topic}})
	if err == nil {
		err = res.Errors[topic]
	}
	if err != nil {
		t.Fatalf("deleting topic %q: %v", topic, err)
	}
	// Wait until the metadata no longer lists it: a create right after
	// a delete must not find the old topic.
	ok := pollUntil(topicTimeout, func() bool {
		md, err := c.Metadata(ctx, &kafkago.MetadataRequest{Topics: []string{topic}})
		if err != nil {
			return false
		}
		for _, tm := range md.Topics {
			if tm.Name == topic && tm.Error == nil {
				return false
			}
		}
		return true
	})
	if !ok {
		t.Fatalf("topic %q still listed %v after its deletion", topic, topicTimeout)
	}
}

// RecreateTopic deletes topic and creates it again, empty, with
// partitions partitions: a restored or re-provisioned cluster, whose log
// offsets start again from 0 below the offsets consumers had reached.
func RecreateTopic(t testing.TB, brokers []string, topic string, partitions int) {
	t.Helper()
	DeleteTopic(t, brokers, topic)
	ctx, cancel := context.WithTimeout(context.Background(), topicTimeout)
	defer cancel()
	if err := kafka.EnsureTopics(ctx, brokers, nil, []kafka.TopicSpec{{Name: topic, Partitions: partitions}}); err != nil {
		t.Fatalf("creating topic %q again: %v", topic, err)
	}
}

func pollUntil(limit time.Duration, ok func() bool) bool {
	deadline := time.Now().Add(limit)
	for !ok() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

// SendRecords writes edge records to topic as JSON objects with the
// fields src, dst, t and seq (the daemon's input.fields in the tests),
// each to the partition partitionOf gives it, in order per partition.
func SendRecords(t testing.TB, brokers []string, topic string, partitionOf func(kafka.Record) int, records []kafka.Record) {
	t.Helper()
	msgs := make([]kafka.Message, 0, len(records))
	for _, r := range records {
		if len(r.Attrs) > 0 {
			t.Fatalf("SendRecords writes no attributes; record %+v has some", r)
		}
		v, err := json.Marshal(struct {
			Src string `json:"src"`
			Dst string `json:"dst"`
			T   int64  `json:"t"`
			Seq int64  `json:"seq"`
		}{r.Src, r.Dst, r.T, r.Seq})
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, kafka.Message{Partition: partitionOf(r), Value: v, Time: time.Unix(r.T, 0)})
	}
	if len(msgs) == 0 {
		return
	}
	Send(t, brokers, topic, SendOptions{BatchSize: 1000}, msgs...)
}

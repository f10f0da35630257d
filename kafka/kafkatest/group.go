package kafkatest

import (
	"context"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"
)

// Broker errors, for tests that fake a broker's answer (a refused login,
// a record too large, a topic gone) without importing the client library.
var (
	ErrSASLAuthenticationFailed error = kafkago.SASLAuthenticationFailed
	ErrMessageSizeTooLarge      error = kafkago.MessageSizeTooLarge
	ErrUnknownTopicOrPartition  error = kafkago.UnknownTopicOrPartition
)

// Reader returns a reader of topic as an outside consumer has one: a
// member of group that joins it on its first fetch, or, with group "",
// a reader of partition 0 from its start. It is closed when the test
// ends (closing it earlier too is fine).
func Reader(t testing.TB, brokers []string, topic, group string) *kafkago.Reader {
	t.Helper()
	r := kafkago.NewReader(kafkago.ReaderConfig{Brokers: brokers, GroupID: group, Topic: topic, MaxWait: 100 * time.Millisecond})
	t.Cleanup(func() { r.Close() })
	return r
}

// TryGroupMembers returns the number of members group has now (0 for a
// group without members or unknown to the cluster).
func (c Conn) TryGroupMembers(ctx context.Context, group string) (int, error) {
	client := &kafkago.Client{Addr: kafkago.TCP(c.Brokers...), Timeout: 10 * time.Second}
	if c.Transport != nil {
		client.Transport = c.Transport
	}
	resp, err := client.DescribeGroups(ctx, &kafkago.DescribeGroupsRequest{GroupIDs: []string{group}})
	if err != nil {
		return 0, err
	}
	if len(resp.Groups) != 1 {
		return 0, nil
	}
	return len(resp.Groups[0].Members), nil
}

// WaitGroupMembers polls until group's member count satisfies ok, and
// fails the test if ctx ends first.
func WaitGroupMembers(t testing.TB, ctx context.Context, brokers []string, group string, ok func(members int) bool) {
	t.Helper()
	c := Plain(brokers)
	for ctx.Err() == nil {
		if n, err := c.TryGroupMembers(ctx, group); err == nil && ok(n) {
			return
		}
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
	t.Fatalf("group %s: membership never as wanted", group)
}

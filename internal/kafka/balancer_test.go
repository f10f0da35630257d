package kafka

import (
	"context"
	"errors"
	"reflect"
	"strconv"
	"sync"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kfake"
)

func TestWholeTopicBalancer(t *testing.T) {
	self := newWholeTopicBalancer()
	other := newWholeTopicBalancer()
	if reflect.DeepEqual(self.token, other.token) {
		t.Fatal("two balancers drew the same token")
	}
	partitions := []kafkago.Partition{{Topic: "edges", ID: 2}, {Topic: "edges", ID: 0}, {Topic: "other", ID: 0}, {Topic: "edges", ID: 1}}
	members := []kafkago.GroupMember{
		{ID: "a", Topics: []string{"edges"}, UserData: other.token},
		{ID: "c", Topics: []string{"edges"}, UserData: self.token},
		{ID: "b", Topics: []string{"edges"}, UserData: nil},
	}
	got := self.AssignGroups(members, partitions)
	want := kafkago.GroupMemberAssignments{"a": {}, "b": {}, "c": {"edges": {0, 1, 2}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the leader's assignment = %v; want every edges partition to itself (c), none to the others: %v", got, want)
	}
	// Without its own token among the members: the lowest member id.
	stranger := newWholeTopicBalancer()
	got = stranger.AssignGroups(members, partitions)
	want = kafkago.GroupMemberAssignments{"a": {"edges": {0, 1, 2}}, "b": {}, "c": {}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("assignment without the leader's token = %v; want %v", got, want)
	}
	if got := self.AssignGroups(nil, partitions); len(got) != 0 {
		t.Errorf("assignment of no members = %v; want none", got)
	}
}

// TestConsumerStandby: two daemons in one group without scale-out are an
// active member holding every partition and a standby holding none, which
// takes over the whole topic (from the committed offsets) when the active
// one leaves.
func TestConsumerStandby(t *testing.T) {
	const parts = 3
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(parts, "edges"), kfake.GroupMinSessionTimeout(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	brokers := c.ListenAddrs()
	msg := func(i int) kafkago.Message {
		return kafkago.Message{Partition: i % parts, Value: []byte(strconv.Itoa(i))}
	}
	opts := ConsumerOptions{Brokers: brokers, Topic: "edges", Group: "g", ClientID: "test",
		MaxWait: 50 * time.Millisecond, SessionTimeout: 3 * time.Second}
	active, err := NewConsumer(opts)
	if err != nil {
		t.Fatal(err)
	}
	produce(t, brokers, "edges", msg(0))
	first := fetchN(t, active, 1, 10*time.Second) // the group formed around it
	if err := active.Commit(context.Background(), map[int]int64{first[0].Partition: first[0].Offset + 1}); err != nil {
		t.Fatal(err)
	}
	standby, err := NewConsumer(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer standby.Close()

	// Both fetch; every record read is committed at once.
	var mu sync.Mutex
	readBy := map[string][]string{}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for name, c := range map[string]*Consumer{"active": active, "standby": standby} {
		wg.Go(func() {
			for {
				m, err := c.Fetch(ctx)
				if err != nil {
					return
				}
				mu.Lock()
				readBy[name] = append(readBy[name], string(m.Value))
				mu.Unlock()
				if err := c.Commit(ctx, map[int]int64{m.Partition: m.Offset + 1}); err != nil && !errors.Is(err, context.Canceled) {
					t.Errorf("%s: commit: %v", name, err)
				}
			}
		})
	}
	read := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(readBy["active"]) + len(readBy["standby"])
	}
	time.Sleep(4 * time.Second) // the standby's join settles (heartbeats every second)
	var batch []kafkago.Message
	for i := 1; i <= 12; i++ {
		batch = append(batch, msg(i))
	}
	produce(t, brokers, "edges", batch...)
	for deadline := time.Now().Add(10 * time.Second); read() < 12 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	mu.Lock()
	if len(readBy["active"]) != 12 || len(readBy["standby"]) != 0 {
		t.Errorf("with both members up: active read %v, standby %v; want all 12 records (every partition) by the active one", readBy["active"], readBy["standby"])
	}
	mu.Unlock()

	// The active member leaves: the standby takes the whole topic.
	if err := active.Close(); err != nil {
		t.Fatal(err)
	}
	batch = batch[:0]
	for i := 13; i <= 18; i++ {
		batch = append(batch, msg(i))
	}
	produce(t, brokers, "edges", batch...)
	for deadline := time.Now().Add(15 * time.Second); read() < 18 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	wg.Wait()
	if got := readBy["standby"]; len(got) != 6 {
		t.Errorf("after the active member left, the standby read %v; want the 6 new records (13..18) of every partition", got)
	}
}

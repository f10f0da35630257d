package kafka

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"
)

func newMember(t *testing.T, brokers []string) *Member {
	t.Helper()
	m, err := NewMember(MemberOptions{Brokers: brokers, Topic: "edges", Group: "g",
		HeartbeatInterval: 100 * time.Millisecond, SessionTimeout: 6 * time.Second, RebalanceTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

func next(t *testing.T, m *Member) *Generation {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	g, err := m.Next(ctx)
	if err != nil {
		t.Fatalf("next generation: %v", err)
	}
	return g
}

// TestMemberHandover: a second member joining ends the first one's
// generation; the first commits (with metadata) before releasing it, the
// new generation splits the partitions, and the old generation's commits
// are fenced from then on.
func TestMemberHandover(t *testing.T) {
	brokers := newCluster(t, 3, "edges")
	m1 := newMember(t, brokers)
	g1 := next(t, m1)
	if !slices.Equal(g1.Partitions, []int{0, 1, 2}) {
		t.Fatalf("a lone member owns %v; want every partition", g1.Partitions)
	}
	ctx := context.Background()
	if err := g1.Commit(ctx, map[int]int64{0: 5, 1: 6, 2: 7, 9: 1}, map[int]string{0: "zero"}); err != nil {
		t.Fatalf("commit in a live generation: %v", err)
	}

	m2 := newMember(t, brokers)
	second := make(chan *Generation, 1)
	go func() {
		g, err := m2.Next(context.Background())
		if err != nil {
			t.Error(err)
		}
		second <- g
	}()
	select {
	case <-g1.Ending:
	case <-time.After(20 * time.Second):
		t.Fatal("the first generation did not end when a member joined")
	}
	// The group waits for this handover: the commit is still accepted.
	if err := g1.Commit(ctx, map[int]int64{0: 8}, map[int]string{0: "handover"}); err != nil {
		t.Fatalf("commit while the group prepares the rebalance: %v", err)
	}
	g1.Release()
	g1b := next(t, m1)
	g2 := <-second
	if g2 == nil {
		t.FailNow()
	}
	all := append(slices.Clone(g1b.Partitions), g2.Partitions...)
	slices.Sort(all)
	if !slices.Equal(all, []int{0, 1, 2}) || len(g1b.Partitions) == 0 || len(g2.Partitions) == 0 {
		t.Errorf("after the join the members own %v and %v; want a split of [0 1 2]", g1b.Partitions, g2.Partitions)
	}
	if err := g1.Commit(ctx, map[int]int64{0: 9, 1: 9, 2: 9}, nil); !errors.Is(err, ErrFenced) {
		t.Errorf("commit in an ended generation = %v; want %v", err, ErrFenced)
	}
	client := &kafkago.Client{Addr: kafkago.TCP(brokers...)}
	resp, err := client.OffsetFetch(ctx, &kafkago.OffsetFetchRequest{GroupID: "g", Topics: map[string][]int{"edges": {0, 1, 2}}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[int]string{}
	for _, p := range resp.Topics["edges"] {
		got[p.Partition] = p.Metadata
		if want := map[int]int64{0: 8, 1: 6, 2: 7}[p.Partition]; p.CommittedOffset != want {
			t.Errorf("partition %d committed at %d; want %d", p.Partition, p.CommittedOffset, want)
		}
	}
	if got[0] != "handover" {
		t.Errorf("partition 0 metadata %q; want the handover's", got[0])
	}
	g1b.Release()
	g2.Release()
}

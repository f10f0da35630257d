package daemon

import (
	"context"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/kafka"
	"github.com/motifwatch/motifwatch/kafka/kafkatest"
)

// TestResumeStateThroughResumeGroup: a clean shutdown's resume state is
// committed to the resume group, which accepts it while the daemon's own
// group has a live member (a standby; the group itself refuses a commit
// from outside its generation), and a restart takes it only for
// partitions whose committed offset has not moved since.
func TestResumeStateThroughResumeGroup(t *testing.T) {
	addrs := kafkatest.StartBroker(t, kafka.TopicSpec{Name: "edges", Partitions: 2})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin, err := kafka.NewAdmin(addrs, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()

	// The daemon's group holds offsets 10 and 20 (its last commit), then
	// a member joins, as a standby would.
	commitOffsets(t, ctx, admin, "g", map[int]int64{0: 10, 1: 20})
	r := kafkatest.Reader(t, addrs, "edges", "g")
	go r.FetchMessage(ctx) // joins the group
	kafkatest.WaitGroupMembers(t, ctx, addrs, "g", func(n int) bool { return n > 0 })
	if err := admin.CommitOutsideGroup(ctx, "g", "edges", map[int]kafka.Commit{0: {Offset: 10, Metadata: "x"}}); err == nil {
		t.Fatal("the group accepted a commit from outside its generation while a member is live: the test no longer shows the case")
	}
	if err := commitFinal(ctx, admin, "g", "edges", map[int]int64{0: 10, 1: 20}, map[int]int64{0: 12, 1: 25}, nil, 99); err != nil {
		t.Fatalf("commitFinal with a live member in the group: %v", err)
	}
	offsets, states, err := committed(ctx, admin, "g", "edges", []int{0, 1})
	if err != nil {
		t.Fatal(err)
	}
	if offsets[0] != 10 || offsets[1] != 20 || len(states) != 2 || states[0].Processed != 12 || states[1].Processed != 25 || states[1].Watermark != 99 {
		t.Fatalf("after a clean shutdown: offsets %v, states %+v; want 10/20 with processed 12/25 at watermark 99", offsets, states)
	}

	// The member leaves and someone commits partition 1 further: its
	// resume state is stale.
	r.Close()
	kafkatest.WaitGroupMembers(t, ctx, addrs, "g", func(n int) bool { return n == 0 })
	commitOffsets(t, ctx, admin, "g", map[int]int64{1: 30})
	_, states, err = committed(ctx, admin, "g", "edges", []int{0, 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := states[1]; ok || states[0].Processed != 12 {
		t.Fatalf("after a later commit of partition 1: states %+v; want only partition 0's", states)
	}
}

// commitOffsets commits offsets to an empty group, outside any generation.
func commitOffsets(t *testing.T, ctx context.Context, admin *kafka.Admin, group string, offsets map[int]int64) {
	t.Helper()
	commits := make(map[int]kafka.Commit, len(offsets))
	for p, off := range offsets {
		commits[p] = kafka.Commit{Offset: off}
	}
	if err := admin.CommitOutsideGroup(ctx, group, "edges", commits); err != nil {
		t.Fatal(err)
	}
}

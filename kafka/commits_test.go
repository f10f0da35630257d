package kafka

import (
	"context"
	"maps"
	"testing"
	"time"
)

// TestCommits: a group that does not exist yet has committed nothing
// (no error: a first start reads it so), and what CommitOutsideGroup
// writes, metadata included, is what Commits and Committed read back.
func TestCommits(t *testing.T) {
	brokers := newCluster(t, 3, "edges")
	admin, err := NewAdmin(brokers, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	if got, err := admin.Commits(ctx, "new", "edges", nil); err != nil || len(got) != 0 {
		t.Fatalf("Commits of a group that does not exist = %v, %v; want none and no error", got, err)
	}
	if got, err := admin.Committed(ctx, "new", "edges"); err != nil || len(got) != 0 {
		t.Fatalf("Committed of a group that does not exist = %v, %v; want none and no error", got, err)
	}

	want := map[int]Commit{0: {Offset: 5, Metadata: `{"processed":7}`}, 2: {Offset: 9}}
	if err := admin.CommitOutsideGroup(ctx, "g", "edges", want); err != nil {
		t.Fatal(err)
	}
	if err := admin.CommitOutsideGroup(ctx, "g", "edges", nil); err != nil {
		t.Fatalf("empty commit: %v", err)
	}
	got, err := admin.Commits(ctx, "g", "edges", nil)
	if err != nil || !maps.Equal(got, want) {
		t.Errorf("Commits = %v, %v; want %v (partition 1 has no commit)", got, err, want)
	}
	got, err = admin.Commits(ctx, "g", "edges", []int{2})
	if err != nil || !maps.Equal(got, map[int]Commit{2: want[2]}) {
		t.Errorf("Commits of partition 2 = %v, %v; want %v", got, err, want[2])
	}
	offsets, err := admin.Committed(ctx, "g", "edges")
	if err != nil || !maps.Equal(offsets, map[int]int64{0: 5, 2: 9}) {
		t.Errorf("Committed = %v, %v; want map[0:5 2:9]", offsets, err)
	}
}

package kafka

import (
	"reflect"
	"testing"

	kafkago "github.com/segmentio/kafka-go"
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

package kafka

import (
	"bytes"
	"crypto/rand"
	"slices"
	"strings"

	kafkago "github.com/segmentio/kafka-go"
)

// wholeTopicBalancer is the group protocol of a daemon that is not scaled
// out: mining needs every partition's edges in one window, so one member
// takes every partition and the others stand by (they take over when its
// session ends). The elected leader runs the assignment and gives the
// topic to itself, recognised by a random token in its join metadata.
//
// Why the leader rather than, say, the lowest member id: a member that
// died while joining can linger in a generation it never syncs (kfake
// keeps it until the next rebalance), and the range protocol would hand
// it partitions nobody reads. The leader is alive: it is running this.
type wholeTopicBalancer struct{ token []byte }

// wholeTopicProtocol is the protocol name members vote for. The range
// protocol stays listed after it, so a group with members of an older
// release still forms (on range) during a rolling upgrade.
const wholeTopicProtocol = "motifwatch-whole-topic"

func newWholeTopicBalancer() wholeTopicBalancer {
	return wholeTopicBalancer{token: []byte(rand.Text())}
}

func (b wholeTopicBalancer) ProtocolName() string      { return wholeTopicProtocol }
func (b wholeTopicBalancer) UserData() ([]byte, error) { return b.token, nil }

// AssignGroups gives every partition to the member whose metadata carries
// this process's token (the leader, which runs it), or, should none (a
// member id reused across processes cannot carry it), to the first
// member by id; everyone else gets an empty assignment.
func (b wholeTopicBalancer) AssignGroups(members []kafkago.GroupMember, partitions []kafkago.Partition) kafkago.GroupMemberAssignments {
	out := kafkago.GroupMemberAssignments{}
	if len(members) == 0 {
		return out
	}
	owner := slices.MinFunc(members, func(x, y kafkago.GroupMember) int { return strings.Compare(x.ID, y.ID) })
	for _, m := range members {
		if bytes.Equal(m.UserData, b.token) {
			owner = m
		}
		out[m.ID] = map[string][]int{}
	}
	for _, p := range partitions {
		if slices.Contains(owner.Topics, p.Topic) {
			out[owner.ID][p.Topic] = append(out[owner.ID][p.Topic], p.ID)
		}
	}
	for _, ps := range out[owner.ID] {
		slices.Sort(ps)
	}
	return out
}

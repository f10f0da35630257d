package kafka

import (
	"context"
	"errors"
	"fmt"

	kafkago "github.com/segmentio/kafka-go"
)

// Commit is what a consumer group has committed for one partition: the
// next offset to read, and the metadata stored with it.
type Commit struct {
	Offset   int64
	Metadata string
}

// Commits returns group's commits for the given partitions of topic
// (every partition of it when partitions is nil); a partition without a
// commit is absent. A group that does not exist yet has committed
// nothing: that is an empty map, not an error (a first start, or a
// group nobody has committed to, such as a resume group before the
// first clean stop).
func (a *Admin) Commits(ctx context.Context, group, topic string, partitions []int) (map[int]Commit, error) {
	if partitions == nil {
		var err error
		if partitions, err = a.Partitions(ctx, topic); err != nil {
			return nil, err
		}
	}
	res, err := a.c.OffsetFetch(ctx, &kafkago.OffsetFetchRequest{GroupID: group, Topics: map[string][]int{topic: partitions}})
	err = CleanError(err) // no kafka-go method names in messages
	if err != nil {
		return nil, fmt.Errorf("kafka admin: committed offsets of group %s: %w", group, err)
	}
	if errors.Is(res.Error, kafkago.GroupIdNotFound) {
		return map[int]Commit{}, nil
	}
	if res.Error != nil {
		return nil, fmt.Errorf("kafka admin: committed offsets of group %s: %w", group, res.Error)
	}
	out := make(map[int]Commit)
	for _, p := range res.Topics[topic] {
		if p.Error != nil {
			return nil, fmt.Errorf("kafka admin: committed offset of group %s, %s partition %d: %w", group, topic, p.Partition, p.Error)
		}
		if p.CommittedOffset >= 0 { // -1: nothing committed yet
			out[p.Partition] = Commit{Offset: p.CommittedOffset, Metadata: p.Metadata}
		}
	}
	return out, nil
}

// GroupAssignment is which partitions of a topic the members of a
// consumer group hold.
type GroupAssignment struct {
	// State is the group's state: Stable once its members have their
	// assignment (PreparingRebalance, CompletingRebalance, Empty, Dead).
	State   string
	Members int
	// Assigned are the partitions of the topic some member holds.
	Assigned map[int]bool
}

// GroupAssignment describes group's members and the partitions of topic
// assigned to them.
func (a *Admin) GroupAssignment(ctx context.Context, group, topic string) (GroupAssignment, error) {
	res, err := a.c.DescribeGroups(ctx, &kafkago.DescribeGroupsRequest{GroupIDs: []string{group}})
	err = CleanError(err) // no kafka-go method names in messages
	if err != nil {
		return GroupAssignment{}, fmt.Errorf("kafka admin: describing group %s: %w", group, err)
	}
	for _, g := range res.Groups {
		if g.GroupID != group {
			continue
		}
		if g.Error != nil {
			return GroupAssignment{}, fmt.Errorf("kafka admin: describing group %s: %w", group, g.Error)
		}
		out := GroupAssignment{State: g.GroupState, Members: len(g.Members), Assigned: map[int]bool{}}
		for _, m := range g.Members {
			for _, t := range m.MemberAssignments.Topics {
				if t.Topic != topic {
					continue
				}
				for _, p := range t.Partitions {
					out.Assigned[p] = true
				}
			}
		}
		return out, nil
	}
	return GroupAssignment{}, fmt.Errorf("kafka admin: describing group %s: no answer", group)
}

// Committed returns group's committed offsets (the next to read) for the
// partitions of topic, as Commits does, without the metadata.
func (a *Admin) Committed(ctx context.Context, group, topic string) (map[int]int64, error) {
	commits, err := a.Commits(ctx, group, topic, nil)
	if err != nil {
		return nil, err
	}
	out := make(map[int]int64, len(commits))
	for p, c := range commits {
		out[p] = c.Offset
	}
	return out, nil
}

// CommitOutsideGroup commits offsets and metadata for group as a client
// that is not a member (generation -1). The coordinator accepts that only
// while the group has no live members: the daemon uses it for a group
// that nobody joins (the resume group of a clean stop).
func (a *Admin) CommitOutsideGroup(ctx context.Context, group, topic string, commits map[int]Commit) error {
	if len(commits) == 0 {
		return nil
	}
	parts := make([]kafkago.OffsetCommit, 0, len(commits))
	for p, c := range commits {
		parts = append(parts, kafkago.OffsetCommit{Partition: p, Offset: c.Offset, Metadata: c.Metadata})
	}
	resp, err := a.c.OffsetCommit(ctx, &kafkago.OffsetCommitRequest{GroupID: group, GenerationID: -1,
		Topics: map[string][]kafkago.OffsetCommit{topic: parts}})
	err = CleanError(err) // no kafka-go method names in messages
	if err != nil {
		return fmt.Errorf("kafka admin: offset commit of group %s: %w", group, err)
	}
	for _, p := range resp.Topics[topic] {
		if p.Error != nil {
			return fmt.Errorf("kafka admin: offset commit of group %s, %s partition %d: %w", group, topic, p.Partition, p.Error)
		}
	}
	return nil
}

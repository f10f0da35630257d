package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/segmentio/kafka-go"
)

// resumeState is stored in the commit metadata of every partition at a
// clean shutdown: what a restart needs to report each match exactly once.
// Processed is the next offset after the last record the pipeline handled
// (the committed offset can be lower: it stops at the oldest held match);
// Watermark is the watermark at shutdown.
type resumeState struct {
	Processed int64 `json:"processed"`
	Watermark int64 `json:"watermark"`
	Clean     bool  `json:"clean"`
}

// committed reads the group's committed offsets and metadata for topic.
func committed(ctx context.Context, client *kafka.Client, group, topic string, partitions []int) (map[int]int64, map[int]resumeState, error) {
	resp, err := client.OffsetFetch(ctx, &kafka.OffsetFetchRequest{GroupID: group, Topics: map[string][]int{topic: partitions}})
	if err != nil {
		return nil, nil, fmt.Errorf("fetching committed offsets of group %s: %w", group, err)
	}
	if errors.Is(resp.Error, kafka.GroupIdNotFound) {
		return map[int]int64{}, map[int]resumeState{}, nil // a new group: nothing committed
	}
	if resp.Error != nil {
		return nil, nil, fmt.Errorf("fetching committed offsets of group %s: %w", group, resp.Error)
	}
	offsets, states := map[int]int64{}, map[int]resumeState{}
	for _, p := range resp.Topics[topic] {
		if p.Error != nil {
			return nil, nil, fmt.Errorf("committed offset of %s/%d: %w", topic, p.Partition, p.Error)
		}
		if p.CommittedOffset < 0 {
			continue // nothing committed yet
		}
		offsets[p.Partition] = p.CommittedOffset
		var st resumeState
		if p.Metadata != "" && json.Unmarshal([]byte(p.Metadata), &st) == nil && st.Clean {
			states[p.Partition] = st
		}
	}
	return offsets, states, nil
}

// commitFinal commits offsets with resume metadata after the consumer has
// left the group (generation -1: a standalone commit, accepted for a group
// with no live members).
func commitFinal(ctx context.Context, client *kafka.Client, group, topic string, offsets map[int]int64, processed map[int]int64, watermark int64) error {
	var parts []kafka.OffsetCommit
	for p, off := range offsets {
		meta, _ := json.Marshal(resumeState{Processed: processed[p], Watermark: watermark, Clean: true})
		parts = append(parts, kafka.OffsetCommit{Partition: p, Offset: off, Metadata: string(meta)})
	}
	if len(parts) == 0 {
		return nil
	}
	resp, err := client.OffsetCommit(ctx, &kafka.OffsetCommitRequest{GroupID: group, GenerationID: -1, Topics: map[string][]kafka.OffsetCommit{topic: parts}})
	if err != nil {
		return fmt.Errorf("final offset commit of group %s: %w", group, err)
	}
	for _, p := range resp.Topics[topic] {
		if p.Error != nil {
			return fmt.Errorf("final offset commit of %s/%d: %w", topic, p.Partition, p.Error)
		}
	}
	return nil
}

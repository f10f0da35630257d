package daemon

import (
	"context"
	"encoding/json"
	"math"

	"github.com/motifwatch/motifwatch/kafka"
	"github.com/motifwatch/motifwatch/stream"
)

// resumeState is stored in the commit metadata of every partition at a
// clean shutdown: what a restart needs to report each match exactly once.
// Processed is the next offset after the last record the pipeline handled
// (the committed offset can be lower: it stops at the oldest held match);
// Watermark is the watermark at shutdown. The records before Processed
// with times at or below Watermark were mined; matches ending at them
// whose anti-edge intervals end at or below it were decided (reported or
// discarded). Older holds the same for offsets from Processed on, when an
// earlier owner had got further than the last one (a partition handed
// over again before its new owner caught up): spans of increasing Until.
type resumeState struct {
	Processed int64        `json:"processed"`
	Watermark int64        `json:"watermark"`
	Clean     bool         `json:"clean"`
	Older     []resumeSpan `json:"older,omitempty"`
}

type resumeSpan struct {
	Until     int64 `json:"until"`
	Watermark int64 `json:"watermark"`
}

// maxResumeSpans bounds the spans kept (commit metadata is small: Kafka's
// offset.metadata.max.bytes is 4096 by default).
const maxResumeSpans = 8

// spans returns the state as stream.ResumeSpans, in increasing Until.
func (st resumeState) spans() []stream.ResumeSpan {
	out := []stream.ResumeSpan{{Until: st.Processed, Watermark: st.Watermark}}
	for _, s := range st.Older {
		out = append(out, stream.ResumeSpan{Until: s.Until, Watermark: s.Watermark})
	}
	return out
}

// watermarkAt returns the watermark against which the record at offset
// was mined, and false if it was not handled.
func (st resumeState) watermarkAt(offset int64) (int64, bool) {
	for _, s := range st.spans() {
		if offset < s.Until {
			return s.Watermark, true
		}
	}
	return 0, false
}

// nextResume is the state to commit after a pipeline that had prev (nil:
// none) handled the records below processed up to watermark: a record
// handled by both was decided up to the higher of the two watermarks;
// beyond processed, prev's spans stay. Past maxResumeSpans the last spans
// merge at the lower watermark: the next owner may then report a match
// again (at least once), never lose one.
func nextResume(prev *resumeState, processed, watermark int64) resumeState {
	var out []resumeSpan
	last := int64(math.MinInt64)
	if prev != nil {
		for _, s := range prev.spans() {
			switch {
			case last >= processed:
				out = append(out, resumeSpan{s.Until, s.Watermark})
			case s.Until <= processed:
				out = append(out, resumeSpan{s.Until, max(s.Watermark, watermark)})
			default:
				out = append(out, resumeSpan{processed, max(s.Watermark, watermark)}, resumeSpan{s.Until, s.Watermark})
			}
			last = s.Until
		}
	}
	if last < processed {
		out = append(out, resumeSpan{processed, watermark})
	}
	merged := out[:1]
	for _, s := range out[1:] {
		if n := len(merged); merged[n-1].Watermark == s.Watermark || n == maxResumeSpans {
			merged[n-1] = resumeSpan{s.Until, min(merged[n-1].Watermark, s.Watermark)}
			continue
		}
		merged = append(merged, s)
	}
	st := resumeState{Processed: merged[0].Until, Watermark: merged[0].Watermark, Clean: true}
	if len(merged) > 1 {
		st.Older = merged[1:]
	}
	return st
}

// committed reads the group's committed offsets for topic and, per
// partition, the resume state a clean shutdown left for that offset: in
// the group's own commit metadata (scale-out commits it in its
// generation), or else in resumeGroup's commit at the same offset (a
// later commit by anyone makes it stale: at least once then).
func committed(ctx context.Context, admin *kafka.Admin, group, topic string, partitions []int) (map[int]int64, map[int]resumeState, error) {
	offsets, states, err := fetchCommitted(ctx, admin, group, topic, partitions)
	if err != nil {
		return nil, nil, err
	}
	roffsets, rstates, err := fetchCommitted(ctx, admin, resumeGroup(group), topic, partitions)
	if err != nil {
		return offsets, states, nil // no resume state: at least once
	}
	for p, st := range rstates {
		_, own := states[p]
		if off, ok := offsets[p]; ok && roffsets[p] == off && !own {
			states[p] = st
		}
	}
	return offsets, states, nil
}

// resumeGroup is the consumer group, never joined, whose commits carry a
// daemon's resume state at a clean shutdown. The daemon's own group may
// have live members then (a standby), which refuse a commit from outside
// the generation.
func resumeGroup(group string) string { return group + ".resume" }

// fetchCommitted reads one group's committed offsets and clean resume
// states for topic (none for a group that does not exist yet).
func fetchCommitted(ctx context.Context, admin *kafka.Admin, group, topic string, partitions []int) (map[int]int64, map[int]resumeState, error) {
	commits, err := admin.Commits(ctx, group, topic, partitions)
	if err != nil {
		return nil, nil, err
	}
	offsets, states := make(map[int]int64, len(commits)), map[int]resumeState{}
	for p, c := range commits {
		offsets[p] = c.Offset
		var st resumeState
		if c.Metadata != "" && json.Unmarshal([]byte(c.Metadata), &st) == nil && st.Clean {
			states[p] = st
		}
	}
	return offsets, states, nil
}

// resumeMetadata is the commit metadata of each partition in offsets
// after a pipeline that started from prev (a restart's or a handover's
// resume state; nil entries for partitions without) and handled the
// records below processed[p] up to watermark.
func resumeMetadata(offsets, processed map[int]int64, prev map[int]resumeState, watermark int64) map[int]string {
	meta := make(map[int]string, len(offsets))
	for p := range offsets {
		var pst *resumeState
		if st, ok := prev[p]; ok {
			pst = &st
		}
		b, _ := json.Marshal(nextResume(pst, processed[p], watermark))
		meta[p] = string(b)
	}
	return meta
}

// commitFinal records the resume state of a clean shutdown: offsets (what
// the pipeline's last in-group commit wrote) with resume metadata, in
// resumeGroup, which nobody joins, so the standalone commit (generation
// -1) is accepted even while other members (a standby) hold the daemon's
// own group.
func commitFinal(ctx context.Context, admin *kafka.Admin, group, topic string, offsets map[int]int64, processed map[int]int64, prev map[int]resumeState, watermark int64) error {
	meta := resumeMetadata(offsets, processed, prev, watermark)
	commits := make(map[int]kafka.Commit, len(offsets))
	for p, off := range offsets {
		commits[p] = kafka.Commit{Offset: off, Metadata: meta[p]}
	}
	return admin.CommitOutsideGroup(ctx, resumeGroup(group), topic, commits)
}

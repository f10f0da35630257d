package daemon

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/config"
	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/stream"
)

// TestPipelineDeadLettersHeldEdges: a record far ahead of its partition
// (window.max_jump) that the partition never confirms is dead-lettered as
// future with the next batch, once, with its source offset and a reason
// naming max_jump, and logged; the record accounting adds up. Not when
// it is History (read again after a restart: decided before it), and
// not by an instance whose duty the partition is not (its owner
// dead-letters it: counted as skipped here).
func TestPipelineDeadLettersHeldEdges(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	for _, c := range []struct {
		name             string
		history, offDuty bool
	}{
		{name: "on duty"},
		{name: "history", history: true},
		{name: "off duty", offDuty: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, dlq, log := capPipeline(t, stream.Options{}, time.Hour, now)
			p.parts.cfg = &config.Config{Window: config.Window{MaxJump: 10 * time.Minute, JumpConfirmations: 3}}
			p.parts.times = newEventTimes()
			p.batcher.reorder.SetJumpRule(ingest.JumpRule{MaxJump: 600, Confirmations: 3, Tick: time.Second})
			if c.offDuty {
				p.admit.duty = newOwnedPartitions([]int{1})
			}
			if c.history {
				p.admit.pos.historyBefore = map[int]int64{0: 11} // the outlier, at offset 10, is History
			}
			ctx := context.Background()
			base := now.Unix() - 7200
			off := int64(0)
			take := func(src, dst string, tm int64) {
				t.Helper()
				if err := takeRecord(ctx, p, record(off, src, dst, tm)); err != nil {
					t.Fatal(err)
				}
				off++
			}
			for i := range int64(10) {
				take("a", "b", base+i)
			}
			take("x", "y", now.Unix()+3000) // 50 minutes after the wall clock
			if err := p.batch(ctx); err != nil {
				t.Fatal(err)
			}
			if p.batcher.reorder.Held() != 1 {
				t.Fatalf("%d held; want the outlier", p.batcher.reorder.Held())
			}
			for i := range int64(70) { // 700 s more at the old time
				take("b", "c", base+10+10*i)
			}
			if err := p.batch(ctx); err != nil { // discarded while taken in: written with this batch
				t.Fatal(err)
			}
			want := 1
			if c.history || c.offDuty {
				want = 0
			}
			if len(dlq.sent) != want {
				t.Fatalf("%d dead letters %+v; want %d", len(dlq.sent), dlq.sent, want)
			}
			if want == 1 {
				d := dlq.sent[0]
				if d.msg.Offset != 10 || !strings.Contains(d.reason, "future edge: t=1800003000 came more than window.max_jump 10m0s (600 ticks) after its partition's time and was never confirmed") {
					t.Errorf("dead letter at offset %d, reason %q; want offset 10, a future edge past max_jump", d.msg.Offset, d.reason)
				}
			}
			if c.offDuty && p.stats.Skipped != 1 {
				t.Errorf("skipped %d records; want the outlier", p.stats.Skipped)
			}
			s := p.stats
			if buffered := int64(p.batcher.reorder.Len()); !c.history && s.Records != s.Appended+buffered+s.SelfLoops+s.Late+s.DeadLettered+s.Skipped {
				t.Errorf("stats %+v, %d buffered: the records do not add up", s, buffered)
			}
			logged := strings.Contains(log.String(), "held records were never confirmed")
			if logged != !c.history {
				t.Errorf("log says held records were dead-lettered: %v; want %v\n%s", logged, !c.history, log)
			}
			if w, parts, _ := p.parts.times.get(); w != p.batcher.reorder.Watermark() || len(parts) != 1 || parts[0].Time != base+10+690 {
				t.Errorf("event time %d, %+v; want the watermark %d, partition 0 at %d", w, parts, p.batcher.reorder.Watermark(), base+700)
			}
		})
	}
}

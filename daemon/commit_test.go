package daemon

import (
	"fmt"
	"testing"
)

// TestNextResume: the resume state a pipeline commits, from the one it
// started with (after a restart or handover) and how far it got.
func TestNextResume(t *testing.T) {
	type sp = resumeSpan
	prev := &resumeState{Processed: 100, Watermark: 50, Clean: true}
	for _, c := range []struct {
		name                 string
		prev                 *resumeState
		processed, watermark int64
		want                 string
	}{
		{"fresh", nil, 80, 40, "80@40"},
		{"not caught up, lower watermark: the old owner decided more", prev, 50, 40, "100@50"},
		{"not caught up, higher watermark", prev, 50, 70, "50@70 100@50"},
		{"caught up, higher watermark", prev, 150, 70, "150@70"},
		{"caught up, lower watermark: the old owner's span stays higher", prev, 150, 40, "100@50 150@40"},
		{"split in the middle of an older span",
			&resumeState{Processed: 10, Watermark: 5, Older: []sp{{100, 50}}}, 60, 30, "10@30 100@50"}, // 60@50 merges into 100@50
	} {
		got := format(nextResume(c.prev, c.processed, c.watermark))
		if got != c.want {
			t.Errorf("%s: nextResume(%v, %d, %d) = %s; want %s", c.name, c.prev, c.processed, c.watermark, got, c.want)
		}
	}
	// Many hand-overs before anyone catches up: the spans stay bounded, and
	// merging only ever lowers a watermark (at least once, never a loss).
	var st *resumeState
	for i := range 20 {
		s := nextResume(st, int64(100-i), int64(1000+i))
		st = &s
	}
	if n := len(st.spans()); n > maxResumeSpans {
		t.Errorf("%d spans after 20 hand-overs; want at most %d", n, maxResumeSpans)
	}
	for _, s := range st.spans() {
		if w, _ := st.watermarkAt(s.Until - 1); w > 1019 {
			t.Errorf("watermark %d at offset %d exceeds any owner's", w, s.Until-1)
		}
	}
}

func format(st resumeState) string {
	out := ""
	for i, s := range st.spans() {
		if i > 0 {
			out += " "
		}
		out += fmt.Sprintf("%d@%d", s.Until, s.Watermark)
	}
	return out
}

package ingest

import (
	"fmt"
	"strconv"
	"time"

	progressfmt "github.com/motifwatch/motifwatch/internal/progress"
)

// Warnings words what loading the edge file path found that its user may
// not expect, one line each: the malformed lines skipped (SkipBad, with
// samples), empty attribute values, and timestamps that look written in
// a finer unit than unit (--time-unit). The batch commands print them.
func (st FileStats) Warnings(path string, unit time.Duration) []string {
	var lines []string
	if st.Bad > 0 {
		lines = append(lines, fmt.Sprintf("loading %s: skipped %d malformed lines, e.g.:", path, st.Bad))
		for _, e := range st.BadSamples {
			lines = append(lines, fmt.Sprintf("  %v", e))
		}
	}
	if st.EmptyValues > 0 {
		lines = append(lines, fmt.Sprintf("loading %s: warning: %s empty attribute %s, e.g. %v; queries see them as missing (docs/QUERIES.md, \"Missing attributes\")",
			path, progressfmt.Grouped(st.EmptyValues), pluralWord(st.EmptyValues, "value"), st.FirstEmpty))
	}
	if finer, ok := SuspectTimeUnit(st.LargestT, unit); ok {
		lines = append(lines, fmt.Sprintf("loading %s: warning: timestamps look like %s, not %s: %d (line %d) is %d digits; give --time-unit %s if so",
			path, unitWord(finer), unitWord(unit.String()), st.LargestT, st.LargestTLine, len(strconv.FormatUint(magnitude(st.LargestT), 10)), finer))
	}
	return lines
}

// unitWord names a time unit: "1ms" → "milliseconds".
func unitWord(u string) string {
	switch u {
	case "1s":
		return "seconds"
	case "1ms":
		return "milliseconds"
	case "1µs":
		return "microseconds"
	case "1ns":
		return "nanoseconds"
	}
	return "ticks of " + u
}

func pluralWord(n int64, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}

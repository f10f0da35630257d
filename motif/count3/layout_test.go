package count3

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"testing"
	"unsafe"
)

// kernels/count3.cu reads Event and Raw in place: its struct and #defines
// must match the Go layout.
func TestKernelLayout(t *testing.T) {
	src, err := os.ReadFile("../../kernels/count3.cu")
	if err != nil {
		t.Fatal(err)
	}
	defs := map[string]int64{}
	for _, m := range regexp.MustCompile(`(?m)^#define (\w+) (\d+)$`).FindAllStringSubmatch(string(src), -1) {
		v, _ := strconv.ParseInt(m[2], 10, 64)
		defs[m[1]] = v
	}
	want := map[string]int64{
		"F_IN": int64(fIn), "F_COUNTED": int64(fCounted), "F_HIGHER": int64(fHigher),
		"RAW_PAIR": rawPair, "RAW_PRE": rawPre, "RAW_MID": rawMid, "RAW_POST": rawPost, "RAW_TRI": rawTri, "RAW_STAR4": rawStar4,
		"CENTRE_STATE": int64(unsafe.Sizeof(nbrState{}) / 8),
	}
	for name, v := range want {
		if got, ok := defs[name]; !ok || got != v {
			t.Errorf("kernels/count3.cu: #define %s = %d (defined: %v); Go has %d", name, got, ok, v)
		}
	}
	var e Event
	got := fmt.Sprint(unsafe.Sizeof(e), unsafe.Offsetof(e.Pos), unsafe.Offsetof(e.T), unsafe.Offsetof(e.Local), unsafe.Offsetof(e.Flags))
	if got != "24 0 8 16 20" {
		t.Errorf("Event size and offsets %s; the kernel's Ev is 24 0 8 16 20", got)
	}
}

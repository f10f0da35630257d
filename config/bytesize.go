package config

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ByteSize is a size in bytes. In YAML and the environment it is an
// integer number of bytes or a number with a unit: B, KB, MB, GB, TB
// (powers of 1000) or KiB, MiB, GiB, TiB (powers of 1024), e.g. 512MiB
// or 1.5GB.
type ByteSize int64

var byteUnits = []struct {
	suffix string
	mult   float64
}{
	// Longest suffixes first: "MiB" before "B".
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
	{"B", 1},
}

// ParseByteSize reads "2GiB", "500MB", "1048576" or "1048576B".
func ParseByteSize(s string) (ByteSize, error) {
	t := strings.TrimSpace(s)
	mult := 1.0
	for _, u := range byteUnits {
		if num, ok := strings.CutSuffix(t, u.suffix); ok {
			t, mult = strings.TrimSpace(num), u.mult
			break
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || t == "" || strings.ContainsAny(t, "xXpP_") { // no hex floats or digit separators
		return 0, fmt.Errorf("%q is not a size (like 512MiB, 2GiB or a number of bytes)", s)
	}
	b := f * mult
	if math.IsNaN(b) || b >= math.MaxInt64 || b <= math.MinInt64 || b != math.Trunc(b) {
		return 0, fmt.Errorf("%q is not a whole number of bytes in range", s)
	}
	return ByteSize(b), nil
}

// String writes b with the largest binary unit that divides it: "2GiB",
// "1536KiB", "1000B".
func (b ByteSize) String() string {
	for i := 3; i >= 0; i-- {
		u := byteUnits[i]
		if m := int64(u.mult); b != 0 && int64(b)%m == 0 {
			return strconv.FormatInt(int64(b)/m, 10) + u.suffix
		}
	}
	return strconv.FormatInt(int64(b), 10) + "B"
}

func toByteSize(data any) (any, error) {
	switch x := data.(type) {
	case ByteSize:
		return x, nil
	case int:
		return ByteSize(x), nil
	case int64:
		return ByteSize(x), nil
	case uint64:
		if x > math.MaxInt64 {
			return nil, fmt.Errorf("%d bytes is out of range", x)
		}
		return ByteSize(x), nil
	case float64:
		return ParseByteSize(strconv.FormatFloat(x, 'f', -1, 64))
	case string:
		return ParseByteSize(x)
	}
	return nil, fmt.Errorf("%v is not a size (like 512MiB, 2GiB or a number of bytes)", data)
}

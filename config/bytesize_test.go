package config

import (
	"strings"
	"testing"
)

func TestParseByteSize(t *testing.T) {
	for _, c := range []struct {
		in   string
		want ByteSize
		err  string
	}{
		{"1048576", 1 << 20, ""},
		{"512MiB", 512 << 20, ""},
		{" 2 GiB ", 2 << 30, ""},
		{"1.5GB", 1_500_000_000, ""},
		{"64KiB", 64 << 10, ""},
		{"10B", 10, ""},
		{"0", 0, ""},
		{"1.5B", 0, `"1.5B" is not a whole number of bytes in range`},
		{"lots", 0, `"lots" is not a size`},
		{"MiB", 0, `"MiB" is not a size`},
		{"0x10", 0, `"0x10" is not a size`},
		{"1e30TiB", 0, `is not a whole number of bytes in range`},
	} {
		got, err := ParseByteSize(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseByteSize(%q) = %v, %v; want error %q", c.in, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("ParseByteSize(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	for _, c := range []struct {
		b    ByteSize
		want string
	}{{2 << 30, "2GiB"}, {1536 << 10, "1536KiB"}, {1000, "1000B"}, {0, "0B"}} {
		if got := c.b.String(); got != c.want {
			t.Errorf("ByteSize(%d).String() = %q; want %q", int64(c.b), got, c.want)
		}
	}
}

// TestCapsFromEnvironment: the caps take units from the environment too,
// and a bad value names the variable.
func TestCapsFromEnvironment(t *testing.T) {
	t.Setenv("MONITOR_WINDOW_MAX_BYTES", "256MiB")
	t.Setenv("MONITOR_WINDOW_MAX_FUTURE", "15m")
	c, err := Load("testdata/minimal.good.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if c.Window.MaxBytes != 256<<20 || c.Window.MaxFuture.Minutes() != 15 {
		t.Errorf("max_bytes, max_future = %v, %v; want 256MiB, 15m", c.Window.MaxBytes, c.Window.MaxFuture)
	}
	if d := DefaultConfig().Window; d.MaxNodes != 10_000_000 || d.MaxMatchesPerBatch != 100_000 {
		t.Errorf("default max_nodes, max_matches_per_batch = %d, %d", d.MaxNodes, d.MaxMatchesPerBatch)
	}
	t.Setenv("MONITOR_WINDOW_MAX_BYTES", "10KiB")
	c, err = Load("testdata/minimal.good.yaml")
	if err == nil {
		err = c.Validate()
	}
	want := "$MONITOR_WINDOW_MAX_BYTES: window.max_bytes: 10KiB is below the minimum of 1MiB"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("max_bytes 10KiB from the environment: error %v; want %q", err, want)
	}
}

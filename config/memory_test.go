package config

import "testing"

func TestMemoryBudget(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		name string
		set  func(*Config)
		want MemoryBudget
		ok   bool
	}{
		{"defaults, real brokers", func(c *Config) { c.Kafka.Brokers = []string{"kafka:9092"} },
			MemoryBudget{Window: 2048 * mib, Buffered: 320 * mib, Base: 64*mib + 10_000*2048}, true},
		{"defaults, embedded", func(*Config) {},
			MemoryBudget{Window: 2048 * mib, Buffered: 320 * mib, Base: 64*mib + 10_000*2048, Broker: 3 * 4 * 10 * mib}, true},
		{"small caps: the fetch share's 1 MiB floor", func(c *Config) {
			c.Kafka.Brokers = []string{"kafka:9092"}
			c.Window.MaxBytes, c.Window.MaxBufferedBytes, c.Window.BatchSize = 4*mib, 2*mib, 1000
		}, MemoryBudget{Window: 4 * mib, Buffered: 3 * mib, Base: 64*mib + 1000*2048}, true},
		{"no window cap", func(c *Config) { c.Window.MaxBytes = 0 },
			MemoryBudget{Window: 0, Buffered: 320 * mib, Base: 64*mib + 10_000*2048, Broker: 120 * mib}, false},
		{"no buffer cap", func(c *Config) { c.Kafka.Brokers = []string{"kafka:9092"}; c.Window.MaxBufferedBytes = 0 },
			MemoryBudget{Window: 2048 * mib, Buffered: 1 * mib, Base: 64*mib + 10_000*2048}, false},
		{"embedded broker keeping everything", func(c *Config) { c.Kafka.Embedded.RetentionBytes = 0 },
			MemoryBudget{Window: 2048 * mib, Buffered: 320 * mib, Base: 64*mib + 10_000*2048}, false},
	} {
		cfg := DefaultConfig()
		c.set(cfg)
		got, ok := cfg.MemoryBudget()
		if got != c.want || ok != c.ok {
			t.Errorf("%s: MemoryBudget() = %+v, %v; want %+v, %v", c.name, got, ok, c.want, c.ok)
		}
	}
	b := MemoryBudget{Window: 128 * mib, Buffered: 320 * mib, Base: 84 * mib, Broker: 60 * mib}
	if got, want := b.String(), "592MiB (window 128MiB + buffered 320MiB + base 84MiB + embedded broker 60MiB)"; got != want {
		t.Errorf("String() = %q; want %q", got, want)
	}
}

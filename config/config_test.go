package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/alerts"
)

// oneQuery is the smallest config that validates: defaults plus one query.
const oneQuery = `
queries:
  inline:
    - {name: q, delta: 1m, edges: [A -> B]}
`

func TestDefaultConfigValidatesWithOneInlineQuery(t *testing.T) {
	c := DefaultConfig()
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "queries: no queries (give queries.files or queries.inline)") {
		t.Errorf("DefaultConfig().Validate() = %v; want the no-queries error", err)
	}
	c.Queries.Inline = []map[string]any{{"name": "q", "delta": "1m", "edges": []any{"A -> B"}}}
	if err := c.Validate(); err != nil {
		t.Errorf("DefaultConfig() with one inline query: Validate() = %v", err)
	}
	qs, schema, err := c.Check()
	if err != nil || len(qs) != 1 || schema.TimeUnit != time.Second {
		t.Errorf("Check() = %d queries, schema %+v, %v; want 1 query, 1s ticks, nil", len(qs), schema, err)
	}
	if !c.Embedded() || !c.DemoEnabled() {
		t.Errorf("defaults: Embedded() = %v, DemoEnabled() = %v; want true, true", c.Embedded(), c.DemoEnabled())
	}
}

func TestLoadEmptyIsDefaults(t *testing.T) {
	for _, path := range []string{"", "testdata/empty-sections.good.yaml"} {
		c, err := Load(path)
		if err != nil {
			t.Fatalf("Load(%q) error = %v", path, err)
		}
		want := DefaultConfig()
		c.origins, c.inline, c.Source, c.Queries.Inline = nil, nil, "", nil
		if !reflect.DeepEqual(c, want) {
			t.Errorf("Load(%q) =\n%+v\nwant the defaults\n%+v", path, c, want)
		}
	}
}

func TestLoadFullFile(t *testing.T) {
	c, err := Load("testdata/full.good.yaml")
	if err != nil {
		t.Fatalf("Load error = %v", err)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"kafka.brokers", c.Kafka.Brokers, []string{"kafka-1:9092", "kafka-2:9092"}},
		{"kafka.partitions", c.Kafka.Partitions, 12},
		{"kafka.tls.ca_file", c.Kafka.TLS.CAFile, filepath.Join("testdata", "tls", "ca.pem")},
		{"kafka.sasl.mechanism", c.Kafka.SASL.Mechanism, SASLScramSHA512},
		{"input.time_unit", c.Input.TimeUnit, time.Millisecond},
		{"input.fields.src_label", c.Input.Fields.SrcLabel, "from_kind"},
		{"input.csv_columns", c.Input.CSVColumns, []string{"from", "to", "ts", "seq", "amount", "currency", "-", "from_kind", "to_kind"}},
		{"input.attributes", c.Input.Attributes, map[string]string{"amount": "number", "currency": "string"}},
		{"window.allowed_lateness", c.Window.AllowedLateness, 30 * time.Second},
		{"window.batch_max_wait", c.Window.BatchMaxWait, 50 * time.Millisecond},
		{"window.max_mine_steps", c.Window.MaxMineSteps, int64(50_000_000)},
		{"window.max_mine_time", c.Window.MaxMineTime, 2 * time.Second},
		{"window.max_jump", c.Window.MaxJump, 2 * time.Minute},
		{"window.jump_confirmations", c.Window.JumpConfirmations, 4},
		{"engine.devices", c.Engine.Devices, []int{0, 1}},
		{"engine.gpu", c.Engine.GPU, GPU{Chunks: 2, MemoryFraction: 0.5, CountSmallOnHost: true}},
		{"queries.files", c.Queries.Files, []string{filepath.Join("testdata", "queries", "fraud.yaml"), filepath.Join("testdata", "queries", "labels.yaml")}},
		{"queries.inline[0].name", c.Queries.Inline[0]["name"], "Big.Transfer"},
		{"alerts.rate_limit", c.Alerts.RateLimit, 50.5},
		{"alerts.For(money-cycle)", c.Alerts.For("money-cycle"), AlertPolicy{Mode: alerts.ModeEnumerate, RateLimit: 0, RateBurst: 100}},
		{"alerts.For(Big.Transfer)", c.Alerts.For("Big.Transfer"), AlertPolicy{Mode: alerts.ModeCount, RateLimit: 50.5, RateBurst: 10}},
		{"alerts.For(fan-in)", c.Alerts.For("fan-in"), AlertPolicy{Mode: alerts.ModeCount, RateLimit: 50.5, RateBurst: 100}},
		{"metrics.listen", c.Metrics.Listen, ":9464"},
		{"DemoEnabled", c.DemoEnabled(), false},
		{"Embedded", c.Embedded(), false},
		{"shutdown_timeout", c.ShutdownTimeout, time.Minute},
		{"log", c.Log, Log{Level: "debug", Format: "json", StatusInterval: 10 * time.Second}},
	}
	for _, ck := range checks {
		if !reflect.DeepEqual(ck.got, ck.want) {
			t.Errorf("%s = %#v; want %#v", ck.name, ck.got, ck.want)
		}
	}
}

func TestBrokersScalarAndList(t *testing.T) {
	cases := []struct {
		yaml string
		want []string
	}{
		{"kafka: {brokers: embedded}", []string{"embedded"}},
		{"kafka: {brokers: [embedded]}", []string{"embedded"}},
		{"kafka: {brokers: a:9092}", []string{"a:9092"}},
		{`kafka: {brokers: "a:9092, b:9093"}`, []string{"a:9092", "b:9093"}},
		{"kafka:\n  brokers:\n    - a:9092\n    - b:9093\n", []string{"a:9092", "b:9093"}},
	}
	for _, tc := range cases {
		c, err := Parse([]byte(tc.yaml+"\n"+oneQuery), "brokers.yaml")
		if err != nil {
			t.Errorf("Parse(%q) error = %v", tc.yaml, err)
			continue
		}
		if !slices.Equal(c.Kafka.Brokers, tc.want) {
			t.Errorf("Parse(%q) brokers = %q; want %q", tc.yaml, c.Kafka.Brokers, tc.want)
		}
		if err := c.Validate(); err != nil {
			t.Errorf("Parse(%q).Validate() = %v", tc.yaml, err)
		}
		if got, want := c.Embedded(), tc.want[0] == Embedded; got != want || c.DemoEnabled() != want {
			t.Errorf("Parse(%q): Embedded() = %v, DemoEnabled() = %v; want %v", tc.yaml, got, c.DemoEnabled(), want)
		}
	}
}

func TestEnvOverrides(t *testing.T) {
	t.Setenv("MONITOR_KAFKA_BROKERS", "k1:9092,k2:9092")               // a list, absent from the file
	t.Setenv("MONITOR_WINDOW_ALLOWED_LATENESS", "10s")                 // a duration, set in the file too
	t.Setenv("MONITOR_INPUT_FORMAT", "csv")                            // a scalar
	t.Setenv("MONITOR_ENGINE_DEVICES", "0, 2")                         // a list of ints
	t.Setenv("MONITOR_ALERTS_RATE_LIMIT", "2.5")                       // a float
	t.Setenv("MONITOR_KAFKA_TLS_INSECURE_SKIP_VERIFY", "true")         // nested two deep
	t.Setenv("MONITOR_DEMO", "false")                                  // a nil default
	t.Setenv("MONITOR_QUERIES_FILES", "queries/fraud.yaml")            // paths from the environment stay as given
	t.Setenv("MONITOR_KAFKA_DEAD_LETTER_TOPIC", "dlq")                 // underscores in the key
	t.Setenv("MONITOR_ENGINE_GPU_PARTITION_EDGES", "4096")             // a GPU option
	t.Setenv("MONITOR_SOMETHING_UNKNOWN", "ignored: not a config key") // not ours
	c, err := Parse([]byte("window:\n  allowed_lateness: 3s\n"+oneQuery), "env.yaml")
	if err != nil {
		t.Fatalf("Parse error = %v", err)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"kafka.brokers", c.Kafka.Brokers, []string{"k1:9092", "k2:9092"}},
		{"window.allowed_lateness", c.Window.AllowedLateness, 10 * time.Second},
		{"input.format", c.Input.Format, "csv"},
		{"engine.devices", c.Engine.Devices, []int{0, 2}},
		{"engine.gpu.partition_edges", c.Engine.GPU.PartitionEdges, int64(4096)},
		{"alerts.rate_limit", c.Alerts.RateLimit, 2.5},
		{"kafka.tls.insecure_skip_verify", c.Kafka.TLS.InsecureSkipVerify, true},
		{"demo", c.Demo != nil && !*c.Demo, true},
		{"queries.files", c.Queries.Files, []string{"queries/fraud.yaml"}},
		{"kafka.dead_letter_topic", c.Kafka.DeadLetterTopic, "dlq"},
		{"kafka.edge_topic (untouched)", c.Kafka.EdgeTopic, "edges"},
	}
	for _, ck := range checks {
		if !reflect.DeepEqual(ck.got, ck.want) {
			t.Errorf("%s = %#v; want %#v", ck.name, ck.got, ck.want)
		}
	}
	// Errors in values from the environment name the variable.
	err = c.Validate()
	for _, want := range []string{
		"$MONITOR_KAFKA_TLS_INSECURE_SKIP_VERIFY: kafka.tls.insecure_skip_verify: set but kafka.tls.enabled is false",
		"$MONITOR_ENGINE_DEVICES: engine.devices: [0 2] given but engine.backend is cpu",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v; want substring %q", err, want)
		}
	}
}

func TestEnvOverridesWithoutFile(t *testing.T) {
	t.Setenv("MONITOR_KAFKA_BROKERS", "host:9092")
	t.Setenv("MONITOR_WINDOW_BATCH_SIZE", "77")
	c, err := Load("")
	if err != nil {
		t.Fatalf("Load(\"\") error = %v", err)
	}
	if !slices.Equal(c.Kafka.Brokers, []string{"host:9092"}) || c.Window.BatchSize != 77 || c.DemoEnabled() {
		t.Errorf("Load(\"\") = brokers %q, batch_size %d, demo %v; want [host:9092], 77, false", c.Kafka.Brokers, c.Window.BatchSize, c.DemoEnabled())
	}
}

func TestEnvTypeErrors(t *testing.T) {
	cases := []struct{ env, value, want string }{
		{"MONITOR_WINDOW_ALLOWED_LATENESS", "soon", `$MONITOR_WINDOW_ALLOWED_LATENESS: window.allowed_lateness: "soon" is not a duration`},
		{"MONITOR_WINDOW_BATCH_SIZE", "1e3x", `$MONITOR_WINDOW_BATCH_SIZE: window.batch_size: "1e3x" is not an integer`},
		{"MONITOR_DEMO", "maybe", `$MONITOR_DEMO: demo: "maybe" is not true or false`},
		{"MONITOR_ENGINE_DEVICES", "0,x", `$MONITOR_ENGINE_DEVICES: engine.devices[1]: "x" is not an integer`},
	}
	for _, tc := range cases {
		t.Run(tc.env, func(t *testing.T) {
			t.Setenv(tc.env, tc.value)
			_, err := Load("")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Load(%q) with %s=%s error = %v; want substring %q", "", tc.env, tc.value, err, tc.want)
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	cases := []struct{ yaml, want string }{
		{"kafkaa: {}", `x.yaml:1: kafkaa: unknown key (the top level takes kafka, input,`},
		{"kafka: {brokerz: a:1}", `x.yaml:1: kafka.brokerz: unknown key (kafka takes brokers, edge_topic,`},
		{"input:\n  fields:\n    source: s\n", `x.yaml:3: input.fields.source: unknown key (input.fields takes src, dst, time, seq, src_label, dst_label)`},
		{"Kafka: {}", `x.yaml:1: Kafka: unknown key`}, // keys are case-sensitive
		{"- a\n- b\n", `x.yaml:1: expected a mapping of sections (kafka:, input:, ...), found a list`},
		{"a: 1\n---\nb: 2\n", `x.yaml:2: a second YAML document`},
		{"engine: {devices: {a: 1}}", `x.yaml:1: engine.devices: expected a list, found a mapping`},
		{"input: {attributes: [amount]}", `x.yaml:1: input.attributes: expected a mapping of attribute names to types`},
		{"input: {attributes: {amount: [number]}}", `x.yaml:1: input.attributes.amount: expected a type (number or string), found a list`},
		{"alerts: {per_query: {q: {rate_limit: fast}}}", `x.yaml:1: alerts.per_query.q.rate_limit: "fast" is not a number`},
		{"queries: {inline: {name: q}}", `x.yaml:1: queries.inline: expected a list of queries, found a mapping`},
		{"shutdown_timeout: 1.5", `x.yaml:1: shutdown_timeout: 1.5 is not a duration: give a unit`},
		{"kafka: {partitions: true}", `x.yaml:1: kafka.partitions: true is not an integer`},
		// a single number where a list belongs: no mapstructure words
		{"queries:\n  files: 5\n", `x.yaml:2: queries.files: expected a list (e.g. [5]), found "5"`},
		{"engine: {devices: 1}", `x.yaml:1: engine.devices: expected a list (e.g. [1]), found "1"`},
	}
	for _, tc := range cases {
		_, err := Parse([]byte(tc.yaml), "x.yaml")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) error = %v; want substring %q", tc.yaml, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "source data") {
			t.Errorf("Parse(%q) error = %v: library words leak", tc.yaml, err)
		}
		var fe *FieldError
		if err != nil && !errors.As(err, &fe) {
			t.Errorf("Parse(%q) error is %T; want a *FieldError inside", tc.yaml, err)
		}
	}
}

func TestLoadReportsEveryUnknownKey(t *testing.T) {
	_, err := Parse([]byte("kafka: {a: 1}\nwindow: {b: 2}\nc: 3\n"), "x.yaml")
	for _, want := range []string{"x.yaml:1: kafka.a: unknown key", "x.yaml:2: window.b: unknown key", "x.yaml:3: c: unknown key"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse error = %v; want substring %q", err, want)
		}
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load("testdata/absent.yaml")
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load(%q) error = %v; want os.ErrNotExist", "testdata/absent.yaml", err)
	}
}

func TestFreeFormKeysKeepCase(t *testing.T) {
	c, err := Parse([]byte(`
input:
  attributes: {Amount: number, cur.rency: string}
alerts:
  per_query:
    Fraud.V2: {mode: count}
queries:
  inline:
    - {name: Fraud.V2, delta: 1m, nodes: {Acct: {}, Shop: {}}, edges: [Acct -> Shop]}
`), "case.yaml")
	if err != nil {
		t.Fatalf("Parse error = %v", err)
	}
	if _, ok := c.Input.Attributes["Amount"]; !ok {
		t.Errorf("attributes = %v; want the key Amount as written", c.Input.Attributes)
	}
	if _, ok := c.Input.Attributes["cur.rency"]; !ok {
		t.Errorf("attributes = %v; want the key cur.rency as written", c.Input.Attributes)
	}
	if got := c.Alerts.For("Fraud.V2").Mode; got != alerts.ModeCount {
		t.Errorf("Alerts.For(Fraud.V2).Mode = %q; want count", got)
	}
	err = c.Validate()
	if want := `case.yaml:3: input.attributes.cur.rency: attribute name "cur.rency" must match`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Validate() = %v; want substring %q", err, want)
	}
	qs, err := c.LoadQueries()
	if err != nil || len(qs) != 1 || qs[0].Nodes[0].Name != "Acct" {
		t.Errorf("LoadQueries() = %v, %v; want one query with node Acct", qs, err)
	}
}

// TestLoadEmbeddedBroker: kafka.embedded's dir is resolved against the
// config file's directory like the other paths; port is kept as given.
func TestLoadEmbeddedBroker(t *testing.T) {
	c, err := Load("testdata/embedded-dir.good.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := EmbeddedBroker{Dir: filepath.Join("testdata", "broker-data"), Port: 19092, RetentionBytes: 8 << 20}
	if c.Kafka.Embedded != want {
		t.Errorf("kafka.embedded = %+v; want %+v", c.Kafka.Embedded, want)
	}
	if d := DefaultConfig().Kafka.Embedded; d != (EmbeddedBroker{RetentionBytes: 8 << 20}) {
		t.Errorf("default kafka.embedded = %+v; want in memory on a free port, 8MiB per partition", d)
	}
}

// TestLoadEmbeddedRetention: kafka.embedded.retention_bytes takes a size
// with a unit, 0 for unlimited, from the file or the environment, and a
// bad value from the environment names the variable and the key.
func TestLoadEmbeddedRetention(t *testing.T) {
	c, err := Load("testdata/embedded-retention.good.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Kafka.Embedded.RetentionBytes; got != 4<<20 {
		t.Errorf("retention_bytes = %v; want 4MiB", got)
	}
	for env, want := range map[string]ByteSize{"0": 0, "1.5GiB": 3 << 29, "2000000": 2e6} {
		t.Setenv("MONITOR_KAFKA_EMBEDDED_RETENTION_BYTES", env)
		c, err := Load("testdata/minimal.good.yaml")
		if err == nil {
			_, _, err = c.Check()
		}
		if err != nil || c.Kafka.Embedded.RetentionBytes != want {
			t.Errorf("$MONITOR_KAFKA_EMBEDDED_RETENTION_BYTES=%s: retention_bytes %v, error %v; want %v", env, c.Kafka.Embedded.RetentionBytes, err, want)
		}
	}
	t.Setenv("MONITOR_KAFKA_EMBEDDED_RETENTION_BYTES", "100KB")
	c, err = Load("testdata/minimal.good.yaml")
	if err == nil {
		err = c.Validate()
	}
	want := "$MONITOR_KAFKA_EMBEDDED_RETENTION_BYTES: kafka.embedded.retention_bytes: 100000B is below the minimum of 1MiB"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("retention_bytes 100KB from the environment: error %v; want %q", err, want)
	}
}

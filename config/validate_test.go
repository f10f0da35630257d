package config

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/alerts"
	"github.com/motifwatch/motifwatch/internal/backend"
)

// TestTestdata loads every testdata/*.good.yaml, which must pass Load and
// Check with exactly the warnings its leading "# warning: <substring>"
// lines name (besides the password file's mode, which depends on the
// checkout: TestWarnings covers it), and every *.bad.yaml, which must fail
// with each error its leading "# error: <substring>" lines name.
func TestTestdata(t *testing.T) {
	good, _ := filepath.Glob("testdata/*.good.yaml")
	bad, _ := filepath.Glob("testdata/*.bad.yaml")
	if len(good) < 3 || len(bad) < 20 {
		t.Fatalf("found %d good and %d bad configs in testdata; want more", len(good), len(bad))
	}
	check := func(path string) error {
		c, err := Load(path)
		if err != nil {
			return err
		}
		_, _, err = c.Check()
		return err
	}
	for _, path := range good {
		if err := check(path); err != nil {
			t.Errorf("Load+Check(%q) error = %v; want nil", path, err)
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var wants []string
		for line := range strings.Lines(string(data)) {
			want, ok := strings.CutPrefix(strings.TrimSpace(line), "# warning: ")
			if !ok {
				break
			}
			wants = append(wants, want)
		}
		c, _ := Load(path)
		var got []string
		for _, w := range c.Warnings() {
			if !strings.Contains(w.Error(), "kafka.sasl.password: ") {
				got = append(got, w.Error())
			}
		}
		if len(got) != len(wants) {
			t.Errorf("Load(%q).Warnings() = %q; want %d: %q", path, got, len(wants), wants)
			continue
		}
		for i, want := range wants {
			if !strings.Contains(got[i], want) {
				t.Errorf("Load(%q).Warnings()[%d] = %q; want substring %q", path, i, got[i], want)
			}
		}
	}
	for _, path := range bad {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var wants []string
		for line := range strings.Lines(string(data)) {
			want, ok := strings.CutPrefix(strings.TrimSpace(line), "# error: ")
			if !ok {
				break
			}
			wants = append(wants, want)
		}
		if len(wants) == 0 {
			t.Fatalf("%s: line 1 must be \"# error: <expected substring>\"", path)
		}
		err = check(path)
		for _, want := range wants {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("Load+Check(%q) error = %v; want substring %q", path, err, want)
			}
		}
	}
}

// valid returns a config that passes Validate.
func valid() *Config {
	c := DefaultConfig()
	c.Queries.Inline = []map[string]any{{"name": "q", "delta": "1m", "edges": []any{"A -> B"}}}
	return c
}

func TestValidateRules(t *testing.T) {
	remote := func(c *Config) { c.Kafka.Brokers = []string{"kafka:9092"} }
	cases := []struct {
		name   string
		mutate func(*Config)
		want   string
	}{
		{"brokers empty", func(c *Config) { c.Kafka.Brokers = nil }, `kafka.brokers: empty (want embedded or a list of host:port)`},
		{"broker not host:port", func(c *Config) { c.Kafka.Brokers = []string{"kafka"} }, `kafka.brokers[0]: "kafka" is not host:port`},
		{"broker port", func(c *Config) { c.Kafka.Brokers = []string{"kafka:99999"} }, `kafka.brokers[0]: "kafka:99999" has port "99999" (want 1 to 65535)`},
		{"embedded among brokers", func(c *Config) { c.Kafka.Brokers = []string{"a:1", Embedded} }, `kafka.brokers[1]: embedded must be the only broker`},
		{"edge topic empty", func(c *Config) { c.Kafka.EdgeTopic = "" }, `kafka.edge_topic: must be set`},
		{"topic name", func(c *Config) { c.Kafka.AlertTopic = "alerts!" }, `kafka.alert_topic: "alerts!" is not a Kafka topic name`},
		{"edge topic = alert topic", func(c *Config) { c.Kafka.AlertTopic = "edges" }, `kafka.alert_topic: "edges" is also kafka.edge_topic`},
		{"dlq = alert topic", func(c *Config) { c.Kafka.DeadLetterTopic = "motif-alerts" }, `kafka.dead_letter_topic: "motif-alerts" is also kafka.alert_topic`},
		{"partitions", func(c *Config) { c.Kafka.Partitions = 0 }, `kafka.partitions: 0 must be positive`},
		{"group", func(c *Config) { c.Kafka.Group = "" }, `kafka.group: must be set`},
		{"client id", func(c *Config) { c.Kafka.ClientID = "" }, `kafka.client_id: must be set`},
		{"tls embedded", func(c *Config) { c.Kafka.TLS.Enabled = true }, `kafka.tls.enabled: true with kafka.brokers embedded`},
		{"tls settings while off", func(c *Config) { remote(c); c.Kafka.TLS.ServerName = "k" }, `kafka.tls.server_name: set but kafka.tls.enabled is false`},
		{"tls ca missing", func(c *Config) { remote(c); c.Kafka.TLS.Enabled = true; c.Kafka.TLS.CAFile = "/x" },
			`kafka.tls.ca_file: open /x: no such file`},
		{"tls ca not pem", func(c *Config) {
			remote(c)
			c.Kafka.TLS.Enabled = true
			c.Kafka.TLS.CAFile = "testdata/tls/not-pem.txt"
		},
			`kafka.tls.ca_file: testdata/tls/not-pem.txt holds no PEM certificate`},
		{"tls cert without key", func(c *Config) {
			remote(c)
			c.Kafka.TLS.Enabled = true
			c.Kafka.TLS.CertFile = "testdata/tls/client.pem"
		},
			`kafka.tls: cert_file and key_file go together`},
		{"tls key missing", func(c *Config) {
			remote(c)
			c.Kafka.TLS = TLS{Enabled: true, CertFile: "testdata/tls/client.pem", KeyFile: "/nope.pem"}
		}, `kafka.tls.key_file: stat /nope.pem: no such file`},
		{"tls key mismatch", func(c *Config) {
			remote(c)
			c.Kafka.TLS = TLS{Enabled: true, CertFile: "testdata/tls/client.pem", KeyFile: "testdata/tls/ca.pem"}
		}, `kafka.tls.cert_file: testdata/tls/client.pem with key_file testdata/tls/ca.pem:`},
		{"sasl mechanism", func(c *Config) { remote(c); c.Kafka.SASL.Mechanism = "md5" }, `kafka.sasl.mechanism: "md5" (want plain, scram-sha-256 or scram-sha-512)`},
		{"sasl credentials", func(c *Config) { remote(c); c.Kafka.SASL.Mechanism = SASLScramSHA256 }, `kafka.sasl: mechanism scram-sha-256 needs username and password`},
		{"sasl user without mechanism", func(c *Config) { remote(c); c.Kafka.SASL.Username = "u" }, `kafka.sasl: username or password given but no mechanism`},
		{"sasl embedded", func(c *Config) { c.Kafka.SASL = SASL{Mechanism: SASLPlain, Username: "u", Password: "p"} }, `kafka.sasl.mechanism: plain with kafka.brokers embedded`},
		{"sasl plain without tls", func(c *Config) {
			c.Kafka.Brokers = []string{"kafka:9092"}
			c.Kafka.SASL = SASL{Mechanism: SASLPlain, Username: "u", Password: "p"}
		}, `kafka.sasl.mechanism: plain without kafka.tls.enabled sends the password in clear text (enable kafka.tls, use scram-sha-256 or scram-sha-512, or set kafka.sasl.allow_insecure: true)`},
		{"embedded port negative", func(c *Config) { c.Kafka.Embedded.Port = -1 }, `kafka.embedded.port: -1 (want 1 to 65535, or 0 for a free port)`},
		{"format", func(c *Config) { c.Input.Format = "xml" }, `input.format: "xml" (want json or csv)`},
		{"time unit", func(c *Config) { c.Input.TimeUnit = 0 }, `input.time_unit: 0s must be positive`},
		{"timestamp unit", func(c *Config) { c.Input.Timestamp.Unit = "min" }, `input.timestamp.unit: "min" (want s, ms, us or ns)`},
		{"timestamp layout", func(c *Config) { c.Input.Timestamp.Layout = "yyyy-mm-dd" }, `input.timestamp.layout: "yyyy-mm-dd" has no Go reference-time element`},
		{"fields src", func(c *Config) { c.Input.Fields.Src = "" }, `input.fields.src: must be set`},
		{"fields clash", func(c *Config) { c.Input.Fields.Seq = "t" }, `input.fields.seq: "t" is also input.fields.time`},
		{"attribute type", func(c *Config) { c.Input.Attributes = map[string]string{"amount": "float"} }, `input.attributes.amount: type "float" (want number or string)`},
		{"attribute name", func(c *Config) { c.Input.Attributes = map[string]string{"1x": "number"} }, `input.attributes.1x: attribute name "1x" must match`},
		{"attribute is a field", func(c *Config) { c.Input.Attributes = map[string]string{"t": "number"} }, `input.attributes.t: "t" is also input.fields.time`},
		{"csv missing src", func(c *Config) { c.Input.Format = "csv"; c.Input.CSVColumns = []string{"dst", "t"} }, `input.csv_columns: missing the src column ("src", input.fields.src)`},
		{"csv missing renamed time", func(c *Config) { c.Input.Format = "csv"; c.Input.Fields.Time = "when" }, `input.csv_columns: missing the time column ("when", input.fields.time)`},
		{"csv duplicate", func(c *Config) { c.Input.Format = "csv"; c.Input.CSVColumns = []string{"src", "dst", "t", "src"} }, `input.csv_columns[3]: "src" is also input.csv_columns[0]`},
		{"max record bytes", func(c *Config) { c.Input.MaxRecordBytes = -1 }, `input.max_record_bytes: -1 must be positive`},
		{"lateness", func(c *Config) { c.Window.AllowedLateness = -time.Second }, `window.allowed_lateness: -1s must not be negative`},
		{"max jump", func(c *Config) { c.Window.MaxJump = -time.Minute }, `window.max_jump: -1m must not be negative (0 = off)`},
		{"max jump within lateness", func(c *Config) { c.Window.MaxJump = c.Window.AllowedLateness }, `window.max_jump: 5s must exceed window.allowed_lateness 5s (0 = off)`},
		{"max jump under a tick", func(c *Config) {
			c.Window.AllowedLateness, c.Window.MaxJump, c.Input.TimeUnit = 0, time.Millisecond, time.Second
		}, `window.max_jump: 1ms is less than one input.time_unit 1s (0 = off)`},
		{"jump confirmations", func(c *Config) { c.Window.JumpConfirmations = 1 }, `window.jump_confirmations: 1 must be at least 2`},
		{"batch size", func(c *Config) { c.Window.BatchSize = 0 }, `window.batch_size: 0 must be positive`},
		{"batch wait", func(c *Config) { c.Window.BatchMaxWait = 0 }, `window.batch_max_wait: 0s must be positive`},
		{"idle timeout", func(c *Config) { c.Window.IdleTimeout = -time.Minute }, `window.idle_timeout: -1m must be positive`},
		{"held matches", func(c *Config) { c.Window.MaxHeldMatches = 0 }, `window.max_held_matches: 0 must be positive`},
		{"backend", func(c *Config) { c.Engine.Backend = "tpu" }, `engine.backend: "tpu" (want cpu, gpu or auto)`},
		{"workers", func(c *Config) { c.Engine.Workers = -2 }, `engine.workers: -2 must not be negative`},
		{"devices on cpu", func(c *Config) { c.Engine.Devices = []int{0} }, `engine.devices: [0] given but engine.backend is cpu`},
		{"device negative", func(c *Config) { c.Engine.Backend = backend.GPU; c.Engine.Devices = []int{-1} }, `engine.devices[0]: -1 must not be negative`},
		{"gpu chunks", func(c *Config) { c.Engine.GPU.Chunks = -1 }, `engine.gpu.chunks: -1 must not be negative`},
		{"gpu partition edges", func(c *Config) { c.Engine.GPU.PartitionEdges = -5 }, `engine.gpu.partition_edges: -5 must not be negative`},
		{"gpu memory fraction 0", func(c *Config) { c.Engine.GPU.MemoryFraction = 0 }, `engine.gpu.memory_fraction: 0 must be in (0, 1]`},
		{"gpu memory fraction over 1", func(c *Config) { c.Engine.GPU.MemoryFraction = 1.5 }, `engine.gpu.memory_fraction: 1.5 must be in (0, 1]`},
		{"no queries", func(c *Config) { c.Queries.Inline = nil }, `queries: no queries (give queries.files or queries.inline)`},
		{"query file twice", func(c *Config) { c.Queries.Files = []string{"a.yaml", "a.yaml"} }, `queries.files[1]: "a.yaml" is also queries.files[0]`},
		{"reload interval", func(c *Config) { c.Queries.ReloadInterval = 0 }, `queries.reload_interval: 0s must be positive`},
		{"sink", func(c *Config) { c.Alerts.Sink = "file" }, `alerts.sink: "file" (want kafka or stdout)`},
		{"status interval", func(c *Config) { c.Log.StatusInterval = -time.Second }, `log.status_interval: -1s must not be negative`},
		{"mode", func(c *Config) { c.Alerts.Mode = "sample" }, `alerts.mode: "sample" (want enumerate or count)`},
		{"count interval", func(c *Config) { c.Alerts.CountInterval = 0 }, `alerts.count_interval: 0s must be positive`},
		{"rate limit", func(c *Config) { c.Alerts.RateLimit = -1 }, `alerts.rate_limit: -1 must not be negative (0 = unlimited)`},
		{"rate burst", func(c *Config) { c.Alerts.RateBurst = 0 }, `alerts.rate_burst: 0 with rate_limit 1000: no alert could pass`},
		{"per-query mode", func(c *Config) { c.Alerts.PerQuery = map[string]QueryAlerts{"q": {Mode: "all"}} }, `alerts.per_query.q.mode: "all" (want enumerate or count)`},
		{"per-query burst", func(c *Config) { n := -5; c.Alerts.PerQuery = map[string]QueryAlerts{"q": {RateBurst: &n}} }, `alerts.per_query.q.rate_burst: -5 must not be negative`},
		{"listen", func(c *Config) { c.Metrics.Listen = "nope" }, `metrics.listen: "nope" is not host:port`},
		{"demo with real brokers", func(c *Config) { remote(c); on := true; c.Demo = &on }, `demo: true needs kafka.brokers: embedded`},
		{"shutdown timeout", func(c *Config) { c.ShutdownTimeout = 0 }, `shutdown_timeout: 0s must be positive`},
		{"log level", func(c *Config) { c.Log.Level = "trace" }, `log.level: "trace" (want debug, info, warn or error)`},
		{"log format", func(c *Config) { c.Log.Format = "xml" }, `log.format: "xml" (want text or json)`},
	}
	for _, tc := range cases {
		c := valid()
		tc.mutate(c)
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Validate() = %v; want substring %q", tc.name, err, tc.want)
			continue
		}
		var fe *FieldError
		if !errors.As(err, &fe) {
			t.Errorf("%s: Validate() error is %T; want *FieldError inside", tc.name, err)
		}
		if n := strings.Count(err.Error(), "\n") + 1; n != 1 {
			t.Errorf("%s: Validate() reported %d errors; want only the one broken rule:\n%v", tc.name, n, err)
		}
	}
}

// TestValidateAccepts covers the passing side of the rules: values at
// their limits and the alternatives each rule allows.
func TestValidateAccepts(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(*Config)
	}{
		{"defaults", func(*Config) {}},
		{"brokers", func(c *Config) { c.Kafka.Brokers = []string{"kafka-1:9092", "10.0.0.1:9093", "[::1]:9094"} }},
		{"tls with files", func(c *Config) {
			c.Kafka.Brokers = []string{"kafka:9093"}
			c.Kafka.TLS = TLS{Enabled: true, CAFile: "testdata/tls/ca.pem", CertFile: "testdata/tls/client.pem", KeyFile: "testdata/tls/client-key.pem", ServerName: "kafka"}
		}},
		{"tls system roots", func(c *Config) { c.Kafka.Brokers = []string{"kafka:9093"}; c.Kafka.TLS.Enabled = true }},
		{"sasl plain over tls", func(c *Config) {
			c.Kafka.Brokers = []string{"kafka:9093"}
			c.Kafka.TLS.Enabled = true
			c.Kafka.SASL = SASL{Mechanism: SASLPlain, Username: "u", Password: "p"}
		}},
		{"sasl plain allowed without tls", func(c *Config) {
			c.Kafka.Brokers = []string{"kafka:9092"}
			c.Kafka.SASL = SASL{Mechanism: SASLPlain, Username: "u", Password: "p", AllowInsecure: true}
		}},
		{"embedded broker dir and port", func(c *Config) { c.Kafka.Embedded = EmbeddedBroker{Dir: "/tmp/mw", Port: 19092} }},
		{"sasl scram-sha-512", func(c *Config) {
			c.Kafka.Brokers = []string{"kafka:9092"}
			c.Kafka.SASL = SASL{Mechanism: SASLScramSHA512, Username: "u", Password: "p"}
		}},
		{"csv", func(c *Config) {
			c.Input.Format = "csv"
			c.Input.Fields = Fields{Src: "a", Dst: "b", Time: "when", Seq: "n"}
			c.Input.CSVColumns = []string{"when", "-", "a", "b", "amount", "", "n"}
			c.Input.Attributes = map[string]string{"amount": "number"}
		}},
		{"csv columns ignored for json", func(c *Config) { c.Input.CSVColumns = nil }},
		{"timestamp units", func(c *Config) { c.Input.Timestamp = Timestamp{Unit: "us", Layout: "RFC3339"} }},
		{"go layout", func(c *Config) { c.Input.Timestamp.Layout = "2006-01-02 15:04:05" }},
		{"zero lateness", func(c *Config) { c.Window.AllowedLateness = 0 }},
		{"gpu devices", func(c *Config) { c.Engine.Backend = backend.GPU; c.Engine.Devices = []int{0, 3} }},
		{"gpu logical partitions", func(c *Config) { c.Engine.Backend = backend.GPU; c.Engine.Devices = []int{0, 0} }},
		{"gpu tuning", func(c *Config) {
			c.Engine.Backend = backend.GPU
			c.Engine.GPU = GPU{Chunks: 8, PartitionEdges: 1 << 20, MemoryFraction: 1, Count3OnDevice: true, CountSmallOnHost: true}
		}},
		{"auto", func(c *Config) { c.Engine.Backend = backend.Auto; c.Engine.Workers = 16 }},
		{"unlimited alerts", func(c *Config) { c.Alerts.RateLimit, c.Alerts.RateBurst = 0, 0 }},
		{"count mode to stdout", func(c *Config) { c.Alerts.Mode, c.Alerts.Sink = alerts.ModeCount, SinkStdout }},
		{"per-query", func(c *Config) {
			zero := 0.0
			c.Alerts.PerQuery = map[string]QueryAlerts{"q": {Mode: alerts.ModeCount, RateLimit: &zero}}
		}},
		{"listen any port", func(c *Config) { c.Metrics.Listen = "127.0.0.1:0" }},
		{"listen all interfaces", func(c *Config) { c.Metrics.Listen = ":9464" }},
		{"demo off with embedded", func(c *Config) { off := false; c.Demo = &off }},
		{"query files", func(c *Config) { c.Queries.Files = []string{"testdata/queries/fraud.yaml"}; c.Queries.Inline = nil }},
		{"log", func(c *Config) { c.Log = Log{Level: "warn", Format: "json"} }},
	}
	for _, tc := range cases {
		c := valid()
		tc.mutate(c)
		if err := c.Validate(); err != nil {
			t.Errorf("%s: Validate() = %v; want nil", tc.name, err)
		}
	}
}

func TestValidateCollectsAllErrors(t *testing.T) {
	c := valid()
	c.Input.Format = "xml"
	c.Window.BatchSize = 0
	c.Engine.Backend = "tpu"
	err := c.Validate()
	for _, want := range []string{`input.format: "xml"`, "window.batch_size: 0", `engine.backend: "tpu"`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v; want substring %q", err, want)
		}
	}
}

func TestTLSConfig(t *testing.T) {
	k := Kafka{TLS: TLS{Enabled: true, CAFile: "testdata/tls/ca.pem", CertFile: "testdata/tls/client.pem", KeyFile: "testdata/tls/client-key.pem", ServerName: "kafka"}}
	cfg, err := k.TLSConfig()
	if err != nil || cfg.RootCAs == nil || len(cfg.Certificates) != 1 || cfg.ServerName != "kafka" {
		t.Errorf("TLSConfig() = %+v, %v; want roots, one certificate, server name kafka", cfg, err)
	}
	if cfg, err := (&Kafka{}).TLSConfig(); cfg != nil || err != nil {
		t.Errorf("TLSConfig() with TLS off = %v, %v; want nil, nil", cfg, err)
	}
}

// TestValidTopicMatchesRegexp: validTopic is the regexp it replaced,
// ^[a-zA-Z0-9._-]{1,249}$ minus "." and "..", on edge cases and random
// strings over a small alphabet.
func TestValidTopicMatchesRegexp(t *testing.T) {
	re := regexp.MustCompile(`^[a-zA-Z0-9._-]{1,249}$`)
	want := func(s string) bool { return re.MatchString(s) && s != "." && s != ".." }
	cases := []string{"", ".", "..", "...", "a", "edges", "a.b_c-D9", "a b", "a/b", "é", strings.Repeat("x", 249), strings.Repeat("x", 250), "a\n"}
	r := rand.New(rand.NewPCG(1, 2))
	const alphabet = "aZ09._-/ \x00\xff"
	for range 2000 {
		b := make([]byte, r.IntN(6))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		if got := validTopic(s); got != want(s) {
			t.Errorf("validTopic(%q) = %v; want %v", s, got, want(s))
		}
	}
}

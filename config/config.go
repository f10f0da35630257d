package config

import (
	"fmt"
	"strconv"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/motifwatch/motifwatch/alerts"
	"github.com/motifwatch/motifwatch/internal/backend"
)

// Config is the daemon's configuration. Its YAML keys are the snake_case
// names in the mapstructure tags; every key is optional (DefaultConfig
// gives the rest).
type Config struct {
	Kafka   Kafka   `mapstructure:"kafka"`
	Input   Input   `mapstructure:"input"`
	Window  Window  `mapstructure:"window"`
	Engine  Engine  `mapstructure:"engine"`
	Queries Queries `mapstructure:"queries"`
	Alerts  Alerts  `mapstructure:"alerts"`
	Metrics Metrics `mapstructure:"metrics"`
	// Health sets when the daemon calls itself degraded (/readyz).
	Health Health `mapstructure:"health"`
	// GPM is the periodic static-GPM snapshot job (off by default).
	GPM GPM `mapstructure:"gpm"`
	// Demo starts the built-in synthetic edge producer. nil: on when
	// Kafka.Brokers is embedded, off otherwise (see DemoEnabled).
	Demo *bool `mapstructure:"demo"`
	// ShutdownTimeout bounds a graceful shutdown: finishing the batch in
	// hand, flushing alerts and committing offsets.
	ShutdownTimeout time.Duration `mapstructure:"shutdown_timeout"`
	Log             Log           `mapstructure:"log"`

	// Source is the file the configuration was loaded from ("" for
	// defaults and environment only). Relative paths in the file have been
	// resolved against its directory.
	Source string `mapstructure:"-"`

	// origins locates each field's value (file line or environment
	// variable) for Validate's errors; nil for a Config built in code.
	origins map[string]origin
	// inline holds the YAML nodes of queries.inline when loaded from a
	// file, for error lines; aligned with Queries.Inline.
	inline []*yaml.Node
	// queryLocs maps each query name to where it is defined ("file:line"),
	// as of the last parse of the queries, for warnings found after it.
	queryLocs map[string]string
}

// Kafka.OffsetReset values.
const (
	OffsetEarliest = "earliest"
	OffsetLatest   = "latest"
)

// Embedded is the Kafka.Brokers value that starts an in-process broker.
const Embedded = "embedded"

// Kafka is where edges come from and alerts go.
type Kafka struct {
	// Brokers lists host:port seed brokers, or is ["embedded"] for an
	// in-process Kafka-protocol broker on 127.0.0.1 (the default). The YAML
	// and MONITOR_KAFKA_BROKERS also take one string, "a:9092,b:9092".
	Brokers []string `mapstructure:"brokers"`
	// EdgeTopic holds the input edges.
	EdgeTopic string `mapstructure:"edge_topic"`
	// Partitions is the partition count of topics the daemon creates (all
	// of them in embedded mode; missing ones otherwise).
	Partitions int `mapstructure:"partitions"`
	// Group is the consumer group of the edge reader.
	Group string `mapstructure:"group"`
	// SessionTimeout is how long the group coordinator waits for a
	// member's heartbeat before giving its partitions to others: after a
	// crash, the restarted daemon gets its partitions back this long after
	// the old process died. Heartbeats go every third of it (at most 3s).
	// The broker bounds it (Kafka's group.min/max.session.timeout.ms,
	// 6s and 30m by default).
	SessionTimeout time.Duration `mapstructure:"session_timeout"`
	// MetadataRefresh is how often the daemon reads the edge topic's
	// metadata: partitions added are read (from their earliest offset)
	// within about one refresh, partitions gone are no longer committed
	// to, and partitions without a reader are reported.
	MetadataRefresh time.Duration `mapstructure:"metadata_refresh"`
	// OffsetReset is where reading resumes when the offset to read from is
	// outside the partition's log (Kafka's OFFSET_OUT_OF_RANGE: a topic
	// deleted and created again, a truncated log, a restored broker, or
	// records deleted by retention before they were read): OffsetEarliest
	// or OffsetLatest. It does not apply to partitions without a committed
	// offset (a first start, partitions added): those are read from their
	// earliest offset.
	OffsetReset string `mapstructure:"offset_reset"`
	// AlertTopic receives alert records.
	AlertTopic string `mapstructure:"alert_topic"`
	// DeadLetterTopic receives late and undecodable records.
	DeadLetterTopic string `mapstructure:"dead_letter_topic"`
	ClientID        string `mapstructure:"client_id"`
	TLS             TLS    `mapstructure:"tls"`
	SASL            SASL   `mapstructure:"sasl"`
	// ScaleOut lets several instances share the work of one group.
	ScaleOut ScaleOut `mapstructure:"scale_out"`
	// Embedded configures the in-process broker of Brokers: [embedded].
	Embedded EmbeddedBroker `mapstructure:"embedded"`

	// DeadLetterMaxBytes caps a dead-letter record (key, value and
	// headers): a larger one is written with a prefix of its value, its
	// size and SHA-256 in headers. Below the broker's message.max.bytes.
	DeadLetterMaxBytes ByteSize `mapstructure:"dead_letter_max_bytes"`
}

// EmbeddedBroker configures the in-process broker. By default it keeps
// its logs in memory (lost at exit), up to RetentionBytes per partition,
// and listens on a free port.
type EmbeddedBroker struct {
	// Dir, if set, is where the broker keeps its topics, records and
	// committed offsets, reloaded at the next start: a restart resumes
	// where it stopped, as with a cluster.
	Dir string `mapstructure:"dir"`
	// Port is its TCP port on 127.0.0.1; 0 picks a free one.
	Port int `mapstructure:"port"`
	// RetentionBytes bounds each partition of the broker's topics: every
	// 10 s the oldest records of a partition holding more are dropped,
	// which bounds the broker's memory (or Dir); 0 keeps everything. A
	// restart from Dir rebuilds the window only from what was kept.
	RetentionBytes ByteSize `mapstructure:"retention_bytes"`
}

// ScaleOut configures several instances cooperating through the consumer
// group Kafka.Group: each reads every partition of the edge topic (its
// window needs every edge) and mines and alerts only the matches whose
// last edge comes from the partitions the group assigned to it. Every
// instance of the group must enable it.
type ScaleOut struct {
	Enabled bool `mapstructure:"enabled"`
	// HeartbeatInterval is how often an instance checks in with the group
	// (and how soon it learns of a rebalance); SessionTimeout is how long
	// the group waits for a silent instance before giving its partitions
	// to the others; RebalanceTimeout is how long a rebalance waits for
	// instances to hand their partitions over.
	HeartbeatInterval time.Duration `mapstructure:"heartbeat_interval"`
	SessionTimeout    time.Duration `mapstructure:"session_timeout"`
	RebalanceTimeout  time.Duration `mapstructure:"rebalance_timeout"`
}

// TLS configures TLS to the brokers; see Kafka.TLSConfig.
type TLS struct {
	Enabled bool `mapstructure:"enabled"`
	// CAFile is a PEM bundle of CAs to trust instead of the system's.
	CAFile string `mapstructure:"ca_file"`
	// CertFile and KeyFile are the client certificate and key (PEM), both
	// or neither.
	CertFile           string `mapstructure:"cert_file"`
	KeyFile            string `mapstructure:"key_file"`
	InsecureSkipVerify bool   `mapstructure:"insecure_skip_verify"`
	ServerName         string `mapstructure:"server_name"`
}

// SASL mechanisms.
const (
	SASLPlain       = "plain"
	SASLScramSHA256 = "scram-sha-256"
	SASLScramSHA512 = "scram-sha-512"
)

// SASL configures SASL authentication; Mechanism "" means none.
type SASL struct {
	Mechanism string `mapstructure:"mechanism"`
	Username  string `mapstructure:"username"`
	Password  string `mapstructure:"password"`
	// AllowInsecure accepts mechanism plain without kafka.tls: the
	// password then crosses the network in clear text. Refused otherwise.
	AllowInsecure bool `mapstructure:"allow_insecure"`
}

// Input describes how records decode into edges.
type Input struct {
	// Format is "json" (one object per record) or "csv" (one line per record).
	Format string `mapstructure:"format"`
	// TimeUnit is the duration of one window tick: edge times are converted
	// to ticks of it, and so are query durations ("10m").
	TimeUnit  time.Duration `mapstructure:"time_unit"`
	Timestamp Timestamp     `mapstructure:"timestamp"`
	Fields    Fields        `mapstructure:"fields"`
	// CSVColumns names the columns of csv records in order: the names of
	// Fields (src, dst, t, ...), attribute names, or "-" (or "") to skip a
	// column.
	CSVColumns []string `mapstructure:"csv_columns"`
	// Attributes are the edge attributes kept in the window: name → "number"
	// or "string". Attributes that queries use but that are not declared
	// here are added with an inferred type (see Schema). Set in the file
	// only (no environment override): names are case-sensitive.
	Attributes map[string]string `mapstructure:"-" yaml:"attributes"`
	// MaxRecordBytes is the largest record decoded; larger ones go to the
	// dead-letter topic.
	MaxRecordBytes int `mapstructure:"max_record_bytes"`
}

// Timestamp says how edge times are written.
type Timestamp struct {
	// Unit of numeric timestamps: s, ms, us (or µs) or ns.
	Unit string `mapstructure:"unit"`
	// Layout of string timestamps: "" or "rfc3339" for RFC 3339
	// (fractional seconds allowed), or a Go layout such as
	// "2006-01-02 15:04:05" (UTC unless it has a zone). Strings holding a
	// number are read in Unit either way (ingest.DecodeOptions).
	Layout string `mapstructure:"layout"`
}

// UnitDuration returns the duration of one numeric timestamp unit.
func (t *Timestamp) UnitDuration() (time.Duration, bool) {
	switch t.Unit {
	case "s":
		return time.Second, true
	case "ms":
		return time.Millisecond, true
	case "us", "µs":
		return time.Microsecond, true
	case "ns":
		return time.Nanosecond, true
	}
	return 0, false
}

// Fields names the record fields (JSON keys, CSV column names) of an edge.
type Fields struct {
	Src  string `mapstructure:"src"`
	Dst  string `mapstructure:"dst"`
	Time string `mapstructure:"time"`
	// Seq orders edges with equal times; "" orders them by arrival, as
	// does a record without the field.
	Seq string `mapstructure:"seq"`
	// SrcLabel and DstLabel hold optional node labels ("" = none).
	SrcLabel string `mapstructure:"src_label"`
	DstLabel string `mapstructure:"dst_label"`
}

// Window configures the reorder buffer, batching and held matches.
type Window struct {
	// AllowedLateness is how long the reorder buffer waits for stragglers:
	// the watermark trails the newest edge time by this much (and one
	// tick: edges tied with the newest time are never late, even at 0).
	AllowedLateness time.Duration `mapstructure:"allowed_lateness"`
	// BatchSize and BatchMaxWait close a batch: whichever comes first.
	BatchSize    int           `mapstructure:"batch_size"`
	BatchMaxWait time.Duration `mapstructure:"batch_max_wait"`
	// IdleTimeout: input silent this long releases everything buffered.
	IdleTimeout time.Duration `mapstructure:"idle_timeout"`
	// MaxHeldMatches bounds the matches held open by anti-edge intervals.
	MaxHeldMatches int `mapstructure:"max_held_matches"`

	// Caps against hostile input and load (0 turns one off). Each cap
	// that acts is counted in motifwatch_cap_actions_total{cap} and
	// logged (at most once per cap and query every 10 s); see
	// stream.Options and README "Caps" for the exact semantics.

	// MaxBytes caps the window's host memory (motifwatch_window_bytes):
	// a batch that leaves the window above it evicts the oldest edges
	// early, down to 3/4 of it. Matches that would have needed them are
	// missed; held matches that need them are reported provisional.
	MaxBytes ByteSize `mapstructure:"max_bytes"`
	// MaxNodes caps the distinct node ids live in the window: an edge
	// that would take it past the cap goes to the dead-letter topic
	// (reason node_cap).
	MaxNodes int `mapstructure:"max_nodes"`
	// MaxMatchesPerBatch caps the matches one query enumerates in one
	// batch: at the cap, mining that query stops for the batch. Count-mode
	// queries without anti-edges are tallied, not enumerated, and not
	// capped.
	MaxMatchesPerBatch int `mapstructure:"max_matches_per_batch"`
	// MaxMineSteps bounds one query's mining of one batch in engine steps
	// (root and candidate edges tried: motif.Request.Budget); past it the
	// query stops for the batch, reported like MaxMatchesPerBatch. Every
	// mode is bounded, count mode included. The count depends on the data
	// only, so the cap acts the same on every run and machine.
	MaxMineSteps int64 `mapstructure:"max_mine_steps"`
	// MaxMineTime is a wall-clock backstop for the same: one query's
	// mining of one batch stops after this long.
	MaxMineTime time.Duration `mapstructure:"max_mine_time"`
	// MaxFuture refuses edges dated more than this after both the wall
	// clock and the newest edge taken so far (to the dead-letter topic,
	// reason future), so one bad timestamp cannot carry the watermark
	// into the future and make every later edge late.
	MaxFuture time.Duration `mapstructure:"max_future"`
	// MaxJump makes event time robust to outliers: an edge dated more
	// than this after its partition's time (or the time every partition
	// has reached) does not move the watermark; it is held until
	// JumpConfirmations edges in a row, spread over at least MaxJump,
	// confirm the jump, or dead-lettered (reason future) once its
	// partition has gone on at its old time for MaxJump. 0 turns the rule
	// off: every edge moves its partition's time. docs/EVENT-TIME.md.
	MaxJump time.Duration `mapstructure:"max_jump"`
	// JumpConfirmations is the number of edges in a row, all ahead, that
	// confirm a jump (at least 2).
	JumpConfirmations int `mapstructure:"jump_confirmations"`
	// MaxBuffered caps the edges the reorder buffer holds while the
	// watermark has not passed them: past it the watermark is raised
	// early (a burst at one timestamp, a partition whose time stands
	// still), and later edges at or below it are late, dead-lettered.
	MaxBuffered int `mapstructure:"max_buffered"`
	// MaxBufferedBytes caps the bytes held before the window: a quarter
	// for records fetched and not yet taken in (the fetcher waits), the
	// rest for the reorder buffer's decoded edges (past it the watermark
	// is raised early, as with MaxBuffered). A record's raw value is kept
	// only while it is small (for a dead letter after the buffer).
	MaxBufferedBytes ByteSize `mapstructure:"max_buffered_bytes"`
}

// Engine selects the miner.
type Engine struct {
	// Backend is cpu, gpu or auto (gpu when a device is usable, else cpu).
	Backend backend.Backend `mapstructure:"backend"`
	// Workers is the CPU miner's goroutines; 0 = one per CPU.
	Workers int `mapstructure:"workers"`
	// Devices lists GPU ordinals; empty = all visible devices.
	Devices []int `mapstructure:"devices"`
	// GPU holds the GPU engine's few tuning options (gpu.Options); the
	// kernel's thresholds are measured rules, not configuration.
	GPU GPU `mapstructure:"gpu"`
}

// GPU tunes the GPU engine (gpu.Options, field by field).
type GPU struct {
	// Chunks is how many root chunks a mining call is cut into per device;
	// 0 = 4 with several devices, 1 with one.
	Chunks int `mapstructure:"chunks"`
	// PartitionEdges, if positive, mines in time partitions of at most
	// this many root edges; 0 = only when the window would not fit a
	// device (MemoryFraction).
	PartitionEdges int64 `mapstructure:"partition_edges"`
	// MemoryFraction is the share of a device's memory the window mirror
	// may take before mining switches to time partitions.
	MemoryFraction float64 `mapstructure:"memory_fraction"`
	// Count3OnDevice counts the SNAP shapes over the device's window
	// mirror instead of on the host's cores (gpu.Options.Count3Device).
	Count3OnDevice bool `mapstructure:"count3_on_device"`
	// CountSmallOnHost counts the two-edge and two-node four-edge count
	// queries on the host's cores instead of mining them on the device.
	CountSmallOnHost bool `mapstructure:"count_small_on_host"`
}

// Queries names the motif queries to run.
type Queries struct {
	// Files are query YAML files (motif.LoadQueries format), re-read every
	// ReloadInterval while the daemon runs.
	Files []string `mapstructure:"files"`
	// Inline holds query mappings, each in the format of one entry of a
	// query file's queries: list. Set in the file only.
	Inline []map[string]any `mapstructure:"-" yaml:"inline"`
	// ReloadInterval is how often Files are checked for changes.
	ReloadInterval time.Duration `mapstructure:"reload_interval"`
}

// Alert sinks.
const (
	SinkKafka  = "kafka"
	SinkStdout = "stdout"
)

// Alerts configures alert records.
type Alerts struct {
	// Sink is kafka (Kafka.AlertTopic) or stdout.
	Sink string `mapstructure:"sink"`
	// Mode is the default per-query mode: enumerate (one record per match)
	// or count (a record per CountInterval).
	Mode          alerts.Mode   `mapstructure:"mode"`
	CountInterval time.Duration `mapstructure:"count_interval"`
	// RateLimit is match alerts per second per query (0 = unlimited), with
	// bursts of RateBurst; the overflow is counted and summarised.
	RateLimit float64 `mapstructure:"rate_limit"`
	RateBurst int     `mapstructure:"rate_burst"`
	// PerQuery overrides Mode, RateLimit and RateBurst by query name. Set in
	// the file only: query names are case-sensitive and may hold dots.
	PerQuery map[string]QueryAlerts `mapstructure:"-" yaml:"per_query"`
	// Instance names this daemon in every record (source.instance) and
	// in Alertmanager's instance label; "" means the host name (a pod's
	// name in Kubernetes).
	Instance string `mapstructure:"instance"`
	// Alertmanager is the optional second output: alerts posted to an
	// Alertmanager's v2 API once the alert topic has them.
	Alertmanager Alertmanager `mapstructure:"alertmanager"`
}

// Alertmanager configures the Alertmanager notifier
// (alerts/alertmanager). It never holds the alert topic back: records
// wait in a queue of at most QueueBytes, and the oldest are dropped
// (counted and logged) when an Alertmanager that does not answer lets it
// fill.
type Alertmanager struct {
	// URL is the Alertmanager's base URL (http://alertmanager:9093);
	// "" turns the notifier off.
	URL string `mapstructure:"url"`
	// Timeout bounds one POST.
	Timeout time.Duration `mapstructure:"timeout"`
	// QueueBytes bounds the records waiting for Alertmanager (their
	// encoded payload).
	QueueBytes ByteSize `mapstructure:"queue_bytes"`
	// EndsAfter is how long after its detection an alert stays firing in
	// Alertmanager (its endsAt): a match is an event, not a state that
	// ends by itself.
	EndsAfter time.Duration `mapstructure:"ends_after"`
}

// QueryAlerts overrides the alert settings of one query; nil and "" fields
// inherit Alerts'.
type QueryAlerts struct {
	Mode      alerts.Mode `yaml:"mode"`
	RateLimit *float64    `yaml:"rate_limit"`
	RateBurst *int        `yaml:"rate_burst"`
}

// AlertPolicy is the resolved alert settings of one query.
type AlertPolicy struct {
	Mode      alerts.Mode
	RateLimit float64 // per second; 0 = unlimited
	RateBurst int
}

// For returns the alert settings of the named query: Alerts' defaults with
// its PerQuery overrides applied.
func (a *Alerts) For(query string) AlertPolicy {
	p := AlertPolicy{Mode: a.Mode, RateLimit: a.RateLimit, RateBurst: a.RateBurst}
	if o, ok := a.PerQuery[query]; ok {
		if o.Mode != "" {
			p.Mode = o.Mode
		}
		if o.RateLimit != nil {
			p.RateLimit = *o.RateLimit
		}
		if o.RateBurst != nil {
			p.RateBurst = *o.RateBurst
		}
	}
	return p
}

// Metrics configures the HTTP endpoint (/metrics, /healthz, /readyz,
// the status page). Its connections are capped and timed out so that no
// number of HTTP clients can take the descriptors Kafka needs.
type Metrics struct {
	// Listen is host:port; port 0 picks a free port.
	Listen string `mapstructure:"listen"`
	// MaxConnections caps the open HTTP connections; more wait in the
	// kernel's listen backlog (holding no descriptor of the process) until
	// one closes, and idle keep-alive connections are closed to make room.
	// The daemon lowers it to half its open-files limit if higher.
	MaxConnections int `mapstructure:"max_connections"`
	// ReadHeaderTimeout bounds the wait for a request, headers included
	// (the endpoints take no body), from the connection's start or its
	// first byte after an idle spell.
	ReadHeaderTimeout time.Duration `mapstructure:"read_header_timeout"`
	// WriteTimeout bounds serving one request, from the end of its
	// headers to the last byte of the answer (a scrape of /metrics).
	WriteTimeout time.Duration `mapstructure:"write_timeout"`
	// IdleTimeout closes a keep-alive connection idle this long.
	IdleTimeout time.Duration `mapstructure:"idle_timeout"`
	// ExternalURL is the status page's address as people reach it (a
	// load balancer's, an ingress'), put in every alert record
	// (status_url) and as Alertmanager's generatorURL; "" means
	// http://<host name>:<listen port>/.
	ExternalURL string `mapstructure:"external_url"`
}

// Health sets the thresholds of the degraded conditions: the daemon
// consumes, but cannot see part of its input (docs/OPERATIONS.md).
type Health struct {
	// MaxRejectedRatio: more than this share of the last minute's records
	// (at least 10 of them) dead-lettered or late is input_rejected.
	MaxRejectedRatio float64 `mapstructure:"max_rejected_ratio"`
	// MaxWatermarkDelay: while records arrive, an event-time watermark
	// further than this behind the wall clock is watermark_delay; 0 turns
	// the check off (a feed whose times are not wall-clock times).
	MaxWatermarkDelay time.Duration `mapstructure:"max_watermark_delay"`
}

// Default HTTP server limits (Metrics).
const (
	DefaultHTTPMaxConnections    = 256
	DefaultHTTPReadHeaderTimeout = 5 * time.Second
	DefaultHTTPWriteTimeout      = time.Minute
	DefaultHTTPIdleTimeout       = time.Minute
)

// Log configures the daemon's slog output.
type Log struct {
	Level  string `mapstructure:"level"`  // debug, info, warn, error
	Format string `mapstructure:"format"` // text or json
	// StatusInterval is how often the daemon logs a status line (edges/s,
	// lag, watermark, window edges, matches per query); 0 turns it off.
	StatusInterval time.Duration `mapstructure:"status_interval"`
}

// DefaultConfig returns the configuration used for every key a file and
// the environment leave out: an embedded broker with the demo feed, JSON
// input, the CPU engine, no queries.
func DefaultConfig() *Config {
	return &Config{
		Kafka: Kafka{
			Brokers:         []string{Embedded},
			EdgeTopic:       "edges",
			Partitions:      4,
			Group:           "motifwatch",
			AlertTopic:      "motif-alerts",
			DeadLetterTopic: "edges-dlq",
			ClientID:        "motifwatch",
			SessionTimeout:  30 * time.Second,
			MetadataRefresh: 10 * time.Second,
			OffsetReset:     OffsetEarliest,
			ScaleOut:        ScaleOut{HeartbeatInterval: 3 * time.Second, SessionTimeout: 30 * time.Second, RebalanceTimeout: 30 * time.Second},

			DeadLetterMaxBytes: DefaultDeadLetterMaxBytes,
			Embedded:           EmbeddedBroker{RetentionBytes: DefaultEmbeddedRetentionBytes},
		},
		Input: Input{
			Format:         "json",
			TimeUnit:       time.Second,
			Timestamp:      Timestamp{Unit: "s"},
			Fields:         Fields{Src: "src", Dst: "dst", Time: "t", Seq: "seq"},
			CSVColumns:     []string{"src", "dst", "t"},
			Attributes:     map[string]string{},
			MaxRecordBytes: 1 << 20,
		},
		Window: Window{
			AllowedLateness: 5 * time.Second,
			BatchSize:       10000,
			BatchMaxWait:    200 * time.Millisecond,
			IdleTimeout:     2 * time.Second,
			MaxHeldMatches:  100000,

			MaxBytes:           2 << 30,
			MaxNodes:           10_000_000,
			MaxMatchesPerBatch: 100_000,
			MaxMineSteps:       250_000_000,
			MaxMineTime:        10 * time.Second,
			MaxFuture:          time.Hour,
			MaxJump:            10 * time.Minute,
			JumpConfirmations:  3,
			MaxBuffered:        1_000_000,
			MaxBufferedBytes:   256 << 20,
		},
		Engine:  Engine{Backend: backend.CPU, Devices: []int{}, GPU: GPU{MemoryFraction: 0.3}},
		Queries: Queries{Files: []string{}, ReloadInterval: 2 * time.Second},
		Alerts: Alerts{
			Sink:          SinkKafka,
			Mode:          alerts.ModeEnumerate,
			CountInterval: 10 * time.Second,
			RateLimit:     1000,
			RateBurst:     2000,
			PerQuery:      map[string]QueryAlerts{},
			Alertmanager:  Alertmanager{Timeout: 10 * time.Second, QueueBytes: 16 << 20, EndsAfter: time.Hour},
		},
		Metrics: Metrics{Listen: "127.0.0.1:9464", MaxConnections: DefaultHTTPMaxConnections, ReadHeaderTimeout: DefaultHTTPReadHeaderTimeout,
			WriteTimeout: DefaultHTTPWriteTimeout, IdleTimeout: DefaultHTTPIdleTimeout},
		Health:          Health{MaxRejectedRatio: 0.5, MaxWatermarkDelay: 15 * time.Minute},
		GPM:             DefaultGPM(),
		ShutdownTimeout: 15 * time.Second,
		Log:             Log{Level: "info", Format: "text", StatusInterval: 30 * time.Second},
	}
}

// Embedded reports whether the daemon runs its own in-process broker.
func (c *Config) Embedded() bool {
	return len(c.Kafka.Brokers) == 1 && c.Kafka.Brokers[0] == Embedded
}

// DemoEnabled reports whether the built-in demo producer runs: Demo if
// set, else whether the broker is embedded.
func (c *Config) DemoEnabled() bool {
	if c.Demo != nil {
		return *c.Demo
	}
	return c.Embedded()
}

// origin is where a field's value came from.
type origin struct {
	line int    // line in Source; 0 if unknown
	env  string // the environment variable that set it, if any
}

// FieldError is one invalid configuration value: the field's path in the
// YAML ("window.allowed_lateness"), what is wrong with it, and where the
// value came from when known.
type FieldError struct {
	File  string // the config file; "" if none
	Line  int    // 1-based line in File; 0 if unknown
	Env   string // the environment variable that set the value, if any
	Field string
	Msg   string
}

func (e *FieldError) Error() string {
	var where string
	switch {
	case e.Env != "":
		where = "$" + e.Env + ": "
	case e.File != "" && e.Line > 0:
		where = e.File + ":" + strconv.Itoa(e.Line) + ": "
	case e.File != "":
		where = e.File + ": "
	}
	if e.Field == "" {
		return where + e.Msg
	}
	return where + e.Field + ": " + e.Msg
}

// FieldError returns an error about field, located by where its value
// came from (file:line or environment variable) as Validate's are: for
// the checks that the packages reading a Config make of the values they
// own (daemon.Check: gpm.app and gpm.k against the gpm engine).
func (c *Config) FieldError(field, format string, args ...any) *FieldError {
	return c.fieldErr(field, format, args...)
}

// fieldErr returns a *FieldError for field, located by c's origins.
func (c *Config) fieldErr(field, format string, args ...any) *FieldError {
	e := &FieldError{File: c.Source, Field: field, Msg: fmt.Sprintf(format, args...)}
	o := c.originOf(field)
	e.Line, e.Env = o.line, o.env
	return e
}

// originOf returns the origin of field or of its nearest recorded parent
// ("kafka.sasl" for "kafka.sasl.mechanism" when only the section was
// written).
func (c *Config) originOf(field string) origin {
	for f := field; f != ""; f = parentField(f) {
		if o, ok := c.origins[f]; ok {
			return o
		}
	}
	return origin{}
}

// parentField strips the last element of a field path: "a.b[2]" → "a.b",
// "a.b" → "a", "a" → "".
func parentField(f string) string {
	for i := len(f) - 1; i >= 0; i-- {
		if f[i] == '.' || f[i] == '[' {
			return f[:i]
		}
	}
	return ""
}

// Bounds of kafka.dead_letter_max_bytes (DefaultDeadLetterMaxBytes and
// MinDeadLetterMaxBytes of kafka, checked equal by a test; config
// does not import it). The maximum keeps a capped record within one
// produce request of a kafka-go writer sized for it.
const (
	DefaultDeadLetterMaxBytes = 256 << 10
	MinDeadLetterMaxBytes     = 4 << 10
	MaxDeadLetterMaxBytes     = 64 << 20
)

// MaxMetadataRefresh bounds kafka.metadata_refresh: partitions added to
// the edge topic go unread for up to about one refresh.
const MaxMetadataRefresh = 5 * time.Minute

// DefaultEmbeddedRetentionBytes is kafka.embedded.retention_bytes' default,
// per partition: the default four partitions of the edge topic keep up to
// 32MiB of edges, so the demo's memory levels off while a restart from
// kafka.embedded.dir still finds the window's history. MinEmbeddedRetentionBytes is the smallest
// non-zero value, below which the cleaner could drop edges before the
// daemon has read them.
const (
	DefaultEmbeddedRetentionBytes = 8 << 20
	MinEmbeddedRetentionBytes     = 1 << 20
)

package config

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/motifwatch/motifwatch/alerts"
	"github.com/motifwatch/motifwatch/internal/backend"
)

// Validate checks every rule and reports all that c breaks, joined; each is
// a *FieldError naming the field, the value and the limit, e.g.
//
//	config.yaml:12: window.allowed_lateness: -1s must not be negative
//	$MONITOR_INPUT_FORMAT: input.format: "xml" (want json or csv)
//
// It reads the TLS files (they must exist and parse) but not the query
// files: LoadQueries reports those.
func (c *Config) Validate() error {
	v := &validator{c: c}
	v.kafka()
	v.input()
	v.window()
	v.engine()
	v.queries()
	v.alerts()
	v.gpm()
	if err := checkHostPort(c.Metrics.Listen, true); err != nil {
		v.fail("metrics.listen", "%q %v", c.Metrics.Listen, err)
	}
	if n := c.Metrics.MaxConnections; n < 1 {
		v.fail("metrics.max_connections", "%d must be at least 1 (HTTP connections are always capped, so that they cannot take the descriptors Kafka needs)", n)
	}
	v.positive("metrics.read_header_timeout", c.Metrics.ReadHeaderTimeout)
	v.positive("metrics.write_timeout", c.Metrics.WriteTimeout)
	v.positive("metrics.idle_timeout", c.Metrics.IdleTimeout)
	v.httpURL("metrics.external_url", c.Metrics.ExternalURL)
	if c.Demo != nil && *c.Demo && !c.Embedded() {
		v.fail("demo", "true needs kafka.brokers: embedded (the demo feed would write into topic %q of a real cluster)", c.Kafka.EdgeTopic)
	}
	v.positive("shutdown_timeout", c.ShutdownTimeout)
	if r := c.Health.MaxRejectedRatio; !(r > 0 && r <= 1) {
		v.fail("health.max_rejected_ratio", "%v must be in (0, 1] (a share of the last minute's records)", r)
	}
	if c.Health.MaxWatermarkDelay < 0 {
		v.fail("health.max_watermark_delay", "%s must not be negative (0 turns the check off)", durText(c.Health.MaxWatermarkDelay))
	}
	v.oneOf("log.level", c.Log.Level, "debug", "info", "warn", "error")
	v.oneOf("log.format", c.Log.Format, "text", "json")
	if c.Log.StatusInterval < 0 {
		v.fail("log.status_interval", "%s must not be negative (0 turns the status line off)", durText(c.Log.StatusInterval))
	}
	return errors.Join(v.errs...)
}

type validator struct {
	c    *Config
	errs []error
}

func (v *validator) fail(field, format string, args ...any) {
	v.errs = append(v.errs, v.c.fieldErr(field, format, args...))
}

// oneOf checks that s is one of want: `"xml" (want json or csv)`.
func (v *validator) oneOf(field, s string, want ...string) {
	if !slices.Contains(want, s) {
		v.fail(field, "%q (want %s)", s, orList(want))
	}
}

func (v *validator) positive(field string, d time.Duration) {
	if d <= 0 {
		v.fail(field, "%s must be positive", durText(d))
	}
}

func (v *validator) positiveInt(field string, n int) {
	if n <= 0 {
		v.fail(field, "%d must be positive", n)
	}
}

// orList renders "a, b or c".
func orList(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// durText renders d as written in YAML: "10m" rather than "10m0s".
func durText(d time.Duration) string {
	s := d.String()
	if t, ok := strings.CutSuffix(s, "m0s"); ok {
		s = t + "m"
	}
	if t, ok := strings.CutSuffix(s, "h0m"); ok {
		s = t + "h"
	}
	return s
}

// validTopic reports whether s is a Kafka topic name: 1 to 249 of
// [a-zA-Z0-9._-], not "." or "..". (A loop, not a regexp: the compiled
// {1,249} repetition cost ~1 ms of every command's start.)
func validTopic(s string) bool {
	if len(s) == 0 || len(s) > 249 || s == "." || s == ".." {
		return false
	}
	for i := range len(s) {
		switch c := s[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '.', c == '_', c == '-':
		default:
			return false
		}
	}
	return true
}

func (v *validator) kafka() {
	k := &v.c.Kafka
	embedded := v.c.Embedded()
	switch {
	case len(k.Brokers) == 0:
		v.fail("kafka.brokers", "empty (want embedded or a list of host:port)")
	case !embedded:
		for i, b := range k.Brokers {
			field := fmt.Sprintf("kafka.brokers[%d]", i)
			if b == Embedded {
				v.fail(field, "embedded must be the only broker")
			} else if err := checkHostPort(b, false); err != nil {
				v.fail(field, "%q %v", b, err)
			}
		}
	}
	topics := []struct{ field, name string }{
		{"kafka.edge_topic", k.EdgeTopic},
		{"kafka.alert_topic", k.AlertTopic},
		{"kafka.dead_letter_topic", k.DeadLetterTopic},
	}
	switch d := k.DeadLetterMaxBytes; {
	case d < MinDeadLetterMaxBytes:
		v.fail("kafka.dead_letter_max_bytes", "%s is below the minimum of %s", d, ByteSize(MinDeadLetterMaxBytes))
	case d > MaxDeadLetterMaxBytes:
		v.fail("kafka.dead_letter_max_bytes", "%s is above the maximum of %s", d, ByteSize(MaxDeadLetterMaxBytes))
	}
	for i, t := range topics {
		switch {
		case t.name == "":
			v.fail(t.field, "must be set")
			continue
		case !validTopic(t.name):
			v.fail(t.field, "%q is not a Kafka topic name (1 to 249 of a-z A-Z 0-9 . _ -)", t.name)
		}
		for _, u := range topics[:i] {
			if u.name == t.name {
				v.fail(t.field, "%q is also %s: each topic has one role", t.name, u.field)
			}
		}
	}
	v.positiveInt("kafka.partitions", k.Partitions)
	if k.Group == "" {
		v.fail("kafka.group", "must be set")
	}
	if k.ClientID == "" {
		v.fail("kafka.client_id", "must be set")
	}
	v.positive("kafka.session_timeout", k.SessionTimeout)
	v.positive("kafka.metadata_refresh", k.MetadataRefresh)
	if k.MetadataRefresh > MaxMetadataRefresh {
		v.fail("kafka.metadata_refresh", "%s is above the maximum of %s (partitions added would go unread that long)", durText(k.MetadataRefresh), durText(MaxMetadataRefresh))
	}
	if k.OffsetReset != OffsetEarliest && k.OffsetReset != OffsetLatest {
		v.fail("kafka.offset_reset", "%q (want earliest or latest)", k.OffsetReset)
	}
	v.tls(embedded)
	v.sasl(embedded)
	v.scaleOut(embedded)
	v.embeddedBroker(embedded)
}

func (v *validator) scaleOut(embedded bool) {
	so := &v.c.Kafka.ScaleOut
	if !so.Enabled {
		return
	}
	if embedded {
		v.fail("kafka.scale_out.enabled", "true with kafka.brokers embedded: every instance would start a broker of its own (want the brokers the instances share)")
	}
	v.positive("kafka.scale_out.heartbeat_interval", so.HeartbeatInterval)
	v.positive("kafka.scale_out.session_timeout", so.SessionTimeout)
	v.positive("kafka.scale_out.rebalance_timeout", so.RebalanceTimeout)
	if so.HeartbeatInterval > 0 && so.HeartbeatInterval >= so.SessionTimeout {
		v.fail("kafka.scale_out.heartbeat_interval", "%s is not below session_timeout %s", durText(so.HeartbeatInterval), durText(so.SessionTimeout))
	}
}

func (v *validator) tls(embedded bool) {
	t := &v.c.Kafka.TLS
	if !t.Enabled {
		set := []struct {
			field string
			set   bool
		}{
			{"ca_file", t.CAFile != ""}, {"cert_file", t.CertFile != ""}, {"key_file", t.KeyFile != ""},
			{"insecure_skip_verify", t.InsecureSkipVerify}, {"server_name", t.ServerName != ""},
		}
		for _, s := range set {
			if s.set {
				v.fail("kafka.tls."+s.field, "set but kafka.tls.enabled is false")
				return
			}
		}
		return
	}
	if embedded {
		v.fail("kafka.tls.enabled", "true with kafka.brokers embedded: the embedded broker speaks plaintext")
		return
	}
	if (t.CertFile == "") != (t.KeyFile == "") {
		v.fail("kafka.tls", "cert_file and key_file go together (cert_file %q, key_file %q)", t.CertFile, t.KeyFile)
	}
	if t.CAFile != "" {
		if _, err := loadCAs(t.CAFile); err != nil {
			v.fail("kafka.tls.ca_file", "%v", err)
		}
	}
	if t.CertFile != "" && t.KeyFile != "" {
		for _, f := range [][2]string{{"kafka.tls.cert_file", t.CertFile}, {"kafka.tls.key_file", t.KeyFile}} {
			if _, err := os.Stat(f[1]); err != nil {
				v.fail(f[0], "%v", err)
				return
			}
		}
		if _, err := tls.LoadX509KeyPair(t.CertFile, t.KeyFile); err != nil {
			v.fail("kafka.tls.cert_file", "%s with key_file %s: %v", t.CertFile, t.KeyFile, err)
		}
	}
}

func loadCAs(path string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s holds no PEM certificate", path)
	}
	return pool, nil
}

// TLSConfig returns the client TLS configuration of Kafka.TLS, or nil when
// TLS is off.
func (k *Kafka) TLSConfig() (*tls.Config, error) {
	t := &k.TLS
	if !t.Enabled {
		return nil, nil
	}
	cfg := &tls.Config{
		MinVersion:         tls.VersionTLS12,
		ServerName:         t.ServerName,
		InsecureSkipVerify: t.InsecureSkipVerify, // explicitly configured
	}
	if t.CAFile != "" {
		pool, err := loadCAs(t.CAFile)
		if err != nil {
			return nil, fmt.Errorf("kafka.tls.ca_file: %w", err)
		}
		cfg.RootCAs = pool
	}
	if t.CertFile != "" || t.KeyFile != "" {
		cert, err := tls.LoadX509KeyPair(t.CertFile, t.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("kafka.tls.cert_file %s, key_file %s: %w", t.CertFile, t.KeyFile, err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}

func (v *validator) sasl(embedded bool) {
	s := &v.c.Kafka.SASL
	switch s.Mechanism {
	case "":
		if s.Username != "" || s.Password != "" {
			v.fail("kafka.sasl", "username or password given but no mechanism (want plain, scram-sha-256 or scram-sha-512)")
		}
		return
	case SASLPlain, SASLScramSHA256, SASLScramSHA512:
	default:
		v.fail("kafka.sasl.mechanism", "%q (want plain, scram-sha-256 or scram-sha-512)", s.Mechanism)
		return
	}
	if embedded {
		v.fail("kafka.sasl.mechanism", "%s with kafka.brokers embedded: the embedded broker has no users", s.Mechanism)
	}
	if s.Username == "" || s.Password == "" {
		v.fail("kafka.sasl", "mechanism %s needs username and password", s.Mechanism)
	}
	if s.Mechanism == SASLPlain && !v.c.Kafka.TLS.Enabled && !s.AllowInsecure && !embedded {
		v.fail("kafka.sasl.mechanism", "plain without kafka.tls.enabled sends the password in clear text (enable kafka.tls, use scram-sha-256 or scram-sha-512, or set kafka.sasl.allow_insecure: true)")
	}
}

// embeddedBroker checks kafka.embedded: only with the embedded broker.
func (v *validator) embeddedBroker(embedded bool) {
	e := &v.c.Kafka.Embedded
	if e.Port < 0 || e.Port > 65535 {
		v.fail("kafka.embedded.port", "%d (want 1 to 65535, or 0 for a free port)", e.Port)
	}
	switch r := e.RetentionBytes; {
	case r < 0:
		v.fail("kafka.embedded.retention_bytes", "%s must not be negative (0 = keep everything)", r)
	case r > 0 && r < MinEmbeddedRetentionBytes:
		v.fail("kafka.embedded.retention_bytes", "%s is below the minimum of %s (0 = keep everything)", r, ByteSize(MinEmbeddedRetentionBytes))
	}
	if embedded {
		return
	}
	// The default cannot be told from a value in the file; any other is
	// a mistake worth naming.
	if r := e.RetentionBytes; r != DefaultEmbeddedRetentionBytes && r >= 0 {
		v.fail("kafka.embedded.retention_bytes", "%s set but kafka.brokers is not embedded", r)
	}
	if e.Dir != "" {
		v.fail("kafka.embedded.dir", "%q set but kafka.brokers is not embedded", e.Dir)
	}
	if e.Port != 0 {
		v.fail("kafka.embedded.port", "%d set but kafka.brokers is not embedded", e.Port)
	}
}

// checkHostPort checks "host:port"; the port may be 0 (pick one) only
// where anyPort.
func checkHostPort(s string, anyPort bool) error {
	_, port, err := net.SplitHostPort(s)
	if err != nil {
		return errors.New("is not host:port")
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 0 || n > 65535 || n == 0 && !anyPort {
		return fmt.Errorf("has port %q (want 1 to 65535)", port)
	}
	return nil
}

// attrNameRE: attribute names are words the query language can read.
// Compiled on first use, not at every command's start.
var attrNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

func (v *validator) input() {
	in := &v.c.Input
	v.oneOf("input.format", in.Format, "json", "csv")
	v.positive("input.time_unit", in.TimeUnit)
	if _, ok := in.Timestamp.UnitDuration(); !ok {
		v.fail("input.timestamp.unit", "%q (want s, ms, us or ns)", in.Timestamp.Unit)
	}
	switch l := in.Timestamp.Layout; l {
	case "", "rfc3339", "RFC3339":
	default:
		// A layout without any reference-time element formats to itself.
		if time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC).Format(l) == l {
			v.fail("input.timestamp.layout", "%q has no Go reference-time element (want rfc3339 or a layout like 2006-01-02 15:04:05)", l)
		}
	}

	// Field names: src, dst and time required; all distinct.
	f := &in.Fields
	fields := []struct{ key, name string }{
		{"src", f.Src}, {"dst", f.Dst}, {"time", f.Time},
		{"seq", f.Seq}, {"src_label", f.SrcLabel}, {"dst_label", f.DstLabel},
	}
	byName := map[string]string{}
	for i, fd := range fields {
		field := "input.fields." + fd.key
		if fd.name == "" {
			if i < 3 {
				v.fail(field, "must be set")
			}
			continue
		}
		if other, dup := byName[fd.name]; dup {
			v.fail(field, "%q is also input.fields.%s", fd.name, other)
			continue
		}
		byName[fd.name] = fd.key
	}

	names := make([]string, 0, len(in.Attributes))
	for name := range in.Attributes {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		field := "input.attributes." + name
		if !attrNameRE().MatchString(name) {
			v.fail(field, "attribute name %q must match [A-Za-z_][A-Za-z0-9_]*", name)
		}
		if typ := in.Attributes[name]; typ != "number" && typ != "string" {
			v.fail(field, "type %q (want number or string)", typ)
		}
		if key, clash := byName[name]; clash {
			v.fail(field, "%q is also input.fields.%s", name, key)
		}
	}

	if in.Format == "csv" {
		v.csvColumns(fields)
	}
	v.positiveInt("input.max_record_bytes", in.MaxRecordBytes)
}

func (v *validator) csvColumns(fields []struct{ key, name string }) {
	cols := v.c.Input.CSVColumns
	seen := map[string]int{}
	for i, col := range cols {
		field := fmt.Sprintf("input.csv_columns[%d]", i)
		if col == "" || col == "-" { // a skipped column
			continue
		}
		if j, dup := seen[col]; dup {
			v.fail(field, "%q is also input.csv_columns[%d]", col, j)
			continue
		}
		seen[col] = i
	}
	for _, fd := range fields[:3] {
		if _, ok := seen[fd.name]; fd.name != "" && !ok {
			v.fail("input.csv_columns", "missing the %s column (%q, input.fields.%s) in %v", fd.key, fd.name, fd.key, cols)
		}
	}
}

func (v *validator) window() {
	w := &v.c.Window
	if w.AllowedLateness < 0 {
		v.fail("window.allowed_lateness", "%s must not be negative", durText(w.AllowedLateness))
	}
	v.positiveInt("window.batch_size", w.BatchSize)
	v.positive("window.batch_max_wait", w.BatchMaxWait)
	v.positive("window.idle_timeout", w.IdleTimeout)
	v.positiveInt("window.max_held_matches", w.MaxHeldMatches)
	v.caps()
}

// minMaxBytes is the smallest window.max_bytes: below it the cap would
// evict nearly every edge of every batch.
const minMaxBytes = 1 << 20

func (v *validator) caps() {
	w := &v.c.Window
	switch {
	case w.MaxBytes < 0:
		v.fail("window.max_bytes", "%s must not be negative (0 = no cap)", w.MaxBytes)
	case w.MaxBytes > 0 && w.MaxBytes < minMaxBytes:
		v.fail("window.max_bytes", "%s is below the minimum of %s (0 = no cap)", w.MaxBytes, ByteSize(minMaxBytes))
	}
	if w.MaxNodes < 0 {
		v.fail("window.max_nodes", "%d must not be negative (0 = no cap)", w.MaxNodes)
	}
	if w.MaxBuffered < 0 {
		v.fail("window.max_buffered", "%d must not be negative (0 = no cap)", w.MaxBuffered)
	}
	switch {
	case w.MaxBufferedBytes < 0:
		v.fail("window.max_buffered_bytes", "%s must not be negative", w.MaxBufferedBytes)
	case w.MaxBufferedBytes > 0 && w.MaxBufferedBytes < minMaxBytes:
		v.fail("window.max_buffered_bytes", "%s is below the minimum of %s (0 = no cap on the reorder buffer)", w.MaxBufferedBytes, ByteSize(minMaxBytes))
	}
	if w.MaxMatchesPerBatch < 0 {
		v.fail("window.max_matches_per_batch", "%d must not be negative (0 = no cap)", w.MaxMatchesPerBatch)
	}
	if w.MaxMineSteps < 0 {
		v.fail("window.max_mine_steps", "%d must not be negative (0 = no cap)", w.MaxMineSteps)
	}
	if w.MaxMineTime < 0 {
		v.fail("window.max_mine_time", "%s must not be negative (0 = no cap)", durText(w.MaxMineTime))
	}
	switch {
	case w.MaxFuture < 0:
		v.fail("window.max_future", "%s must not be negative (0 = no check)", durText(w.MaxFuture))
	case w.MaxFuture > 0 && w.MaxFuture <= w.AllowedLateness:
		// In a replay that runs ahead of the wall clock, the newest edges
		// lead the watermark by the lateness: a smaller max_future would
		// refuse ordinary edges.
		v.fail("window.max_future", "%s must exceed window.allowed_lateness %s (0 = no check)", durText(w.MaxFuture), durText(w.AllowedLateness))
	}
	v.jumps()
}

// jumps checks the rule against outliers in event time.
func (v *validator) jumps() {
	w := &v.c.Window
	switch {
	case w.MaxJump < 0:
		v.fail("window.max_jump", "%s must not be negative (0 = off)", durText(w.MaxJump))
	case w.MaxJump == 0:
		return
	case w.MaxJump <= w.AllowedLateness:
		// Edges within the lateness of a held one must catch it up (the
		// rule's guarantee that an orderly stream loses nothing), and a
		// partition's disorder must not read as a jump.
		v.fail("window.max_jump", "%s must exceed window.allowed_lateness %s (0 = off)", durText(w.MaxJump), durText(w.AllowedLateness))
	case v.c.Input.TimeUnit > 0 && w.MaxJump < v.c.Input.TimeUnit:
		v.fail("window.max_jump", "%s is less than one input.time_unit %s (0 = off)", durText(w.MaxJump), durText(v.c.Input.TimeUnit))
	}
	if w.JumpConfirmations < 2 {
		v.fail("window.jump_confirmations", "%d must be at least 2 (a record cannot confirm itself)", w.JumpConfirmations)
	}
}

func (v *validator) engine() {
	e := &v.c.Engine
	v.oneOf("engine.backend", string(e.Backend), backend.Names()...)
	if e.Workers < 0 {
		v.fail("engine.workers", "%d must not be negative (0 = one per CPU)", e.Workers)
	}
	if len(e.Devices) > 0 && e.Backend == backend.CPU {
		v.fail("engine.devices", "%v given but engine.backend is cpu", e.Devices)
	}
	// An ordinal may repeat: each entry is a logical partition with its
	// own context (how multi-GPU runs are tested on one device).
	for i, d := range e.Devices {
		if d < 0 {
			v.fail(fmt.Sprintf("engine.devices[%d]", i), "%d must not be negative", d)
		}
	}
	if e.GPU.Chunks < 0 {
		v.fail("engine.gpu.chunks", "%d must not be negative (0 = 4 per device with several devices, 1 with one)", e.GPU.Chunks)
	}
	if e.GPU.PartitionEdges < 0 {
		v.fail("engine.gpu.partition_edges", "%d must not be negative (0 = partitions only when the window does not fit)", e.GPU.PartitionEdges)
	}
	if f := e.GPU.MemoryFraction; !(f > 0 && f <= 1) {
		v.fail("engine.gpu.memory_fraction", "%v must be in (0, 1]", f)
	}
}

func (v *validator) queries() {
	q := &v.c.Queries
	if len(q.Files) == 0 && len(q.Inline) == 0 {
		v.fail("queries", "no queries (give queries.files or queries.inline)")
	}
	seen := map[string]int{}
	for i, f := range q.Files {
		field := fmt.Sprintf("queries.files[%d]", i)
		if f == "" {
			v.fail(field, "empty file name")
			continue
		}
		if j, dup := seen[f]; dup {
			v.fail(field, "%q is also queries.files[%d]", f, j)
		}
		seen[f] = i
	}
	v.positive("queries.reload_interval", q.ReloadInterval)
}

func (v *validator) alerts() {
	a := &v.c.Alerts
	v.oneOf("alerts.sink", a.Sink, SinkKafka, SinkStdout)
	v.oneOf("alerts.mode", string(a.Mode), alerts.ModeNames()...)
	v.positive("alerts.count_interval", a.CountInterval)
	v.rate("alerts", a.RateLimit, a.RateBurst)
	names := make([]string, 0, len(a.PerQuery))
	for name := range a.PerQuery {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		field := "alerts.per_query." + name
		o := a.PerQuery[name]
		if o.Mode != "" {
			v.oneOf(field+".mode", string(o.Mode), alerts.ModeNames()...)
		}
		if o.RateLimit != nil || o.RateBurst != nil {
			p := a.For(name)
			v.rate(field, p.RateLimit, p.RateBurst)
		}
	}
	am := &a.Alertmanager
	v.httpURL("alerts.alertmanager.url", am.URL)
	v.positive("alerts.alertmanager.timeout", am.Timeout)
	v.positive("alerts.alertmanager.ends_after", am.EndsAfter)
	if am.QueueBytes < MinAlertmanagerQueueBytes {
		v.fail("alerts.alertmanager.queue_bytes", "%v is below %v: a queue must hold a batch of alerts while Alertmanager is briefly away",
			am.QueueBytes, ByteSize(MinAlertmanagerQueueBytes))
	}
}

// MinAlertmanagerQueueBytes is the smallest alerts.alertmanager.queue_bytes.
const MinAlertmanagerQueueBytes = 64 << 10

// httpURL checks an optional absolute http(s) URL.
func (v *validator) httpURL(field, s string) {
	if s == "" {
		return
	}
	u, err := url.Parse(s)
	switch {
	case err != nil:
		v.fail(field, "%q: %v", s, err)
	case u.Scheme != "http" && u.Scheme != "https" || u.Host == "":
		v.fail(field, "%q: want an absolute http:// or https:// URL", s)
	}
}

// rate checks a rate limit and its burst.
func (v *validator) rate(field string, limit float64, burst int) {
	switch {
	case limit < 0 || limit != limit: // NaN
		v.fail(field+".rate_limit", "%v must not be negative (0 = unlimited)", limit)
	case burst < 0:
		v.fail(field+".rate_burst", "%d must not be negative", burst)
	case limit > 0 && burst == 0:
		v.fail(field+".rate_burst", "0 with rate_limit %v: no alert could pass (want at least 1)", limit)
	}
}

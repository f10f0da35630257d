package kafka

import (
	"context"
	"errors"
	"fmt"
	iofs "io/fs"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/motifwatch/motifwatch/internal/ratelog"
)

// EmbeddedOptions configures StartEmbedded. The zero value starts one
// broker on a free port of 127.0.0.1 with no topics.
type EmbeddedOptions struct {
	// Port is the first broker's TCP port on 127.0.0.1; 0 picks a free
	// one. With Brokers > 1 the others listen on Port+1, Port+2, …, or on
	// free ports when Port is 0.
	Port int
	// Brokers is the number of brokers in the cluster (default 1). Every
	// broker runs in this process; more than one exercises leader routing
	// and the controller (admin requests must reach the controller, which
	// kafka.Client does and a plain kafka.Conn may not).
	Brokers int
	// Topics are created before StartEmbedded returns; topics that already
	// exist (reloaded from DataDir) are left as they are. A replication
	// factor above Brokers is an error.
	Topics []TopicSpec
	// DefaultPartitions is the partition count of auto-created topics
	// (AutoCreateTopics) and of TopicSpecs with Partitions 0 (default 1).
	DefaultPartitions int
	// AutoCreateTopics lets a metadata request that asks for it create a
	// missing topic (kafka-go's Writer.AllowAutoTopicCreation). Off by
	// default, like a careful production cluster: a typo in a topic name
	// then fails loudly instead of creating a topic nobody reads.
	AutoCreateTopics bool
	// DataDir, if set, makes the broker persist its logs, topics and
	// committed offsets there and reload them on the next start, so an
	// embedded daemon can be restarted without losing its input.
	DataDir string
	// RetentionBytes bounds each partition's log: a cleaner pass drops the
	// oldest record batches of a partition holding more (0: keep
	// everything). Without it the broker's memory (or DataDir) grows with
	// every record produced. It is the broker-wide log.retention.bytes, so
	// it applies to every topic, also those reloaded from DataDir, unless
	// a topic sets retention.bytes itself.
	RetentionBytes int64
	// CleanInterval is how often the cleaner runs when RetentionBytes is
	// set (default 10 s). Between passes a partition may exceed
	// RetentionBytes by what was produced meanwhile.
	CleanInterval time.Duration
	// Logger receives the broker's warnings and errors (its request log at
	// debug level); nil discards them.
	Logger *slog.Logger
	// OnStorageError, if set, is called with every failure to write
	// DataDir (a full disk, a read-only or removed directory), from the
	// broker's goroutine: it must return quickly. Logger gets one ERROR
	// line for them every 10 s.
	OnStorageError func(error)
}

// DefaultCleanInterval is EmbeddedOptions.CleanInterval's default.
const DefaultCleanInterval = 10 * time.Second

// Embedded is an in-process Kafka-protocol broker (a kfake cluster)
// listening on 127.0.0.1. Clients reach it over TCP through Addrs, like
// any cluster. It is meant for development, tests and demos: it keeps its
// logs in memory unless DataDir is set, and it is not tuned for volume.
type Embedded struct {
	cluster *kfake.Cluster
	addrs   []string
	once    sync.Once
	// stopClean ends the cleaner goroutine; cleaned is closed when it has.
	stopClean, cleaned chan struct{}
}

// StartEmbedded starts an embedded broker, creates opts.Topics and waits
// until the broker answers metadata requests over TCP. Close it when done.
func StartEmbedded(ctx context.Context, opts EmbeddedOptions) (*Embedded, error) {
	n := opts.Brokers
	switch {
	case n == 0:
		n = 1
	case n < 0:
		return nil, fmt.Errorf("embedded broker: brokers %d must be positive", n)
	}
	if opts.Port < 0 || opts.Port > 65535-(n-1) {
		return nil, fmt.Errorf("embedded broker: port %d must lie in [0, %d] for %d brokers", opts.Port, 65535-(n-1), n)
	}
	parts := opts.DefaultPartitions
	switch {
	case parts == 0:
		parts = 1
	case parts < 0:
		return nil, fmt.Errorf("embedded broker: default partitions %d must be positive", parts)
	}
	if opts.RetentionBytes < 0 {
		return nil, fmt.Errorf("embedded broker: retention %d bytes must not be negative (0: keep everything)", opts.RetentionBytes)
	}
	if opts.CleanInterval < 0 {
		return nil, fmt.Errorf("embedded broker: clean interval %v must not be negative (0: the default %v)", opts.CleanInterval, DefaultCleanInterval)
	}
	if err := checkTopics(opts.Topics); err != nil {
		return nil, err
	}
	for _, t := range opts.Topics {
		if t.ReplicationFactor > n {
			return nil, fmt.Errorf("embedded broker: topic %q: replication factor %d exceeds the %d embedded brokers", t.Name, t.ReplicationFactor, n)
		}
	}

	kopts := []kfake.Opt{
		kfake.NumBrokers(n),
		kfake.DefaultNumPartitions(parts),
		kfake.ClusterID("motifwatch-embedded"),
		kfake.WithLogger(&brokerLog{l: opts.Logger, dir: opts.DataDir, onStorage: opts.OnStorageError, limit: ratelog.New(storageLogEvery, nil)}),
		kfake.BrokerConfigs(retentionConfigs(opts.RetentionBytes)),
	}
	if opts.Port != 0 {
		ports := make([]int, n)
		for i := range ports {
			ports[i] = opts.Port + i
		}
		kopts = append(kopts, kfake.Ports(ports...))
	}
	if opts.AutoCreateTopics {
		kopts = append(kopts, kfake.AllowAutoTopicCreation())
	}
	if opts.DataDir != "" {
		kopts = append(kopts, kfake.DataDir(opts.DataDir))
	}
	c, err := kfake.NewCluster(kopts...)
	if err != nil {
		return nil, fmt.Errorf("embedded broker: starting: %w", err)
	}
	e := &Embedded{cluster: c, addrs: c.ListenAddrs()}
	if opts.RetentionBytes > 0 {
		interval := opts.CleanInterval
		if interval == 0 {
			interval = DefaultCleanInterval
		}
		e.stopClean, e.cleaned = make(chan struct{}), make(chan struct{})
		go e.clean(interval)
	}
	if err := WaitReady(ctx, e.addrs, nil); err != nil {
		e.Close()
		return nil, err
	}
	// Topics go through the wire protocol like any client's, so the
	// replication factor and configs are honoured and checked the same way.
	if err := EnsureTopics(ctx, e.addrs, nil, opts.Topics); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

// Addrs returns the brokers' host:port addresses, to use as bootstrap
// brokers (any one of them is enough).
func (e *Embedded) Addrs() []string { return slices.Clone(e.addrs) }

// Cluster returns the underlying kfake cluster, for tests that inject
// faults, move partition leaders or inspect groups and partitions.
func (e *Embedded) Cluster() *kfake.Cluster { return e.cluster }

// ApplyRetention runs a cleaner pass now: every partition holding more
// than its retention drops its oldest record batches.
func (e *Embedded) ApplyRetention() { e.cluster.ApplyRetention() }

// Close stops the broker; clients connected to it see their connections
// fail. It is safe to call more than once.
func (e *Embedded) Close() {
	e.once.Do(func() {
		if e.stopClean != nil {
			// The cleaner must be done first: a cluster request after
			// Close would block forever.
			close(e.stopClean)
			<-e.cleaned
		}
		e.cluster.Close()
	})
}

// retentionConfigs are the broker configs that bound every partition to
// bytes (0: unbounded). They are always set, so a value persisted in
// DataDir by an earlier start is overridden. Time retention stays off:
// the records carry event times, and replayed history would be dropped
// as soon as it was produced. Segments are at most a quarter of the
// retention, since the cleaner frees a segment only once all of it lies
// before the log start: memory then stays within about 1.25 × bytes per
// partition (plus what arrives between passes).
func retentionConfigs(bytes int64) map[string]string {
	// "" removes a config: the default segment size.
	cfgs := map[string]string{"log.retention.ms": "-1", "log.retention.bytes": "-1", "log.segment.bytes": ""}
	if bytes > 0 {
		cfgs["log.retention.bytes"] = strconv.FormatInt(bytes, 10)
		cfgs["log.segment.bytes"] = strconv.FormatInt(max(bytes/4, minSegmentBytes), 10)
	}
	return cfgs
}

// minSegmentBytes keeps tiny retentions (tests) from rolling a segment per
// batch.
const minSegmentBytes = 64 << 10

// clean runs kfake's retention pass every interval until Close. kfake has
// a cleaner ticker of its own, but it only runs while some topic sets
// retention configs explicitly, which the broker-wide default does not.
func (e *Embedded) clean(interval time.Duration) {
	defer close(e.cleaned)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-e.stopClean:
			return
		case <-t.C:
			e.cluster.ApplyRetention()
		}
	}
}

// storageLogEvery is how often the broker logs failures to write its
// data directory; the next line says how many were held back.
const storageLogEvery = 10 * time.Second

// brokerLog adapts a *slog.Logger to kfake's Logger. kfake logs every
// request at its info level, so that goes to debug.
//
// It also picks out kfake's failures to write the data directory: kfake
// answers the producer with a bare UNKNOWN_SERVER_ERROR and logs a
// warning per batch, which on a full disk is a flood that says nothing
// of what to do. Any warning or error of kfake's that carries a
// filesystem error (*fs.PathError, *os.LinkError, *os.SyscallError) is
// one: it goes to onStorage every time, and to the log as one ERROR line
// naming the directory, the file and the error per storageLogEvery.
type brokerLog struct {
	l         *slog.Logger
	dir       string
	onStorage func(error)
	limit     *ratelog.Limiter
}

func (s *brokerLog) Logf(level kfake.LogLevel, format string, args ...any) {
	if level == kfake.LogLevelError || level == kfake.LogLevelWarn {
		if path, err := storageError(args); err != nil {
			s.storage(err, path, fmt.Sprintf(format, args...))
			return
		}
	}
	if s.l == nil {
		return
	}
	var l slog.Level
	switch level {
	case kfake.LogLevelError:
		l = slog.LevelError
	case kfake.LogLevelWarn:
		l = slog.LevelWarn
	case kfake.LogLevelInfo:
		l = slog.LevelDebug
	default:
		l = slog.LevelDebug - 4
	}
	ctx := context.Background()
	if !s.l.Enabled(ctx, l) {
		return
	}
	s.l.Log(ctx, l, fmt.Sprintf(format, args...), "component", "embedded-broker")
}

// storage reports one failure to write the data directory; what is
// kfake's own line (it names the partition or state file).
func (s *brokerLog) storage(err error, path, what string) {
	if s.onStorage != nil {
		s.onStorage(err)
	}
	if s.l == nil {
		return
	}
	ok, held := s.limit.Allow("storage")
	if !ok {
		return
	}
	attrs := []any{"dir", s.dir, "path", path, "err", err, "broker_said", what, "component", "embedded-broker"}
	if errors.Is(err, syscall.ENOSPC) {
		attrs = append(attrs, "disk_full", true)
	}
	if held > 0 {
		attrs = append(attrs, "held_back", held)
	}
	s.l.Error("embedded broker cannot write its data directory; producers get an unexpected server error (code -1) until it can", attrs...)
}

// storageError returns the first filesystem error among a log line's
// arguments, and the file it names.
func storageError(args []any) (path string, err error) {
	for _, a := range args {
		e, ok := a.(error)
		if !ok {
			continue
		}
		var pe *iofs.PathError
		var le *os.LinkError
		var se *os.SyscallError
		switch {
		case errors.As(e, &pe):
			return pe.Path, e
		case errors.As(e, &le):
			return le.New, e
		case errors.As(e, &se):
			return "", e
		}
	}
	return "", nil
}

package kafka

import (
	"context"
	"errors"
	"fmt"
	"time"

	kafkago "github.com/segmentio/kafka-go"
)

// ErrNoBrokers is returned when a call is given no broker addresses.
var ErrNoBrokers = errors.New("kafka topics: no broker addresses")

// TopicSpec describes a topic to create when it is missing.
type TopicSpec struct {
	Name string
	// Partitions is the partition count; 0 means the broker's default.
	Partitions int
	// ReplicationFactor is the number of replicas; 0 means the broker's
	// default (default.replication.factor).
	ReplicationFactor int
	// Configs are topic configs such as retention.ms; nil for none.
	Configs map[string]string
}

// check reports a spec no broker would accept, naming the topic.
func (t TopicSpec) check() error {
	if err := checkTopicName(t.Name); err != nil {
		return err
	}
	if t.Partitions < 0 {
		return fmt.Errorf("kafka topics: topic %q: partitions %d must not be negative (0: the broker's default)", t.Name, t.Partitions)
	}
	if t.ReplicationFactor < 0 || t.ReplicationFactor > 32767 {
		return fmt.Errorf("kafka topics: topic %q: replication factor %d must lie in [0, 32767] (0: the broker's default)", t.Name, t.ReplicationFactor)
	}
	return nil
}

func checkTopics(topics []TopicSpec) error {
	seen := make(map[string]bool, len(topics))
	for _, t := range topics {
		if err := t.check(); err != nil {
			return err
		}
		if seen[t.Name] {
			return fmt.Errorf("kafka topics: topic %q listed twice", t.Name)
		}
		seen[t.Name] = true
	}
	return nil
}

// checkTopicName applies Kafka's rules: 1 to 249 characters from
// [a-zA-Z0-9._-], and not "." or "..".
func checkTopicName(name string) error {
	switch {
	case name == "":
		return errors.New("kafka topics: empty topic name")
	case len(name) > 249:
		return fmt.Errorf("kafka topics: topic %.20q…: name is %d characters long; the limit is 249", name, len(name))
	case name == "." || name == "..":
		return fmt.Errorf("kafka topics: topic %q: not a legal topic name", name)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			return fmt.Errorf("kafka topics: topic %q: character %q at %d is not one of [a-zA-Z0-9._-]", name, c, i+1)
		}
	}
	return nil
}

// EnsureTopics creates the topics that do not exist yet and leaves the
// others as they are (their partition counts and configs are not
// compared). It talks to the cluster through a kafkago.Client, which routes
// CreateTopics to the controller. transport carries TLS and SASL settings;
// nil means plain TCP with a transport private to this call. Errors name
// the topic; all failed topics are reported together.
func EnsureTopics(ctx context.Context, brokers []string, transport *kafkago.Transport, topics []TopicSpec) error {
	if len(topics) == 0 {
		return nil
	}
	if len(brokers) == 0 {
		return ErrNoBrokers
	}
	if err := checkTopics(topics); err != nil {
		return err
	}
	tr, done := useTransport(transport)
	defer done()
	client := &kafkago.Client{Addr: kafkago.TCP(brokers...), Transport: tr}

	names := make([]string, len(topics))
	for i, t := range topics {
		names[i] = t.Name
	}
	meta, err := client.Metadata(ctx, &kafkago.MetadataRequest{Topics: names})
	err = CleanError(err) // no kafka-go method names in messages
	if err != nil {
		return fmt.Errorf("kafka topics: reading metadata from %v: %w", brokers, err)
	}
	exists := make(map[string]bool, len(meta.Topics))
	for _, t := range meta.Topics {
		if t.Error == nil {
			exists[t.Name] = true
		}
	}
	req := &kafkago.CreateTopicsRequest{}
	for _, t := range topics {
		if exists[t.Name] {
			continue
		}
		cfg := kafkago.TopicConfig{Topic: t.Name, NumPartitions: -1, ReplicationFactor: -1}
		if t.Partitions > 0 {
			cfg.NumPartitions = t.Partitions
		}
		if t.ReplicationFactor > 0 {
			cfg.ReplicationFactor = t.ReplicationFactor
		}
		for k, v := range t.Configs {
			cfg.ConfigEntries = append(cfg.ConfigEntries, kafkago.ConfigEntry{ConfigName: k, ConfigValue: v})
		}
		req.Topics = append(req.Topics, cfg)
	}
	if len(req.Topics) == 0 {
		return nil
	}
	resp, err := client.CreateTopics(ctx, req)
	err = CleanError(err) // no kafka-go method names in messages
	if err != nil {
		return fmt.Errorf("kafka topics: creating topics %v: %w", names, err)
	}
	var errs []error
	for _, t := range req.Topics {
		// A topic created by someone else since the metadata was read
		// (the transport caches metadata) is as good as ours.
		if err := resp.Errors[t.Topic]; err != nil && !errors.Is(err, kafkago.TopicAlreadyExists) {
			errs = append(errs, fmt.Errorf("kafka topics: creating topic %q (%d partitions, replication %d): %w",
				t.Topic, t.NumPartitions, t.ReplicationFactor, err))
		}
	}
	return errors.Join(errs...)
}

// WaitReady polls the cluster's metadata until a broker answers with a
// broker list, or ctx ends. transport carries TLS and SASL settings (nil:
// plain TCP); the polling itself uses a private transport with a short
// metadata lifetime, so a broker that comes up is seen within ~100 ms.
func WaitReady(ctx context.Context, brokers []string, transport *kafkago.Transport) error {
	if len(brokers) == 0 {
		return ErrNoBrokers
	}
	probe := probeTransport(transport)
	defer probe.CloseIdleConnections()
	client := &kafkago.Client{Addr: kafkago.TCP(brokers...), Transport: probe, Timeout: 2 * time.Second}
	backoff := 10 * time.Millisecond
	for {
		resp, err := client.Metadata(ctx, &kafkago.MetadataRequest{})
		err = CleanError(err) // no kafka-go method names in messages
		if err == nil && len(resp.Brokers) > 0 {
			return nil
		}
		if err == nil {
			err = errors.New("metadata lists no brokers")
		}
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("kafka topics: %v not ready: %w (last error: %v)", brokers, ctx.Err(), err)
		case <-t.C:
		}
		backoff = min(2*backoff, 250*time.Millisecond)
	}
}

// useTransport returns transport, or a new plain one and the function that
// releases it.
func useTransport(transport *kafkago.Transport) (*kafkago.Transport, func()) {
	if transport != nil {
		return transport, func() {}
	}
	t := &kafkago.Transport{}
	return t, t.CloseIdleConnections
}

// probeTransport is a transport with t's connection settings whose cached
// metadata expires quickly: a kafka-go transport that failed its first
// metadata request keeps answering with that error until the next
// refresh.
func probeTransport(t *kafkago.Transport) *kafkago.Transport {
	p := transportLike(t, 100*time.Millisecond)
	if p.DialTimeout == 0 {
		p.DialTimeout = 2 * time.Second
	}
	return p
}

// transportLike returns a new transport with the connection settings of t
// (nil: defaults) and the given metadata lifetime (0: kafka-go's 6s).
func transportLike(t *kafkago.Transport, metadataTTL time.Duration) *kafkago.Transport {
	p := &kafkago.Transport{MetadataTTL: metadataTTL}
	if t != nil {
		p.Dial = t.Dial
		p.DialTimeout = t.DialTimeout
		p.IdleTimeout = t.IdleTimeout
		p.ClientID = t.ClientID
		p.TLS = t.TLS
		p.SASL = t.SASL
		p.Resolver = t.Resolver
		p.Context = t.Context
		if metadataTTL == 0 {
			p.MetadataTTL = t.MetadataTTL
		}
	}
	return p
}

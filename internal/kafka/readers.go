package kafka

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"

	kafkago "github.com/segmentio/kafka-go"
)

// ReadersOptions configures Readers.
type ReadersOptions struct {
	Brokers []string
	Topic   string
	// Dialer carries TLS and SASL settings; nil dials plain TCP.
	Dialer *kafkago.Dialer
	// MaxWait bounds how long the broker holds a fetch of a quiet
	// partition (default 250ms).
	MaxWait time.Duration
	// OnClientError, if set, is called for each error a partition's
	// kafka-go reader reports and retries by itself (a fetch's i/o
	// timeout, a lost connection): they never reach Fetch.
	OnClientError func()
}

// Readers reads a set of partitions of one topic, each from a given
// offset, outside any consumer group, and merges them into one stream:
// each partition's records in offset order, partitions interleaved as
// they arrive. It commits nothing. A scaled-out daemon reads every
// partition this way (see Member).
//
// Fetch is for one goroutine; Lag and Close may be called from others.
type Readers struct {
	topic  string
	out    chan fetchResult
	cancel context.CancelFunc
	wg     sync.WaitGroup
	rs     []*kafkago.Reader

	mu  sync.Mutex
	lag map[int]int64
}

type fetchResult struct {
	m   kafkago.Message
	err error
}

// NewReaders starts reading partition p of the topic at from[p], for
// every p in from.
func NewReaders(opts ReadersOptions, from map[int]int64) (*Readers, error) {
	switch {
	case len(opts.Brokers) == 0:
		return nil, errors.New("kafka readers: no brokers")
	case opts.Topic == "":
		return nil, errors.New("kafka readers: no topic")
	}
	if opts.MaxWait <= 0 {
		opts.MaxWait = 250 * time.Millisecond
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &Readers{topic: opts.Topic, out: make(chan fetchResult, 1024), cancel: cancel, lag: map[int]int64{}}
	for p, off := range from {
		rc := kafkago.ReaderConfig{Brokers: opts.Brokers, Topic: opts.Topic, Partition: p, Dialer: opts.Dialer,
			MinBytes: 1, MaxBytes: 10 << 20, MaxWait: opts.MaxWait}
		if f := opts.OnClientError; f != nil {
			rc.ErrorLogger = kafkago.LoggerFunc(func(string, ...any) { f() })
		}
		kr := kafkago.NewReader(rc)
		if err := kr.SetOffset(off); err != nil {
			kr.Close()
			r.Close()
			return nil, fmt.Errorf("kafka readers: %s partition %d at offset %d: %w", opts.Topic, p, off, err)
		}
		r.rs = append(r.rs, kr)
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			r.read(ctx, kr)
		}()
	}
	return r, nil
}

// read forwards one partition's records until ctx ends or a fetch fails.
func (r *Readers) read(ctx context.Context, kr *kafkago.Reader) {
	for {
		m, err := kr.FetchMessage(ctx)
		if err != nil && ctx.Err() != nil {
			return
		}
		if err != nil {
			err = fmt.Errorf("kafka readers: reading %s partition %d: %w", r.topic, kr.Config().Partition, err)
		}
		select {
		case r.out <- fetchResult{m, err}:
		case <-ctx.Done():
			return
		}
		if err != nil {
			return
		}
	}
}

// Fetch returns the next record of any partition. It blocks until one
// arrives or ctx ends (then it returns ctx's error).
func (r *Readers) Fetch(ctx context.Context) (kafkago.Message, error) {
	select {
	case f := <-r.out:
		if f.err == nil && f.m.HighWaterMark > 0 {
			r.mu.Lock()
			r.lag[f.m.Partition] = max(f.m.HighWaterMark-f.m.Offset-1, 0)
			r.mu.Unlock()
		}
		return f.m, f.err
	case <-ctx.Done():
		return kafkago.Message{}, ctx.Err()
	}
}

// Lag returns, per partition read, the records between the last one
// fetched and the partition's end as of that fetch.
func (r *Readers) Lag() map[int]int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.lag)
}

// Close stops reading and closes the connections; records fetched but
// not returned by Fetch are dropped.
func (r *Readers) Close() error {
	r.cancel()
	r.wg.Wait()
	var errs []error
	for _, kr := range r.rs {
		errs = append(errs, kr.Close())
	}
	return errors.Join(errs...)
}

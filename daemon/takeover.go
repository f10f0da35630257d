package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/motifwatch/motifwatch/kafka"
)

// takeoverGuard decides, before the pipeline takes a record in, whether
// the window it mines from is still current. An instance without
// scale-out that stood by in its group checks (standbyGuard); a
// scaled-out instance does not (noTakeover): its group's generations
// hand partitions over explicitly, and each gets a pipeline rebuilt at
// the committed offsets.
type takeoverGuard interface {
	// check returns an error wrapping ErrTookOver when m proves that
	// someone else consumed and committed past this pipeline's window.
	// next[p] is the offset after the last record the pipeline took from
	// partition p.
	check(ctx context.Context, m *kafka.Message, next map[int]int64) error
}

// noTakeover never finds a takeover.
type noTakeover struct{}

func (noTakeover) check(context.Context, *kafka.Message, map[int]int64) error { return nil }

// ErrTookOver ends a daemon without scale-out that stood by in its
// consumer group and has just been handed the partitions of a member that
// left: its window holds the edges up to where it was rebuilt at start,
// the group committed past that since, and mining on would miss every
// match that spans the gap. The process exits (nothing is committed), and
// its restart rebuilds the window from the history before the new
// committed offsets: at least once, nothing lost.
var ErrTookOver = errors.New("took over partitions past this instance's window")

// standbyGuard is the takeover check of an instance without scale-out:
// several such instances stand by for one another (ingest's whole-topic
// group protocol), and one handed the partitions later must not mine on
// from the window it rebuilt at start.
type standbyGuard struct {
	log *slog.Logger
	// builtTo[p] is the offset the window was rebuilt up to at start.
	builtTo map[int]int64
	// committed looks up the group's committed offsets (absent: none).
	committed func(ctx context.Context) (map[int]int64, error)
	// verified: the first record's check of every partition has passed.
	verified bool
}

// check returns an error wrapping ErrTookOver when the window this
// pipeline built at start is stale: the group committed past the offset
// it reaches in some partition, so someone else consumed and committed in
// between.
//
// At the first record the pipeline takes, every partition is checked: a
// standby is handed all partitions at once, and the first record may come
// from one the old owner never moved (no gap there) while the others did;
// mined and committed from the stale window, that partition's matches
// would be lost to the restart (it would re-read them as history). A
// lookup that keeps failing then ends the pipeline too: exiting and
// rebuilding is always safe, mining from a stale window is not.
//
// Later, a record past the offset reached in its partition asks again. A
// gap alone is no takeover (transaction markers and compaction leave gaps
// in offsets), and only a member that owns a partition commits it, so a
// committed offset past the window proves it.
func (g *standbyGuard) check(ctx context.Context, m *kafka.Message, next map[int]int64) error {
	if !g.verified {
		c, err := g.committedRetrying(ctx)
		if err != nil {
			return fmt.Errorf("kafka: the first record (partition %d, offset %d) came, and the group's committed offsets could not be read to check this instance's window (%v); exiting so that a restart rebuilds it: %w",
				m.Partition, m.Offset, err, ErrTookOver)
		}
		for part, reach := range g.builtTo {
			if off, ok := c[part]; ok && off > reach {
				return tookOver(part, off, reach)
			}
		}
		g.verified = true
		return nil
	}
	reach, ok := next[m.Partition]
	if !ok {
		if reach, ok = g.builtTo[m.Partition]; !ok {
			return nil
		}
	}
	if m.Offset <= reach {
		return nil
	}
	c, err := g.committed(ctx)
	off, ok := c[m.Partition]
	if err != nil || !ok || off <= reach {
		// A failed lookup cannot prove a takeover; the next gap asks again.
		if err != nil {
			g.log.Warn("kafka: could not check the committed offset after a gap in the offsets", "partition", m.Partition, "offset", m.Offset, "err", err)
		}
		return nil // and take m on: take's next moves past the gap
	}
	return tookOver(m.Partition, off, reach)
}

func tookOver(partition int, committed, reach int64) error {
	return fmt.Errorf("kafka partition %d: the group committed offset %d while this instance stood by (its window reaches offset %d); exiting so that a restart rebuilds the window from the history before it: %w",
		partition, committed, reach, ErrTookOver)
}

// committedRetrying reads the group's committed offsets, trying a few
// times over a few seconds (the first record's check must not end a
// healthy start on one dropped request).
func (g *standbyGuard) committedRetrying(ctx context.Context) (map[int]int64, error) {
	var err error
	for attempt := 0; attempt < 4; attempt++ {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(time.Duration(attempt) * 500 * time.Millisecond):
			}
		}
		var c map[int]int64
		actx, cancel := context.WithTimeout(ctx, probeAttempt)
		c, err = g.committed(actx)
		cancel()
		if err == nil {
			return c, nil
		}
	}
	return nil, err
}

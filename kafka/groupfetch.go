package kafka

import (
	"context"
	"errors"
	"slices"
	"sync"

	kafkago "github.com/segmentio/kafka-go"
)

// GroupFetcher reads the edge topic as a member of a consumer group, for
// a daemon that is not scaled out: the group (on the whole-topic protocol,
// see wholeTopicBalancer) gives one member every partition and the others
// stand by. In each generation it reads the partitions assigned from the
// group's committed offsets with a Fetcher, as kafka-go's group Reader
// would, but a fetch at a time instead of a record at a time (the
// Reader's one channel per record was 42% of the daemon's CPU on a
// 16-core host). Offsets move
// only by Commit, which the daemon calls once the alerts of everything
// before them are acknowledged.
//
// When a generation ends (a member joined or left, or the session was
// lost) its fetcher stops at once and the member rejoins; the next
// generation reads again from the committed offsets, so records already
// in hand come again (the daemon skips them by offset), and a gap
// between what this instance read and the committed offset shows that
// another member consumed meanwhile.
//
// Next, Done and Pause are for one goroutine; Commit, Lag and Close may
// be called from others.
type GroupFetcher struct {
	member *Member
	opts   FetcherOptions

	mu     sync.Mutex
	gen    *Generation
	f      *Fetcher
	ended  chan struct{} // closed once gen is over and its fetcher closed
	paused []int
	closed bool
}

// NewGroupFetcher returns a group fetcher; it joins the group on the
// first Next. member's Balancers default to the whole-topic protocol.
func NewGroupFetcher(member MemberOptions, fetch FetcherOptions) (*GroupFetcher, error) {
	if member.Balancers == nil {
		// One member reads the whole topic; range only for groups mixed
		// with older releases.
		member.Balancers = []kafkago.GroupBalancer{newWholeTopicBalancer(), kafkago.RangeGroupBalancer{}}
	}
	fetch.Brokers, fetch.Topic = member.Brokers, member.Topic
	if fetch.Transport == nil {
		fetch.Transport = member.Transport
	}
	m, err := NewMember(member)
	if err != nil {
		return nil, err
	}
	return &GroupFetcher{member: m, opts: fetch}, nil
}

// ErrClosed is returned by GroupFetcher.Next once Close was called.
var ErrClosed = errors.New("kafka group fetcher: closed")

// Next returns the next chunk of a partition assigned to this member. It
// joins the group (and rejoins after a generation ends) as needed, and
// blocks while the member stands by. Errors joining or fetching are
// returned (both are retried: the caller may call Next again).
func (g *GroupFetcher) Next(ctx context.Context) (*Chunk, error) {
	for {
		g.mu.Lock()
		f, ended, closed := g.f, g.ended, g.closed
		g.mu.Unlock()
		if closed {
			return nil, ErrClosed
		}
		if ended == nil {
			if err := g.join(ctx); err != nil {
				return nil, err
			}
			continue
		}
		var out <-chan *Chunk
		var errc <-chan error
		if f != nil {
			out, errc = f.out, f.errc
		}
		select {
		case c := <-out:
			return c, nil
		case err := <-errc:
			return nil, err
		case <-ended:
			g.mu.Lock()
			if g.ended == ended {
				g.gen, g.f, g.ended = nil, nil, nil
			}
			g.mu.Unlock()
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// join waits for the next generation and starts reading its partitions.
func (g *GroupFetcher) join(ctx context.Context) error {
	gen, err := g.member.Next(ctx)
	if err != nil {
		return err
	}
	var f *Fetcher
	if len(gen.Partitions) > 0 {
		if f, err = NewFetcher(g.opts, gen.Offsets); err != nil {
			gen.Release()
			return err
		}
	}
	ended := make(chan struct{})
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		if f != nil {
			f.Close()
		}
		gen.Release()
		return ErrClosed
	}
	g.gen, g.f, g.ended = gen, f, ended
	if f != nil {
		f.Pause(g.paused)
	}
	g.mu.Unlock()
	go func() {
		<-gen.Ending
		if f != nil {
			f.Close()
		}
		gen.Release()
		close(ended)
	}()
	return nil
}

// Done hands c back (see Fetcher.Done); it may come from a generation
// that is over.
func (g *GroupFetcher) Done(c *Chunk) { c.done() }

// Pause pauses the fetching of the partitions in paused (see
// Fetcher.Pause), in this generation and the next ones.
func (g *GroupFetcher) Pause(paused []int) {
	g.mu.Lock()
	g.paused = append(g.paused[:0], paused...)
	f := g.f
	g.mu.Unlock()
	if f != nil {
		f.Pause(paused)
	}
}

// Commit commits, per partition this member owns, the next offset to
// read, through the current generation: it returns the coordinator's
// answer (an error wrapping ErrFenced once the generation is over), or an
// error while no generation is current. Offsets of partitions it does
// not own are left out.
func (g *GroupFetcher) Commit(ctx context.Context, next map[int]int64) error {
	if len(next) == 0 {
		return nil
	}
	g.mu.Lock()
	gen := g.gen
	g.mu.Unlock()
	if gen == nil {
		return errors.New("kafka group: committing offsets: not in a generation of the group (joining)")
	}
	return gen.Commit(ctx, next, nil)
}

// Lag returns, per partition read in this generation, the records
// between the last one fetched and the partition's end as of that fetch.
func (g *GroupFetcher) Lag() map[int]int64 {
	g.mu.Lock()
	f := g.f
	g.mu.Unlock()
	if f == nil {
		return map[int]int64{}
	}
	return f.Lag()
}

// Seek moves the reading of partition in the current generation (see
// Fetcher.Seek); without one (joining, standing by) it does nothing:
// the next generation starts from the group's committed offsets.
func (g *GroupFetcher) Seek(partition int, offset int64) {
	g.mu.Lock()
	f := g.f
	g.mu.Unlock()
	if f != nil {
		f.Seek(partition, offset)
	}
}

// Rejoin ends the current generation so that the group assigns the
// topic's partitions anew (Member.Rejoin); reading resumes in the next.
func (g *GroupFetcher) Rejoin() { g.member.Rejoin() }

// Failing returns the partitions of the current generation whose last
// fetch failed.
func (g *GroupFetcher) Failing() []int {
	g.mu.Lock()
	f := g.f
	g.mu.Unlock()
	if f == nil {
		return nil
	}
	return f.Failing()
}

// InFlight returns the current generation's fetched bytes not handed
// back, and their peak.
func (g *GroupFetcher) InFlight() (now, peak int64) {
	g.mu.Lock()
	f := g.f
	g.mu.Unlock()
	if f == nil {
		return 0, 0
	}
	return f.InFlight()
}

// Partitions returns the partitions of the current generation.
func (g *GroupFetcher) Partitions() []int {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.gen == nil {
		return nil
	}
	return slices.Clone(g.gen.Partitions)
}

// Close stops reading, leaves the group and closes the connections.
// Records fetched but not committed are read again by the partitions'
// next owner.
func (g *GroupFetcher) Close() error {
	g.mu.Lock()
	g.closed = true
	f := g.f
	g.mu.Unlock()
	if f != nil {
		f.Close()
	}
	return g.member.Close()
}

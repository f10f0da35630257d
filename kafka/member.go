package kafka

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	kafkago "github.com/segmentio/kafka-go"
)

// ErrFenced is returned by Generation.Commit when the group coordinator
// refused the commit because the generation is over (the group has moved
// on, or is assigning partitions anew): the partitions may have another
// owner now, and that owner resumes from the last accepted commit.
var ErrFenced = errors.New("kafka group: commit fenced: the generation is over")

// MemberOptions configures a Member.
type MemberOptions struct {
	Brokers  []string
	Topic    string
	Group    string
	ClientID string
	// Dialer carries TLS and SASL settings for the group protocol; nil
	// dials plain TCP. Transport does the same for commits (nil: plain).
	Dialer    *kafkago.Dialer
	Transport kafkago.RoundTripper
	// HeartbeatInterval is how often the member checks in, and so how soon
	// it learns of a rebalance; SessionTimeout is how long the group waits
	// for a silent member before giving its partitions to others;
	// RebalanceTimeout is how long a rebalance waits for members to hand
	// their partitions over (finish, commit, rejoin). Zero: kafka-go's
	// defaults (3s, 30s, 30s).
	HeartbeatInterval, SessionTimeout, RebalanceTimeout time.Duration
	// Logger receives the group's errors at Warn; nil discards them.
	Logger *slog.Logger
	// Balancers are the group protocols this member offers, preferred
	// first (nil: kafka-go's range and round-robin).
	Balancers []kafkago.GroupBalancer
	// StartLatest makes Generation.Offsets of a partition without a
	// committed offset kafkago.LastOffset; by default kafkago.FirstOffset.
	StartLatest bool
}

// Member is one instance's membership of a consumer group, used only to
// learn which partitions of the topic are its duty in each generation and
// to commit their offsets fenced by that generation. It reads no records:
// a scaled-out daemon reads every partition (Fetcher), because mining
// needs every edge in the window, and mines only the matches whose last
// edge comes from the partitions it owns.
//
// It uses kafka-go's ConsumerGroup, whose generations make assignments
// and their end explicit (kafka-go's Reader in group mode hides both).
type Member struct {
	cg     *kafkago.ConsumerGroup
	client *kafkago.Client
	own    *kafkago.Transport // closed by Close when NewMember made it
	topic  string
	group  string

	mu  sync.Mutex
	cur *Generation
}

// NewMember returns a member; it joins the group on the first Next.
func NewMember(opts MemberOptions) (*Member, error) {
	switch {
	case len(opts.Brokers) == 0:
		return nil, errors.New("kafka group: no brokers")
	case opts.Topic == "":
		return nil, errors.New("kafka group: no topic")
	case opts.Group == "":
		return nil, errors.New("kafka group: no consumer group")
	}
	dialer := opts.Dialer
	if dialer == nil {
		dialer = &kafkago.Dialer{Timeout: 10 * time.Second, DualStack: true}
	}
	if opts.ClientID != "" {
		d := *dialer // the caller's dialer may be shared
		d.ClientID = opts.ClientID
		dialer = &d
	}
	cfg := kafkago.ConsumerGroupConfig{
		ID:                opts.Group,
		Brokers:           opts.Brokers,
		Dialer:            dialer,
		Topics:            []string{opts.Topic},
		HeartbeatInterval: opts.HeartbeatInterval,
		SessionTimeout:    opts.SessionTimeout,
		RebalanceTimeout:  opts.RebalanceTimeout,
		JoinGroupBackoff:  time.Second,
		Timeout:           10 * time.Second,
		GroupBalancers:    opts.Balancers,
		StartOffset:       kafkago.FirstOffset,
	}
	if opts.StartLatest {
		cfg.StartOffset = kafkago.LastOffset
	}
	if opts.Logger != nil {
		l := opts.Logger
		cfg.ErrorLogger = kafkago.LoggerFunc(func(format string, args ...any) {
			l.Warn("kafka group: "+fmt.Sprintf(format, args...), "topic", opts.Topic, "group", opts.Group)
		})
	}
	cg, err := kafkago.NewConsumerGroup(cfg)
	if err != nil {
		return nil, fmt.Errorf("kafka group %s: %w", opts.Group, err)
	}
	m := &Member{cg: cg, topic: opts.Topic, group: opts.Group}
	transport := opts.Transport
	if transport == nil {
		m.own = &kafkago.Transport{}
		transport = m.own
	}
	m.client = &kafkago.Client{Addr: kafkago.TCP(opts.Brokers...), Transport: transport, Timeout: 10 * time.Second}
	return m, nil
}

// Generation is one generation of the group as this member sees it.
type Generation struct {
	ID       int32
	MemberID string
	// Partitions are the partitions of the topic this member owns in this
	// generation, in increasing order; empty when the group has more
	// members than partitions.
	Partitions []int
	// Offsets are the group's committed offsets of Partitions (the next
	// to read) as of the generation's start; kafkago.FirstOffset (or
	// LastOffset, MemberOptions.StartLatest) where none was committed.
	Offsets map[int]int64
	// Ending is closed when the generation ends: a member joined or left,
	// or this member lost its session. The owner of the generation then
	// finishes its batch, commits (the coordinator still accepts commits
	// of this generation while the group prepares the rebalance) and calls
	// Release; the member rejoins only then, so the next owner of a
	// partition starts exactly at that commit.
	Ending <-chan struct{}

	m        *Member
	owned    map[int]bool
	released chan struct{}
	once     sync.Once
	// rejoin, closed by Member.Rejoin, ends the generation.
	rejoin     chan struct{}
	rejoinOnce sync.Once
}

// Next waits for this member's next generation. The previous one must
// have been released. Errors joining the group are returned (kafka-go
// retries on its own; the caller may call Next again).
func (m *Member) Next(ctx context.Context) (*Generation, error) {
	kg, err := m.cg.Next(ctx)
	if err != nil {
		return nil, err
	}
	g := &Generation{ID: kg.ID, MemberID: kg.MemberID, m: m, owned: map[int]bool{}, released: make(chan struct{}),
		rejoin: make(chan struct{}), Offsets: map[int]int64{}}
	for _, a := range kg.Assignments[m.topic] {
		g.Partitions = append(g.Partitions, a.ID)
		g.owned[a.ID] = true
		g.Offsets[a.ID] = a.Offset
	}
	slices.Sort(g.Partitions)
	ending := make(chan struct{})
	g.Ending = ending
	// kafka-go waits for the functions started on a generation before it
	// rejoins: this one holds the rejoin until the handover is done. Its
	// return after Rejoin ends the generation (kafka-go ends it when any
	// of its functions returns).
	kg.Start(func(ctx context.Context) {
		select {
		case <-ctx.Done():
		case <-g.rejoin:
		}
		close(ending)
		<-g.released
	})
	m.mu.Lock()
	m.cur = g
	m.mu.Unlock()
	return g, nil
}

// Rejoin ends the current generation, if any, as a rebalance does
// (Ending closes; the member rejoins once it is released), so that the
// group assigns the topic's partitions anew: partitions were added, or
// the topic was gone when they were last assigned. The group's leader
// computes the assignment, and a coordinator may answer a follower that
// rejoins with the assignment it had: every member of the group should
// call it on the same evidence, so that the leader's does.
func (m *Member) Rejoin() {
	m.mu.Lock()
	g := m.cur
	m.mu.Unlock()
	if g != nil {
		g.rejoinOnce.Do(func() { close(g.rejoin) })
	}
}

// Owns reports whether partition is this generation's.
func (g *Generation) Owns(partition int) bool { return g.owned[partition] }

// Release lets the member rejoin the group once the generation's work is
// committed. It is idempotent.
func (g *Generation) Release() { g.once.Do(func() { close(g.released) }) }

// Commit commits, for the owned partitions among offsets, the next offset
// to read, with metadata[p] (may be nil) stored beside it; offsets of
// other partitions are not this member's to commit and are left out. The
// commit carries the generation and member id, so the coordinator refuses
// it once the generation is over: then the error wraps ErrFenced.
func (g *Generation) Commit(ctx context.Context, offsets map[int]int64, metadata map[int]string) error {
	var parts []kafkago.OffsetCommit
	for p, off := range offsets {
		if !g.owned[p] {
			continue
		}
		if off < 0 {
			return fmt.Errorf("kafka group: commit of offset %d for partition %d", off, p)
		}
		parts = append(parts, kafkago.OffsetCommit{Partition: p, Offset: off, Metadata: metadata[p]})
	}
	if len(parts) == 0 {
		return nil
	}
	resp, err := g.m.client.OffsetCommit(ctx, &kafkago.OffsetCommitRequest{GroupID: g.m.group, GenerationID: int(g.ID),
		MemberID: g.MemberID, Topics: map[string][]kafkago.OffsetCommit{g.m.topic: parts}})
	err = CleanError(err) // no kafka-go method names in messages
	if err != nil {
		return fmt.Errorf("kafka group %s: committing offsets of %s in generation %d: %w", g.m.group, g.m.topic, g.ID, err)
	}
	var refused *CommitError
	for _, p := range resp.Topics[g.m.topic] {
		if p.Error == nil {
			continue
		}
		if fenced(p.Error) {
			return fmt.Errorf("kafka group %s: committing %s/%d in generation %d: %w (%w)", g.m.group, g.m.topic, p.Partition, g.ID, ErrFenced, p.Error)
		}
		if refused == nil {
			refused = &CommitError{Group: g.m.group, Topic: g.m.topic, Generation: g.ID, Partitions: map[int]error{}}
		}
		refused.Partitions[p.Partition] = p.Error
	}
	if refused != nil {
		return refused
	}
	return nil
}

// CommitError is a commit the coordinator refused for some partitions
// (and accepted for the others), with each one's error.
type CommitError struct {
	Group, Topic string
	Generation   int32
	Partitions   map[int]error
}

func (e *CommitError) Error() string {
	ps := make([]int, 0, len(e.Partitions))
	for p := range e.Partitions {
		ps = append(ps, p)
	}
	slices.Sort(ps)
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = fmt.Sprintf("%s/%d: %v", e.Topic, p, e.Partitions[p])
	}
	return fmt.Sprintf("kafka group %s: committing in generation %d: %s", e.Group, e.Generation, strings.Join(parts, "; "))
}

// Unknown returns the partitions the coordinator did not know
// (UNKNOWN_TOPIC_OR_PARTITION: deleted with their topic, or the topic
// has fewer partitions now), in increasing order.
func (e *CommitError) Unknown() []int {
	var ps []int
	for p, err := range e.Partitions {
		if errors.Is(err, kafkago.UnknownTopicOrPartition) {
			ps = append(ps, p)
		}
	}
	slices.Sort(ps)
	return ps
}

// fenced reports the coordinator's answers that mean the generation is
// over for this member.
func fenced(err error) bool {
	for _, e := range []kafkago.Error{kafkago.IllegalGeneration, kafkago.UnknownMemberId, kafkago.RebalanceInProgress, kafkago.FencedInstanceID} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// Close releases the current generation, leaves the group and closes the
// connections. Commit what must be committed first.
func (m *Member) Close() error {
	m.mu.Lock()
	if m.cur != nil {
		m.cur.Release()
	}
	m.mu.Unlock()
	err := m.cg.Close()
	if m.own != nil {
		m.own.CloseIdleConnections()
	}
	return err
}

package daemon

import (
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/motifwatch/motifwatch/internal/promreg"
)

// The HTTP server's connections are capped so that no number of clients
// can take the descriptors Kafka needs (about 20,000 idle keep-alive
// connections once did: Kafka's calls failed with "too many open files",
// /healthz went dark and ingest stalled).
//
// limitListener holds at most max connections open. Its Accept takes a
// slot before it accepts: at the cap it waits, and the connections
// arriving meanwhile wait in the kernel's listen backlog, where they hold
// no descriptor of this process (past the backlog the kernel refuses
// them). While it waits, it closes kept-alive connections that sit idle
// (the longest idle first, and any that goes idle), so that clients that
// open connections and leave them idle cannot keep a probe out until
// idle_timeout; a client that keeps its connection busy pays for it with
// requests, each bounded by the server's read and write timeouts.
type limitListener struct {
	net.Listener
	slots chan struct{} // one token per open connection
	done  chan struct{} // closed by Close: Accept stops waiting
	once  sync.Once
	m     *httpMetrics

	mu      sync.Mutex
	waiting bool                     // Accept waits for a slot: the cap is reached
	idle    map[*limitConn]time.Time // kept-alive connections idle since
}

func newLimitListener(ln net.Listener, max int, m *httpMetrics) *limitListener {
	m.limit.Set(float64(max))
	return &limitListener{Listener: ln, slots: make(chan struct{}, max), done: make(chan struct{}), m: m,
		idle: make(map[*limitConn]time.Time)}
}

func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	default:
		l.m.capped.Inc()
		l.setWaiting(true)
		select {
		case l.slots <- struct{}{}:
			l.setWaiting(false)
		case <-l.done:
			l.setWaiting(false)
			return nil, net.ErrClosed
		}
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	l.m.open.Inc()
	return &limitConn{Conn: c, l: l}, nil
}

func (l *limitListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// setWaiting records whether Accept waits for a slot; when it starts to,
// the connection idle longest is closed to free one.
func (l *limitListener) setWaiting(w bool) {
	l.mu.Lock()
	l.waiting = w
	var oldest *limitConn
	if w {
		var since time.Time
		for c, t := range l.idle {
			if oldest == nil || t.Before(since) {
				oldest, since = c, t
			}
		}
		if oldest != nil {
			delete(l.idle, oldest)
		}
	}
	l.mu.Unlock()
	if oldest != nil {
		l.shed(oldest)
	}
}

// connState is the server's ConnState hook: it keeps the set of idle
// connections, and closes one that goes idle while Accept waits.
func (l *limitListener) connState(nc net.Conn, state http.ConnState) {
	c, ok := nc.(*limitConn)
	if !ok {
		return
	}
	l.mu.Lock()
	shed := false
	switch state {
	case http.StateIdle:
		if l.waiting {
			shed = true
		} else {
			l.idle[c] = time.Now()
		}
	default: // new, active, hijacked, closed
		delete(l.idle, c)
	}
	l.mu.Unlock()
	if shed {
		l.shed(c)
	}
}

// shed closes an idle connection to make room. The server's goroutine
// for it sees the read fail and ends; a client that sends its next
// request at that moment sees the connection closed, and HTTP clients
// retry an idempotent request on a new one.
func (l *limitListener) shed(c *limitConn) {
	l.m.shed.Inc()
	c.Close()
}

// limitConn gives its slot back when closed (once: the server and shed
// may both close it).
type limitConn struct {
	net.Conn
	l    *limitListener
	once sync.Once
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.l.m.open.Dec()
		<-c.l.slots
	})
	return err
}

// httpMetrics follow the server's connections.
type httpMetrics struct {
	open, limit  prometheus.Gauge
	capped, shed prometheus.Counter
}

func newHTTPMetrics(reg prometheus.Registerer) (*httpMetrics, error) {
	m := &httpMetrics{
		open: prometheus.NewGauge(prometheus.GaugeOpts{Name: "motifwatch_http_connections",
			Help: "Open connections to the HTTP server (/metrics, /healthz, /readyz, the status page)."}),
		limit: prometheus.NewGauge(prometheus.GaugeOpts{Name: "motifwatch_http_connections_limit",
			Help: "The cap on open HTTP connections (metrics.max_connections, at most half the open-files limit)."}),
		capped: prometheus.NewCounter(prometheus.CounterOpts{Name: "motifwatch_http_connections_capped_total",
			Help: "Times the HTTP server reached its connection cap: further connections waited in the listen backlog (holding no descriptor) until one closed."}),
		shed: prometheus.NewCounter(prometheus.CounterOpts{Name: "motifwatch_http_connections_shed_total",
			Help: "Idle keep-alive HTTP connections closed early to make room at the connection cap."}),
	}
	if reg == nil {
		return m, nil
	}
	var err error
	m.open = promreg.Register(reg, m.open, &err)
	m.limit = promreg.Register(reg, m.limit, &err)
	m.capped = promreg.Register(reg, m.capped, &err)
	m.shed = promreg.Register(reg, m.shed, &err)
	return m, err
}

// httpConnCap returns the HTTP connection cap for the configured one:
// at most half the open-files limit, so that HTTP clients can never take
// more than half the descriptors, whatever they do; the rest stay for
// Kafka (brokers, the embedded broker's files), the window's files and
// the runtime. It returns the limit too (0 if unknown), and whether the
// configured cap was lowered.
func httpConnCap(configured int) (limit int, nofile uint64, lowered bool) {
	nofile = openFilesLimit()
	limit, lowered = capConns(configured, nofile)
	return limit, nofile, lowered
}

// capConns is httpConnCap for a given limit (0: unknown).
func capConns(configured int, nofile uint64) (int, bool) {
	if nofile == 0 || uint64(configured) <= nofile/2 {
		return configured, false
	}
	return max(1, int(nofile/2)), true
}

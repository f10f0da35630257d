package daemon

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/motifwatch/motifwatch/internal/testenv"
)

// countingListener counts the connections its Accept handed out and that
// are not closed yet, and keeps the peak: the server's open connections,
// measured apart from the server's own bookkeeping.
type countingListener struct {
	net.Listener
	mu         sync.Mutex
	open, peak int
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	l.open++
	l.peak = max(l.peak, l.open)
	l.mu.Unlock()
	return &countedConn{Conn: c, l: l}, nil
}

func (l *countingListener) counts() (open, peak int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.open, l.peak
}

type countedConn struct {
	net.Conn
	l    *countingListener
	once sync.Once
}

func (c *countedConn) Close() error {
	c.once.Do(func() {
		c.l.mu.Lock()
		c.l.open--
		c.l.mu.Unlock()
	})
	return c.Conn.Close()
}

// startCapped serves on a counting listener with opts.
func startCapped(t *testing.T, opts httpOptions) (*httpServer, *countingListener, *prometheus.Registry) {
	t.Helper()
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := &countingListener{Listener: inner}
	reg := prometheus.NewRegistry()
	srv, err := newHTTPServerOn(ln, opts, reg, reg, func() (string, string) { return stateReady, "" })
	if err != nil {
		t.Fatal(err)
	}
	srv.start()
	t.Cleanup(func() { srv.stop(time.Second) })
	return srv, ln, reg
}

// dial opens a raw TCP connection to addr, closed when the test ends.
func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// keepAlive sends one GET /healthz on c and reads the answer, leaving the
// connection open (idle, kept alive) for the next request.
func keepAlive(t *testing.T, c net.Conn) {
	t.Helper()
	c.SetDeadline(time.Now().Add(60 * time.Second))
	if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Close {
		t.Fatalf("GET /healthz = %d (close %v); want 200 on a kept-alive connection", resp.StatusCode, resp.Close)
	}
	c.SetDeadline(time.Time{})
}

// closedByServer waits (at most a minute) for the server to close c and
// reports whether it did.
func closedByServer(c net.Conn) bool {
	c.SetReadDeadline(time.Now().Add(time.Minute))
	_, err := c.Read(make([]byte, 1))
	return errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) || isReset(err)
}

func isReset(err error) bool {
	var ne net.Error
	return err != nil && !(errors.As(err, &ne) && ne.Timeout())
}

func healthz(addr string) (int, error) {
	c := http.Client{Timeout: 60 * time.Second}
	resp, err := c.Get("http://" + addr + "/healthz")
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

// TestHTTPConnectionCap: the HTTP server holds at most max_connections
// open. Before, every connection was accepted and idle keep-alive ones
// were never closed: ~20,000 of them took every descriptor of the
// process, and Kafka's calls failed with "too many open files". Three
// times as many silent connections as the cap: the server never holds
// more than the cap (counted on the listener, apart from the server's own
// bookkeeping), the others wait in the kernel's backlog with /healthz
// queued behind them, the metrics say the cap acted, and /healthz is
// answered once they are gone.
func TestHTTPConnectionCap(t *testing.T) {
	const limit = 4
	srv, ln, reg := startCapped(t, httpOptions{maxConns: limit, readHeaderTimeout: time.Hour, writeTimeout: 10 * time.Second, idleTimeout: time.Hour})
	var hogs []net.Conn
	for range 3 * limit {
		hogs = append(hogs, dial(t, srv.Addr()))
	}
	type result struct {
		code int
		err  error
	}
	answered := make(chan result, 1)
	go func() {
		code, err := healthz(srv.Addr())
		answered <- result{code, err}
	}()
	if !testenv.Poll(time.Minute, 10*time.Millisecond, func() bool {
		return testenv.Gathered(t, reg, "motifwatch_http_connections_capped_total") >= 1 && testenv.Gathered(t, reg, "motifwatch_http_connections") == limit
	}) {
		t.Fatalf("the cap never acted: %v open, capped %v", testenv.Gathered(t, reg, "motifwatch_http_connections"), testenv.Gathered(t, reg, "motifwatch_http_connections_capped_total"))
	}
	select {
	case r := <-answered:
		t.Fatalf("/healthz answered (%d, %v) while %d silent connections held every slot", r.code, r.err, limit)
	default:
	}
	if got := testenv.Gathered(t, reg, "motifwatch_http_connections_limit"); got != limit {
		t.Errorf("motifwatch_http_connections_limit = %v; want %d", got, limit)
	}
	for _, c := range hogs {
		c.Close()
	}
	if r := <-answered; r.err != nil || r.code != http.StatusOK {
		t.Errorf("/healthz once the silent connections are gone: %d, %v; want 200", r.code, r.err)
	}
	if _, peak := ln.counts(); peak > limit {
		t.Errorf("peak open connections %d; want at most the cap, %d", peak, limit)
	}
	if !testenv.Poll(time.Minute, 10*time.Millisecond, func() bool {
		open, _ := ln.counts()
		return testenv.Gathered(t, reg, "motifwatch_http_connections") == float64(open)
	}) {
		open, _ := ln.counts()
		t.Errorf("motifwatch_http_connections = %v; want the %d open", testenv.Gathered(t, reg, "motifwatch_http_connections"), open)
	}
}

// TestHTTPReadHeaderTimeout: a connection that sends no request is closed
// after read_header_timeout, not before: it cannot hold its slot.
func TestHTTPReadHeaderTimeout(t *testing.T) {
	const wait = 300 * time.Millisecond
	srv, ln, _ := startCapped(t, httpOptions{maxConns: 8, readHeaderTimeout: wait, writeTimeout: 10 * time.Second, idleTimeout: time.Hour})
	for i := range 3 {
		dialed := time.Now()
		c := dial(t, srv.Addr())
		if !closedByServer(c) {
			t.Errorf("silent connection %d still open after a minute; want it closed after %v", i, wait)
		} else if d := time.Since(dialed); d < wait {
			t.Errorf("silent connection %d closed after %v; want not before %v", i, d, wait)
		}
	}
	if !testenv.Poll(time.Minute, 10*time.Millisecond, func() bool { open, _ := ln.counts(); return open == 0 }) {
		open, _ := ln.counts()
		t.Errorf("%d connections still open on the server", open)
	}
}

// TestHTTPIdleTimeout: a kept-alive connection left idle is closed by
// the server after idle_timeout, not before (it used to stay open for
// ever).
func TestHTTPIdleTimeout(t *testing.T) {
	const idle = 300 * time.Millisecond
	srv, ln, _ := startCapped(t, httpOptions{maxConns: 8, readHeaderTimeout: time.Hour, writeTimeout: 10 * time.Second, idleTimeout: idle})
	var conns []net.Conn
	var sent []time.Time // before each request: the server's idle spell starts after it
	for range 3 {
		c := dial(t, srv.Addr())
		sent = append(sent, time.Now())
		keepAlive(t, c)
		conns = append(conns, c)
	}
	for i, c := range conns {
		if !closedByServer(c) {
			t.Errorf("idle connection %d still open after a minute; want it closed after %v", i, idle)
		} else if d := time.Since(sent[i]); d < idle {
			t.Errorf("idle connection %d closed %v after its request; want not before %v", i, d, idle)
		}
	}
	if !testenv.Poll(time.Minute, 10*time.Millisecond, func() bool { open, _ := ln.counts(); return open == 0 }) {
		open, _ := ln.counts()
		t.Errorf("%d connections still open on the server", open)
	}
}

// TestHTTPCapShedsIdle: at the cap, idle kept-alive connections are
// closed to make room: clients that keep connections open and idle
// cannot starve a probe for idle_timeout (an hour here).
func TestHTTPCapShedsIdle(t *testing.T) {
	const limit = 4
	srv, ln, reg := startCapped(t, httpOptions{maxConns: limit, readHeaderTimeout: time.Hour, writeTimeout: 10 * time.Second, idleTimeout: time.Hour})
	for range limit {
		keepAlive(t, dial(t, srv.Addr()))
	}
	code, err := healthz(srv.Addr())
	if err != nil || code != http.StatusOK {
		t.Fatalf("/healthz with %d idle connections open: %d, %v; want 200", limit, code, err)
	}
	if got := testenv.Gathered(t, reg, "motifwatch_http_connections_shed_total"); got < 1 {
		t.Errorf("motifwatch_http_connections_shed_total = %v; want ≥ 1", got)
	}
	if _, peak := ln.counts(); peak > limit {
		t.Errorf("peak open connections %d; want at most %d", peak, limit)
	}
}

// TestCapConns: the HTTP connection cap is at most half the open-files
// limit, so that HTTP clients can never take the descriptors Kafka needs.
func TestCapConns(t *testing.T) {
	for _, c := range []struct {
		configured int
		nofile     uint64
		want       int
		lowered    bool
	}{
		{256, 1 << 20, 256, false},
		{256, 512, 256, false},
		{256, 511, 255, true},
		{256, 1024, 256, false},
		{5000, 1024, 512, true}, // a systemd service's default soft limit, had Go not raised it
		{256, 0, 256, false},    // unknown or unlimited
		{8, 3, 1, true},
	} {
		if got, lowered := capConns(c.configured, c.nofile); got != c.want || lowered != c.lowered {
			t.Errorf("capConns(%d, %d) = %d, %v; want %d, %v", c.configured, c.nofile, got, lowered, c.want, c.lowered)
		}
	}
	if limit, nofile, _ := httpConnCap(1 << 30); nofile > 0 && uint64(limit) > nofile/2 {
		t.Errorf("httpConnCap: %d connections under an open-files limit of %d", limit, nofile)
	}
}

package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// httpServer serves /metrics, /healthz (the process is alive) and /readyz
// (the pipeline is consuming: broker reachable, window rebuilt; otherwise
// 503 with the reason; 200 "degraded: <reasons>" when it consumes but is
// blind to part of its input, see degraded.go). It serves from the start of Run, before the
// brokers are reached. The endpoints only read: other methods than GET
// and HEAD get 405 with an Allow header (the mux's method patterns).
type httpServer struct {
	srv    *http.Server
	ln     net.Listener
	served chan error     // Serve's result, once it returns
	mux    *http.ServeMux // more pages: statuspage.go
}

// httpOptions are the server's limits (config.Metrics): at most maxConns
// connections open (httplimit.go), a request read within
// readHeaderTimeout, answered within writeTimeout, and a kept-alive
// connection closed after idleTimeout idle.
type httpOptions struct {
	maxConns                                     int
	readHeaderTimeout, writeTimeout, idleTimeout time.Duration
	// log receives the server's own errors (a failing Accept, a handler's
	// panic) at WARN; nil discards them.
	log *slog.Logger
}

func newHTTPServer(addr string, o httpOptions, reg prometheus.Registerer, gatherer prometheus.Gatherer, state func() (string, string)) (*httpServer, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	h, err := newHTTPServerOn(ln, o, reg, gatherer, state)
	if err != nil {
		ln.Close()
	}
	return h, err
}

// newHTTPServerOn serves on ln (tests count its connections).
// state is the readiness state (stateReady, stateDegraded, stateNotReady)
// and its reasons.
func newHTTPServerOn(ln net.Listener, o httpOptions, reg prometheus.Registerer, gatherer prometheus.Gatherer, state func() (string, string)) (*httpServer, error) {
	if o.maxConns < 1 || o.readHeaderTimeout <= 0 || o.writeTimeout <= 0 || o.idleTimeout <= 0 {
		return nil, fmt.Errorf("http server: max connections %d, read header timeout %v, write timeout %v, idle timeout %v: each must be positive",
			o.maxConns, o.readHeaderTimeout, o.writeTimeout, o.idleTimeout)
	}
	m, err := newHTTPMetrics(reg)
	if err != nil {
		return nil, err
	}
	limited := newLimitListener(ln, o.maxConns, m)
	// Method patterns: GET also serves HEAD, and the mux answers other
	// methods with 405 and an Allow header. Register further pages the
	// same way ("GET /{$}" for a page at /): a method-less catch-all such
	// as "/" would take those requests from the 405.
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(gatherer, promhttp.HandlerOpts{}))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		st, why := state()
		w.Header().Set("Motifwatch-State", st)
		switch st {
		case stateNotReady:
			http.Error(w, "not ready: "+why, http.StatusServiceUnavailable)
		case stateDegraded:
			// Still consuming, so still ready for a probe that restarts
			// or routes (200), but a check that reads the body or the
			// header tells it from ready.
			w.Write([]byte("degraded: " + why + "\n"))
		default:
			w.Write([]byte("ready\n"))
		}
	})
	srv := &http.Server{Handler: mux,
		// The endpoints take no body: the whole request, not only its
		// headers, must arrive within readHeaderTimeout.
		ReadHeaderTimeout: o.readHeaderTimeout, ReadTimeout: o.readHeaderTimeout,
		WriteTimeout: o.writeTimeout, IdleTimeout: o.idleTimeout,
		ConnState: limited.connState,
	}
	if o.log != nil {
		srv.ErrorLog = slog.NewLogLogger(o.log.Handler(), slog.LevelWarn)
	} else {
		srv.ErrorLog = log.New(io.Discard, "", 0)
	}
	return &httpServer{srv: srv, ln: limited, served: make(chan error, 1), mux: mux}, nil
}

// Addr returns the address the server listens on (useful with port 0).
func (h *httpServer) Addr() string { return h.ln.Addr().String() }

// start serves in a goroutine that stop waits for.
func (h *httpServer) start() {
	go func() {
		err := h.srv.Serve(h.ln)
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		h.served <- err
		close(h.served)
	}()
}

// wait returns when serving fails (its error) or ctx ends (nil): the run
// group's HTTP actor.
func (h *httpServer) wait(ctx context.Context) error {
	select {
	case err := <-h.served:
		return err
	case <-ctx.Done():
		return nil
	}
}

// stop shuts the server down and waits for start's goroutine. It may be
// called more than once.
func (h *httpServer) stop(timeout time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	h.srv.Shutdown(ctx)
	for range h.served {
	}
}

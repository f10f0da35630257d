package daemon

import (
	"context"
	"errors"
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

// state is the readiness state (stateReady, stateDegraded, stateNotReady)
// and its reasons.
func newHTTPServer(addr string, gatherer prometheus.Gatherer, state func() (string, string)) (*httpServer, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
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
	return &httpServer{srv: &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}, ln: ln, served: make(chan error, 1), mux: mux}, nil
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

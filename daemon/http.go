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
// 503 with the reason).
type httpServer struct {
	srv *http.Server
	ln  net.Listener
	mux *http.ServeMux // more handlers: statuspage.go
}

func newHTTPServer(addr string, gatherer prometheus.Gatherer, ready func() (bool, string)) (*httpServer, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(gatherer, promhttp.HandlerOpts{}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if ok, why := ready(); !ok {
			http.Error(w, "not ready: "+why, http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte("ready\n"))
	})
	return &httpServer{srv: &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}, ln: ln, mux: mux}, nil
}

// Addr returns the address the server listens on (useful with port 0).
func (h *httpServer) Addr() string { return h.ln.Addr().String() }

func (h *httpServer) run() error {
	if err := h.srv.Serve(h.ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func (h *httpServer) stop(timeout time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	h.srv.Shutdown(ctx)
}

package daemon

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// TestHTTPMethods: the endpoints answer GET and HEAD; any other method
// gets 405 with an Allow header naming GET and HEAD, and no body of the
// endpoint (before, a POST to /readyz or /metrics was served like a GET).
func TestHTTPMethods(t *testing.T) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(prometheus.NewCounter(prometheus.CounterOpts{Name: "test_total", Help: "t"}))
	srv, err := newHTTPServer("127.0.0.1:0", httpOptions{maxConns: 8, readHeaderTimeout: 5 * time.Second, writeTimeout: 5 * time.Second, idleTimeout: time.Minute},
		reg, reg, func() (string, string) { return stateReady, "" })
	if err != nil {
		t.Fatal(err)
	}
	srv.start()
	defer srv.stop(time.Second)
	client := &http.Client{Timeout: 5 * time.Second}
	for _, path := range []string{"/metrics", "/healthz", "/readyz"} {
		for _, method := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch, http.MethodOptions} {
			req, _ := http.NewRequestWithContext(context.Background(), method, "http://"+srv.Addr()+path, strings.NewReader(""))
			resp, err := client.Do(req)
			if err != nil {
				t.Fatalf("%s %s: %v", method, path, err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			switch method {
			case http.MethodGet, http.MethodHead:
				if resp.StatusCode != http.StatusOK {
					t.Errorf("%s %s = %d; want 200", method, path, resp.StatusCode)
				}
				if method == http.MethodGet && len(body) == 0 {
					t.Errorf("GET %s: empty body", path)
				}
			default:
				if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD" {
					t.Errorf("%s %s = %d, Allow %q; want 405, Allow \"GET, HEAD\"", method, path, resp.StatusCode, resp.Header.Get("Allow"))
				}
				if strings.Contains(string(body), "test_total") || strings.Contains(string(body), "ready") {
					t.Errorf("%s %s served the endpoint: %q", method, path, body)
				}
			}
		}
	}
	// Unknown paths stay 404.
	resp, err := client.Get("http://" + srv.Addr() + "/nope")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /nope = %d; want 404", resp.StatusCode)
	}
}

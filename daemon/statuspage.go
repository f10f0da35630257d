package daemon

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/motifwatch/motifwatch/alerts"
)

//go:embed statuspage/status.html
var statusPageFS embed.FS

// statusRefresh is how often the status page reloads itself, in seconds.
const statusRefresh = 2

// statusPage is parsed on first use, not at every command's start (the
// batch commands link this package too); the daemon's tests render it.
var statusPage = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("status.html").Funcs(template.FuncMap{
		"join":  func(s []string) string { return strings.Join(s, ", ") },
		"span":  timeSpan,
		"nodes": alerts.NodesText,
	}).ParseFS(statusPageFS, "statuspage/status.html"))
})

// statusHandlers serve the status page at / (server-rendered HTML that
// reloads itself, no external assets) and its data at /api/status.
func statusHandlers(b *statusBoard) (page, api http.HandlerFunc) {
	page = func(w http.ResponseWriter, r *http.Request) {
		s := b.snapshot()
		var buf bytes.Buffer
		err := statusPage().Execute(&buf, struct {
			S         Status
			Uptime    string
			WindowMiB string
			Refresh   int
		}{s, s.Now.Sub(s.Started).Truncate(time.Second).String(), fmt.Sprintf("%.1f", float64(s.Ingest.WindowBytes)/(1<<20)), statusRefresh})
		if err != nil {
			http.Error(w, "rendering the status page: "+err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.Write(buf.Bytes())
	}
	api = func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.Encode(b.snapshot())
	}
	return page, api
}

// handleStatus registers the status page and its JSON on the server's mux.
func (h *httpServer) handleStatus(b *statusBoard) {
	page, api := statusHandlers(b)
	h.mux.HandleFunc("GET /{$}", page)
	h.mux.HandleFunc("GET /api/status", api)
}

// timeSpan renders two ISO-8601 times compactly: "2026-01-02 03:04:05 →
// 03:05:00" (the second's date only when it differs; fractions kept).
func timeSpan(first, last string) string {
	fd, ft, ok1 := strings.Cut(strings.TrimSuffix(first, "Z"), "T")
	ld, lt, ok2 := strings.Cut(strings.TrimSuffix(last, "Z"), "T")
	if !ok1 || !ok2 {
		return first + " → " + last
	}
	if fd == ld {
		return fd + " " + ft + " → " + lt
	}
	return fd + " " + ft + " → " + ld + " " + lt
}

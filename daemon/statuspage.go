package daemon

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"encoding/json"
	"html/template"
	"net/http"
	"sync"
)

// The console: one HTML page with its style and script inlined (no CDN,
// no build step), rendered from /api/status's JSON by the script, which
// then keeps it current by fetching the JSON again in place.
//
//go:embed statuspage/status.html statuspage/console.css statuspage/console.js
var statusPageFS embed.FS

// statusPage is the parsed page and its Content-Security-Policy, made on
// first use, not at every command's start (the batch commands link this
// package too). The policy lets only the page's own script and style run
// (by hash) and fetch only from the daemon: were a hostile id ever to
// reach the page as markup, it could not run.
var statusPage = sync.OnceValue(func() statusPageAssets {
	read := func(name string) string {
		b, err := statusPageFS.ReadFile("statuspage/" + name)
		if err != nil {
			panic(err) // embedded at build time: cannot fail
		}
		return string(b)
	}
	js, css := read("console.js"), read("console.css")
	hash := func(s string) string {
		h := sha256.Sum256([]byte(s))
		return "'sha256-" + base64.StdEncoding.EncodeToString(h[:]) + "'"
	}
	return statusPageAssets{
		tmpl: template.Must(template.New("status.html").Parse(read("status.html"))),
		js:   template.JS(js), css: template.CSS(css),
		csp: "default-src 'none'; script-src " + hash(js) + "; style-src " + hash(css) +
			"; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'self'",
	}
})

type statusPageAssets struct {
	tmpl *template.Template
	js   template.JS
	css  template.CSS
	csp  string
}

// statusHandlers serve the console at / (the page with the current
// status as its first data) and the status at /api/status.
func statusHandlers(b *statusBoard) (page, api http.HandlerFunc) {
	page = func(w http.ResponseWriter, r *http.Request) {
		initial, err := json.Marshal(b.snapshot())
		if err != nil {
			http.Error(w, "encoding the status: "+err.Error(), http.StatusInternalServerError)
			return
		}
		p := statusPage()
		var buf bytes.Buffer
		if err := p.tmpl.Execute(&buf, struct {
			Initial string
			JS      template.JS
			CSS     template.CSS
		}{string(initial), p.js, p.css}); err != nil {
			http.Error(w, "rendering the status page: "+err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Content-Security-Policy", p.csp)
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Write(buf.Bytes())
	}
	api = func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		enc := json.NewEncoder(w)
		if !r.URL.Query().Has("compact") { // the console asks for it compact; people read it indented
			enc.SetIndent("", "  ")
		}
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

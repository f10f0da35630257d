package config

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/motifwatch/motifwatch/motif"
)

// QueryWatcher hot-reloads the query files of a Config. Every
// queries.reload_interval it re-reads queries.files and compares their
// contents by hash (so a Kubernetes ConfigMap's symlink swap is seen as
// well as an edit in place), and acts on new contents once they read the
// same on two consecutive checks (a file caught half-written is not taken
// for an edit). When they changed and the new set of queries
// is valid (every file parses and validates, names are unique across files
// and queries.inline, and Config.Schema accepts the set), it calls onChange
// with the full new set; if onChange accepts it (returns nil), that set is
// in effect. An invalid set, or one onChange refuses, is logged with its
// errors (file, line, field) and ignored: the previous set stays in effect
// until the files change again.
//
// onChange runs on the polling goroutine (Run's, or Poll's caller). It is
// where the daemon compiles the set
// against its window (whose attribute columns are fixed at start) and
// swaps its queries for the next batch; its error rejects the set.
type QueryWatcher struct {
	// Settled, if set, is told the outcome of every poll that acted on
	// changed files, on the polling goroutine: ReloadApplied (onChange
	// took the new set, or the files changed but not the queries),
	// ReloadRejected with the reason (the files do not parse or validate,
	// or onChange refused the set: the previous set stays in effect), or
	// ReloadRestored (the files are back to the set in effect after a
	// rejected change). The daemon counts reloads and keeps its
	// query_reload_rejected condition with it. Set it before Run.
	Settled func(result string, err error)

	cfg      *Config
	logger   *slog.Logger
	onChange func([]*motif.Query) error
	interval time.Duration

	mu      sync.Mutex
	current []*motif.Query

	// pollMu serialises polls (Run's and Poll's) and guards the
	// fingerprints.
	pollMu  sync.Mutex
	applied string // fingerprint of the files of the set in effect
	last    string // fingerprint of the files last examined
	seen    string // fingerprint of the files at the previous poll
}

// Reload outcomes, as QueryWatcher.Settled reports them.
const (
	ReloadApplied  = "applied"
	ReloadRejected = "rejected"
	ReloadRestored = "restored"
)

func (w *QueryWatcher) settled(result string, err error) {
	if w.Settled != nil {
		w.Settled(result, err)
	}
}

// NewQueryWatcher loads the current queries of cfg (files and inline), which
// Queries then returns, and prepares to watch the files. It fails when the
// current set is invalid. A nil logger discards the log.
func NewQueryWatcher(cfg *Config, logger *slog.Logger, onChange func([]*motif.Query) error) (*QueryWatcher, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	w := &QueryWatcher{cfg: cfg, logger: logger, onChange: onChange, interval: cfg.Queries.ReloadInterval}
	if w.interval <= 0 {
		w.interval = DefaultConfig().Queries.ReloadInterval
	}
	files := w.read()
	qs, err := w.check(files)
	if err != nil {
		return nil, err
	}
	w.current = qs
	w.applied = fingerprint(files)
	w.last, w.seen = w.applied, w.applied
	return w, nil
}

// Queries returns the set of queries in effect.
func (w *QueryWatcher) Queries() []*motif.Query {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.current
}

// Run watches the query files until ctx is done, then returns nil. With no
// query files it only waits for ctx.
func (w *QueryWatcher) Run(ctx context.Context) error {
	if len(w.cfg.Queries.Files) == 0 {
		<-ctx.Done()
		return nil
	}
	t := time.NewTicker(w.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			w.Poll()
		}
	}
}

// Poll re-reads the query files once, as Run does every
// reload_interval, and applies a changed, valid set: new contents are
// acted on at the second consecutive Poll that reads them alike. It
// returns once onChange, if called, has answered.
func (w *QueryWatcher) Poll() {
	w.pollMu.Lock()
	defer w.pollMu.Unlock()
	files := w.read()
	fp := fingerprint(files)
	if fp != w.seen {
		// Act on contents that read the same twice in a row, not on a
		// file caught half-written by an editor or a copy.
		w.seen = fp
		return
	}
	if fp == w.last {
		return
	}
	w.last = fp
	if fp == w.applied {
		w.logger.Info("query files are back to the set in effect", "files", w.cfg.Queries.Files)
		w.settled(ReloadRestored, nil)
		return
	}
	qs, err := w.check(files)
	if err != nil {
		w.logger.Error("query reload rejected; the previous queries stay in effect", "err", err)
		w.settled(ReloadRejected, err)
		return
	}
	old := w.Queries()
	if reflect.DeepEqual(old, qs) {
		w.applied = fp
		w.logger.Debug("query files changed; the queries did not")
		w.settled(ReloadApplied, nil)
		return
	}
	if err := w.onChange(qs); err != nil {
		w.logger.Error("query reload rejected by the daemon; the previous queries stay in effect", "err", err)
		w.settled(ReloadRejected, err)
		return
	}
	w.applied = fp
	w.mu.Lock()
	w.current = qs
	w.mu.Unlock()
	added, removed, changed := diffQueries(old, qs)
	w.logger.Info("queries reloaded", "queries", len(qs),
		"added", added, "removed", removed, "changed", changed)
	w.settled(ReloadApplied, nil)
}

func (w *QueryWatcher) read() []queryFile { return w.cfg.readQueryFiles() }

// check parses files (with the inline queries) into a set and checks it.
func (w *QueryWatcher) check(files []queryFile) ([]*motif.Query, error) {
	qs, where, err := w.cfg.parseQueries(files)
	if err != nil {
		return nil, err
	}
	if _, err := w.cfg.schema(qs, where); err != nil {
		return nil, err
	}
	return qs, nil
}

// fingerprint identifies the contents of files (or why they could not be
// read).
func fingerprint(files []queryFile) string {
	var b strings.Builder
	for _, f := range files {
		b.WriteString(f.path)
		b.WriteByte(0)
		if f.err != nil {
			b.WriteString("error: " + f.err.Error())
		} else {
			sum := sha256.Sum256(f.data)
			b.WriteString(hex.EncodeToString(sum[:]))
		}
		b.WriteByte(0)
	}
	return b.String()
}

// diffQueries names the queries added, removed and changed from old to new.
func diffQueries(old, new []*motif.Query) (added, removed, changed []string) {
	before := make(map[string]*motif.Query, len(old))
	for _, q := range old {
		before[q.Name] = q
	}
	after := make(map[string]bool, len(new))
	for _, q := range new {
		after[q.Name] = true
		switch p, ok := before[q.Name]; {
		case !ok:
			added = append(added, q.Name)
		case !reflect.DeepEqual(p, q):
			changed = append(changed, q.Name)
		}
	}
	for _, q := range old {
		if !after[q.Name] {
			removed = append(removed, q.Name)
		}
	}
	return added, removed, changed
}

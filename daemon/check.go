package daemon

import (
	"errors"

	"github.com/motifwatch/motifwatch/config"
	"github.com/motifwatch/motifwatch/gpm"
	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/window"
)

// Check is everything the daemon checks of a configuration before it
// starts, and what `monitor validate` reports: config's own Check
// (every rule, the queries, the window schema) and the values that the
// engines own, which config holds as plain values because it imports no
// engine (gpm.app and gpm.k, checked against package gpm). Every error
// names the field, the value and where it came from, as config's do; all
// are reported, joined. The queries and schema are valid only when the
// error is nil.
func Check(cfg *config.Config) ([]*motif.Query, window.Schema, error) {
	queries, schema, err := cfg.Check()
	if gerr := checkGPM(cfg); gerr != nil {
		return nil, window.Schema{}, errors.Join(err, gerr)
	}
	return queries, schema, err
}

// checkGPM checks the snapshot job's app and size against the gpm engine
// (only when the job is on, as config checks the rest of the section).
func checkGPM(cfg *config.Config) error {
	g := &cfg.GPM
	if g.Every <= 0 {
		return nil
	}
	app, err := gpm.ParseApp(g.App)
	if err != nil {
		return cfg.FieldError("gpm.app", "%q (want %s or %s)", g.App, gpm.Clique, gpm.Motif)
	}
	if err := (gpm.Job{App: app, K: g.K}).Validate(); err != nil {
		hi := gpm.MaxCliqueK
		if app == gpm.Motif {
			hi = gpm.MaxMotifK
		}
		return cfg.FieldError("gpm.k", "%d out of range for %s (want 2 to %d)", g.K, g.App, hi)
	}
	return nil
}

// Package config holds the configuration of the streaming daemon
// (`monitor run`): its defaults, loading from YAML with environment
// overrides, strict decoding, validation, the queries it names, and their
// hot reload.
//
// A configuration starts from DefaultConfig; Load overlays a YAML file and
// MONITOR_<SECTION>_<KEY> environment variables (MONITOR_KAFKA_BROKERS,
// MONITOR_WINDOW_ALLOWED_LATENESS, ...), rejecting unknown keys with their
// file and line. Validate then checks every rule and reports all broken
// ones, each naming the field, the value and the limit, and where the value
// came from (file:line or the environment variable). Warnings lists what
// is allowed but unsafe (TLS without certificate checks, SASL plain in
// clear text, a password in a file others can read), for `monitor
// validate` and the daemon's log.
//
// Queries come from query files (motif's YAML format) and from inline
// mappings in the config file; LoadQueries reads both, Schema derives the
// window's attribute columns from the config and the queries, and
// WindowSpan the history the daemon must keep. QueryWatcher re-reads the
// query files while the daemon runs and hands over each new valid set.
//
// Config holds plain values: where a value's valid range is an engine's
// to say (gpm.app, gpm.k), daemon.Check checks it against the engine,
// with errors located as Validate's (FieldError).
//
// Package config imports motif and window (to parse queries into motif's
// query model, which holds no engine, and describe the window schema),
// alerts for its Mode type and leaf helpers under internal/; never kafka,
// ingest, the daemon or an engine (gpm, gpu, engine, stream, motif/cpu,
// motif/count3, motif/oracle), directly or through its dependencies
// (internal/layering checks it): those read a Config, not the other way
// round.
package config

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
// Package config imports motif and window (to parse queries and describe
// the window schema), and alerts for its Mode type; never kafka, cu,
// ingest or the engines: those read a Config, not the other way round.
package config

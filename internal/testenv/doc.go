// Package testenv is the harness of motifwatch's process-level tests: a
// long-running service (the daemon) run in the test's process until the
// test ends, /metrics scraped and waited on, free loopback ports, a log
// buffer safe for concurrent writers, and polling with a deadline. The
// tests of cmd/monitor, deploy, daemon and config use it instead of each
// writing its own.
//
// It imports nothing of the module (only the standard library and
// Prometheus's client: internal/layering checks that packages under
// internal/ are leaves), so any package's tests may use it (the daemon's
// own tests included); the Kafka side (brokers,
// producing, reading topics and offsets) is kafka/kafkatest, and
// helpers that need the daemon stay with the tests that use them. Nothing
// but tests imports it (internal/layering checks).
package testenv

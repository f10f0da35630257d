// Package deploy holds what operators deploy motifwatch with (container
// images, a compose trial, Prometheus rules, the Grafana dashboard, the
// Helm chart and a systemd unit: README.md's "Deploying" section names each),
// and the tests that keep it honest. It has no Go API.
//
// The tests check that every PromQL expression in the rules and the
// dashboard parses and names only series the daemon registers, and, where
// a prometheus binary is installed, that a real Prometheus scrapes the
// daemon's ingest and match series, and, where helm is installed, that
// the chart renders the configuration, probes and resources it promises.
package deploy

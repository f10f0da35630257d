// Package deploy holds what operators deploy motifwatch with, and the
// tests that keep it honest. It has no Go API; the folder holds:
//
//	Dockerfile, Dockerfile.cuda  container images, CPU and CUDA builds (context: the repository root)
//	compose.yaml, compose/       a laptop trial: KRaft Kafka, the daemon, a demo feed, Prometheus, Grafana
//	prometheus/rules.yaml        recording and alerting rules
//	grafana/motifwatch.json      the dashboard
//	grafana/provisioning/        Grafana provisioning for the compose trial
//	helm/motifwatch/             the Helm chart (ci/gpu-values.yaml: GPU values)
//	systemd/motifwatch.service   a unit for bare-metal (GPU) hosts
//
// The tests check that every PromQL expression in the rules and the
// dashboard parses and names only series the daemon registers, and, where
// a prometheus binary is installed, that a real Prometheus scrapes the
// daemon's ingest and match series, and, where helm is installed, that
// the chart renders the configuration, probes and resources it promises.
package deploy

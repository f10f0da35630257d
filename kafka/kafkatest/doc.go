// Package kafkatest is the Kafka side of motifwatch's tests: brokers in
// the test's process (an embedded one for a test's lifetime, a kfake
// cluster that can stop and start again on its port, keeping its data,
// and kfake clusters with TLS or SASL, with a self-signed certificate to
// serve), producing edge records and raw messages the way an outside
// producer would, and reading a topic, the alert log, log start, end and
// a group's committed offsets back. The tests of cmd/monitor, daemon and
// kafka's external tests use it instead of each writing its own. Only
// kafka's and cmd/monitor's tests also use kafka-go and kfake directly,
// where they play a part of the outside world that this package does not
// offer (a fault injected into the broker, a topic with settings of its
// own); every other test reaches Kafka through this package
// (internal/layering checks it), for which it also offers a group
// member's reader, a group's member count and the broker errors a fake
// answers with.
//
// It lives under kafka because it speaks Kafka (the layering
// test allows a Kafka client there only); nothing but tests imports it,
// which the layering test checks too. internal/testenv is its
// counterpart for the daemon and /metrics.
package kafkatest

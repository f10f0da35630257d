// Package feed turns the project's edge sources into Kafka records: a
// window loaded from an edge file (`monitor produce FILE`, the tests and
// `monitor bench`) and synth's demo feed (`monitor produce --demo` and
// the daemon's demo mode). It sits above kafka so that kafka, which
// speaks the protocol, knows neither window nor synth: kafka.Produce
// takes records, and this package makes them.
//
// Package feed imports kafka, window and synth; nothing below the daemon
// and the commands imports it.
package feed

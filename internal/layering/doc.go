// Package layering holds no code, only tests of the import graph:
//   - the packages that compute (window, motif, gpm, gpu, engine, synth,
//     ingest, stream, alerts, config) and the batch runners (mine,
//     gpmrun) never reach a network client;
//   - only the commands import the runners (mine, gpmrun, bench);
//   - Kafka's client libraries are imported by kafka alone (and its test
//     harness kafkatest); among tests, only those of kafka and cmd/monitor
//     import them (the end-to-end tests play the outside world: an
//     injected broker fault, a TLS or SASL cluster); every other test,
//     the daemon's included, reaches Kafka through kafkatest;
//   - only tests import a test harness (kafkatest, internal/testenv);
//   - kafka imports neither config, window nor synth: its options are its
//     own, the daemon translates the configuration, and package feed
//     makes records from a window or the demo feed;
//   - config imports no engine (gpm, gpu, engine, stream, motif/cpu,
//     motif/count3, motif/oracle), directly or not: it holds plain values;
//   - motif, the query language config parses into, holds no engine: it
//     and its tests import none, and none of its types has a Mine method;
//   - packages under internal/ are leaves: neither they nor their tests
//     import a package of the module outside internal/.
//
// The rules live in tests because a single import can break them and the
// compiler does not mind.
package layering

// Package bench is `monitor bench` without the command line: it measures
// the daemon's streaming path. Run produces N edges (an edge file, or the
// synthetic generator) into a fresh topic on a broker (an embedded one by
// default), runs the daemon's own pipeline (daemon.Run, with the given
// configuration) on them, and returns a Report: edges per second, batch
// latency percentiles, and the time each stage took.
//
// It talks to Kafka through package kafka only, may read the edge file
// and the configuration, and writes notes to Options.Log; it formats no
// report (the command prints Report as a table or JSON) and owns no
// flags or exit statuses.
package bench

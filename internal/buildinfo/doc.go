// Package buildinfo says which build of motifwatch is running: its
// version, the VCS revision it was built from (and whether the tree had
// uncommitted changes), the commit time and the Go version, read from the
// binary's build information, so a plain `go build` or `go install` in a
// checkout carries them without flags. `monitor --version`, the daemon's
// start log line, motifwatch_build_info and the status page show it.
package buildinfo

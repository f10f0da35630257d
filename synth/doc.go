// Package synth generates deterministic synthetic temporal graphs that
// look like message networks such as SNAP's CollegeMsg: power-law node
// activity, replies (back-and-forth), triadic closures and bursts. The
// README's first command mines one, so the project can be tried without
// any data set; tests and benchmarks use it for inputs of any size.
//
// Package synth only produces edges; it imports window and nothing above it.
package synth

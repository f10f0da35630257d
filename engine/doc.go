// Package engine builds the miner a backend (internal/backend) names, for
// the daemon, `monitor mine` and `monitor gpm`: the temporal engine (CPU or
// GPU, both wrapped in motif/count3's SNAP-shape counter, the GPU one
// falling back to the CPU per query) and the static GPM engine. It owns
// the choice and the auto fallback; package gpu only drives devices.
//
// Package engine imports the engines (motif, motif/count3, gpu, gpm), the
// window and internal/backend; never config or kafka: the daemon and the
// commands hand it a backend and options.
package engine

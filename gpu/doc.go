// Package gpu runs the temporal-motif engine on NVIDIA GPUs through the
// CUDA driver API (gorgonia.org/cu). It is built with the `cuda` build
// tag; without it the package keeps the same API and reports that no
// device is usable, so callers fall back to the CPU engine.
package gpu

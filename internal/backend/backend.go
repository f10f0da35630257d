// Package backend names the mining backends (cpu, gpu, auto) once, for
// config's engine.backend, the --backend flags of `monitor mine`, `gpm`
// and `bench`, and the daemon. It is a leaf: building the engine a backend
// names is engine's job.
package backend

import "fmt"

// Backend is a mining backend as a user names it.
type Backend string

const (
	// CPU mines on the host's cores.
	CPU Backend = "cpu"
	// GPU mines on CUDA devices; no usable device is an error.
	GPU Backend = "gpu"
	// Auto mines on the GPU when a device is usable, else on the CPU
	// with a warning.
	Auto Backend = "auto"
)

// Names lists the valid names, in the order messages give them.
func Names() []string { return []string{string(CPU), string(GPU), string(Auto)} }

// Parse returns the backend s names, or an error that lists the valid
// names: `"tpu": want cpu, gpu or auto`.
func Parse(s string) (Backend, error) {
	switch b := Backend(s); b {
	case CPU, GPU, Auto:
		return b, nil
	}
	return "", fmt.Errorf("%q: want %s, %s or %s", s, CPU, GPU, Auto)
}

// String returns the name.
func (b Backend) String() string { return string(b) }

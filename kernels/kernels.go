// Package kernels holds the CUDA C sources of motifwatch's GPU engines and
// the PTX built from them, embedded so that the binary needs no nvcc where
// it runs: the driver JIT-compiles the PTX for the device at start.
//
// After editing a .cu, regenerate its .ptx with `go generate ./kernels`
// and commit both: the go:generate lines below run scripts/nvcc.sh, CUDA
// 11.8's nvcc that scripts/cuda-toolkit.sh fetches into third_party/ (no
// GPU needed; ARCHITECTURE.md, "Building the CUDA parts").
package kernels

import _ "embed"

//go:generate ../scripts/nvcc.sh -ptx -arch=sm_90 -O3 -lineinfo temporal.cu -o temporal.ptx
//go:generate ../scripts/nvcc.sh -ptx -arch=sm_90 -O3 -lineinfo gpm.cu -o gpm.ptx
//go:generate ../scripts/nvcc.sh -ptx -arch=sm_90 -O3 -lineinfo count3.cu -o count3.ptx

// TemporalPTX is kernels/temporal.ptx: device window maintenance and the
// plan-interpreting temporal-motif miner.
//
//go:embed temporal.ptx
var TemporalPTX string

// GPMPTX is kernels/gpm.ptx: DuMato-style static GPM (clique and motif
// counting, one warp per traversal; pattern-aware cliques). ptxas
// -arch=sm_90 -v: gpmRun 48 registers (launch bounds: 10 blocks of 128 per
// multiprocessor), gpmCliquePA 48, gpmMoveExt 32, gpmZero 22; 3808 B
// shared in the two miners; no spills.
//
//go:embed gpm.ptx
var GPMPTX string

// Count3PTX is kernels/count3.ptx: the centre pass of motif/count3
// (SNAP's 36 three-edge motifs: the two-node and star cells). ptxas
// -arch=sm_90 -v: count3Centres 56 registers, 416 B stack; no spills.
//
//go:embed count3.ptx
var Count3PTX string

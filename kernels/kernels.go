// Package kernels holds the CUDA C sources of motifwatch's GPU engines and
// the PTX built from them, embedded so that the binary needs no nvcc where
// it runs: the driver JIT-compiles the PTX for the device at start.
//
// Each .cu names, at its top, the exact nvcc command that produced the
// .ptx beside it. Rebuild after editing a .cu with `make -C kernels` or the
// command in the file (scripts/cuda-toolkit.sh fetches CUDA 11.8's nvcc).
package kernels

import _ "embed"

// TemporalPTX is kernels/temporal.ptx: device window maintenance and the
// plan-interpreting temporal-motif miner.
//
//go:embed temporal.ptx
var TemporalPTX string

// GPMPTX is kernels/gpm.ptx: DuMato-style static GPM (clique and motif
// counting, one warp per traversal; pattern-aware cliques), built with
//
//	scripts/nvcc.sh -ptx -arch=sm_90 -O3 -lineinfo kernels/gpm.cu -o kernels/gpm.ptx
//
// (ptxas -arch=sm_90 -v: gpmRun 48 registers (launch bounds: 10 blocks of
// 128 per multiprocessor), gpmCliquePA 48, gpmMoveExt 32, gpmZero 22;
// 3808 B shared in the two miners; no spills).
//
//go:embed gpm.ptx
var GPMPTX string

// Count3PTX is kernels/count3.ptx: the centre pass of motif/count3
// (SNAP's 36 three-edge motifs: the two-node and star cells), built with
//
//	scripts/nvcc.sh -ptx -arch=sm_90 -O3 -lineinfo kernels/count3.cu -o kernels/count3.ptx
//
// (ptxas -arch=sm_90 -v: count3Centres 56 registers, 416 B stack; no
// spills).
//
//go:embed count3.ptx
var Count3PTX string

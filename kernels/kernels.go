// Package kernels holds the CUDA C sources of motifwatch's GPU engines, the
// PTX built from them and the machine code built from that PTX for sm_90
// (Hopper: the H100 and H200), all embedded so that the binary needs no
// nvcc where it runs.
//
// gpu loads a module's sm_90 code on a device of compute capability 9.x:
// no compile at start. Anywhere else, or if the driver refuses that code,
// it loads the PTX, which the driver compiles for the device at start
// (several seconds for temporal.ptx without a warm driver cache).
//
// After editing a .cu:
//   - regenerate its .ptx with `go generate ./kernels` (the go:generate
//     lines below run scripts/nvcc.sh, CUDA 11.8's nvcc that
//     scripts/cuda-toolkit.sh fetches into third_party/; no GPU needed);
//   - rebuild the sm_90 code with scripts/kernels-sm90.sh on a machine with
//     CUDA 13's ptxas and fatbinary (the GPU machines have them; CUDA
//     11.8's ptxas crashes on temporal.ptx), which rewrites *.sm_90.fatbin
//     and sm_90.sum;
//   - commit all of them. TestSM90UpToDate fails while sm_90.sum's hashes
//     of the .cu and .ptx files differ from the files: a stale binary
//     cannot pass CI.
//
// kernels/emu builds count3.cu's counting over the window (the c3*
// kernels) for the host with a C++ compiler and runs it one thread at a
// time in the device's launch order: gpu's TestCount3KernelsOnHost checks
// those kernels against motif/count3 where no device is. A change to the
// kernels' arguments or launch order in gpu/count3win_cuda.go goes into
// kernels/emu/count3emu.cpp too.
//
// The sm_90 code is a fatbin (a container the driver reads: ELF machine
// code, compressed), not a bare cubin: a cubin is an ELF file, which the
// CI refuses to see tracked (build outputs), and the fatbin is smaller.
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

// TemporalSM90 is kernels/temporal.sm_90.fatbin: TemporalPTX compiled for
// sm_90 (scripts/kernels-sm90.sh; registers and spills per kernel in
// BENCHMARKS.md).
//
//go:embed temporal.sm_90.fatbin
var TemporalSM90 string

// GPMPTX is kernels/gpm.ptx: DuMato-style static GPM (clique and motif
// counting, one warp per traversal; pattern-aware cliques). ptxas
// -arch=sm_90 -v: gpmRun 48 registers (launch bounds: 10 blocks of 128 per
// multiprocessor), gpmCliquePA 48, gpmMoveExt 32, gpmZero 22; 3808 B
// shared in the two miners; no spills.
//
//go:embed gpm.ptx
var GPMPTX string

// GPMSM90 is kernels/gpm.sm_90.fatbin: GPMPTX compiled for sm_90.
//
//go:embed gpm.sm_90.fatbin
var GPMSM90 string

// Count3PTX is kernels/count3.ptx: motif/count3's passes over the
// device's window mirror (c3*: layout, the centre sweep, triangle listing
// and counting) and the older centre pass over host-built sequences
// (count3Centres). ptxas -arch=sm_90 -v (CUDA 13.0): c3Triangles 56
// registers, 208 B stack; c3Sweep and count3Centres 56, 416 B stack; no
// spills.
//
//go:embed count3.ptx
var Count3PTX string

// Count3SM90 is kernels/count3.sm_90.fatbin: Count3PTX compiled for sm_90.
//
//go:embed count3.sm_90.fatbin
var Count3SM90 string

#!/usr/bin/env bash
# nvcc.sh runs the CUDA 11.8 nvcc fetched by scripts/cuda-toolkit.sh (the
# host compiler check is relaxed: only device code is compiled to PTX).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tk=$root/third_party/cuda-toolkit
gcc_bin=$(command -v gcc)
export PATH=$tk/usr/lib/nvidia-cuda-toolkit/bin:$tk/usr/bin:$PATH
exec nvcc -ccbin "$gcc_bin" -allow-unsupported-compiler "$@"

#!/usr/bin/env bash
# kernels-sm90.sh compiles kernels/*.ptx to sm_90 machine code with ptxas
# and wraps each in a compressed fatbin (kernels/*.sm_90.fatbin), then
# records in kernels/sm_90.sum the SHA-256 of every .cu and .ptx they were
# built from, of the fatbins, and the ptxas that built them
# (kernels.TestSM90UpToDate checks the hashes in CI). It needs CUDA 13's
# ptxas and fatbinary, which the GPU machines have (CUDA 11.8's ptxas
# crashes on temporal.ptx); the PTX itself comes from `go generate
# ./kernels`. ptxas is the driver's JIT's version, so the code is what the
# driver compiled from the same PTX at start before.
#
# Usage, from the repository root: scripts/kernels-sm90.sh [outdir]
#   outdir (default kernels/): where the fatbins, sm_90.sum and each
#   module's ptxas -v report (*.ptxas.txt) go; copy them to kernels/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(mkdir -p "${1:-$root/kernels}" && cd "${1:-$root/kernels}" && pwd)
PATH=$PATH:/usr/local/cuda/bin
cd "$root/kernels"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for m in temporal gpm count3; do
	ptxas -arch=sm_90 -O3 -v "$m.ptx" -o "$tmp/$m.cubin" 2>"$out/$m.ptxas.txt" &
done
wait
for m in temporal gpm count3; do
	[[ -s $tmp/$m.cubin ]] || { echo "ptxas failed on $m.ptx:"; cat "$out/$m.ptxas.txt"; exit 1; }
	fatbinary --create="$out/$m.sm_90.fatbin" -64 --compress-all --image3=kind=elf,sm=90,file="$tmp/$m.cubin"
done
{
	echo "# SHA-256 of the sources of kernels/*.sm_90.fatbin and of the fatbins (scripts/kernels-sm90.sh)"
	echo "# ptxas: $(ptxas --version | tail -1)"
	sha256sum temporal.cu temporal.ptx gpm.cu gpm.ptx count3.cu count3.ptx
	(cd "$out" && sha256sum temporal.sm_90.fatbin gpm.sm_90.fatbin count3.sm_90.fatbin)
} >"$out/sm_90.sum"
ls -l "$out"/*.sm_90.fatbin

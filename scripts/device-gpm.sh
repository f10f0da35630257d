#!/usr/bin/env bash
# device-gpm.sh runs the GPU static-GPM engine's checks (GPU = CPU on
# citeseer and random graphs) and benchmarks on a machine with a CUDA
# device, from a test binary built elsewhere:
#   source scripts/cuda-env.sh
#   go test -c -tags cuda -o bin/gpu.test ./gpu/
#   mkdir -p .devdata/static && cp ../shared/data/static/citeseer.edgelist .devdata/static/
# then, on the GPU machine, from the repository root:
#   scripts/device-gpm.sh [bin/gpu.test] [data dir, default .devdata]
# Logs go to $OUT (or ./device-out); the last lines are a summary table.
set -uo pipefail
bin=${1:-bin/gpu.test}
data=$(cd "${2:-.devdata}" && pwd)
out=${OUT:-device-out}
mkdir -p "$out"
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpm-gpu.txt"
cd gpu 2>/dev/null || true
MOTIFWATCH_DATA=$data timeout 150 "$bin" -test.run 'GPM' -test.v -test.count=1 >"$out/gpm-test.log" 2>&1
echo "tests (rc $?):"
grep -E '^(--- |PASS|FAIL|ok|panic)' "$out/gpm-test.log" | sed 's/^/  /'
grep -E 'gpm_cuda_test.go:[0-9]+: \{' "$out/gpm-test.log" | sed 's/^ */  /' | head -30
MOTIFWATCH_DATA=$data timeout 120 "$bin" -test.run '^$' -test.bench 'GPMCiteseer' -test.benchtime 3x >"$out/gpm-bench.log" 2>&1
echo "benchmarks (rc $?):"
printf '  %-40s %14s %14s %16s %8s\n' job ms/op subgraphs subgraphs/s moved
awk '/^BenchmarkGPMCiteseer/ {
	name=$1; sub(/^BenchmarkGPMCiteseer\//, "", name); sub(/-[0-9]+$/, "", name)
	ms=$3/1e6; sg=""; sps=""; mv=""
	for (i = 4; i < NF; i++) { if ($(i+1) == "subgraphs") sg=$i; if ($(i+1) == "subgraphs/s") sps=$i; if ($(i+1) == "moved") mv=$i }
	printf "  %-40s %14.2f %14s %16s %8s\n", name, ms, sg, sps, mv }' "$out/gpm-bench.log"

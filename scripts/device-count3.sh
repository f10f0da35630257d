#!/usr/bin/env bash
# device-count3.sh: one device call for the SNAP-shape counting on the
# device (issue 27 item 3). Builds the sm_90 fatbins from the committed
# PTX (scripts/kernels-sm90.sh, into $OUT/sm90), runs the count3 device
# tests, and times BenchmarkCount3Window on tgraphgen's 10M-edge graph
# (seed 1) against the host's counter and the centre pass over host-built
# sequences, in one process.
#
# Carried in .devcarry/ (git-excluded; run's carry: [".devcarry"]), built
# here:
#   gpu.test    go test -c -tags cuda -o .devcarry/gpu.test ./gpu/
#   tgraphgen   the generator of /work/data (DESIGN.md), linux/amd64
#   data/temporal/CollegeMsg.txt
# Usage (on the device): scripts/device-count3.sh [δ ...] (default 86400)
set -uo pipefail
out=${OUT:-/tmp/device-count3}
mkdir -p "$out"
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.max.sm --format=csv
date -u
(.devcarry/tgraphgen -edges 10000000 -seed 1 >/tmp/tg10m.txt) &
gen=$!
scripts/kernels-sm90.sh "$out/sm90" 2>&1 | tail -4
grep -A2 "c3Triangles\|c3Sweep" "$out/sm90/count3.ptxas.txt" | grep -E "registers|stack" | head -4
export MOTIFWATCH_DATA=$root/.devcarry/data
.devcarry/gpu.test -test.run "${TESTS:-Count3|ModulesLoadBothWays}" -test.v -test.count=1 >"$out/tests.log" 2>&1
rc=$?
grep -E "^(--- |ok|FAIL|PASS)|total|loaded" "$out/tests.log" | head -40
if [[ $rc != 0 ]]; then
	tail -30 "$out/tests.log"
	timeout 150 compute-sanitizer --tool memcheck .devcarry/gpu.test -test.run 'Count3DeviceWindowPieces' -test.count=1 2>&1 | tail -25
fi
wait $gen
for d in "${@:-86400}"; do
	MOTIFWATCH_COUNT3_GRAPH=/tmp/tg10m.txt MOTIFWATCH_COUNT3_DELTA=$d timeout 300 .devcarry/gpu.test -test.run '^$' \
		-test.bench "${BENCH:-Count3Window}" -test.benchtime ${BENCHTIME:-5x} -test.benchmem=false 2>&1 | tee -a "$out/bench.log" | grep -vE "^(goos|goarch|pkg|cpu):"
done
cd "$out" && tar czf results.tgz *.log sm90

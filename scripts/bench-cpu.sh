#!/usr/bin/env bash
# Measures the CPU-engine figures of BENCHMARKS.md: edges/s loaded,
# matches/s for Everest's M1, M4, M6, M10, M12 at delta = 86400 with 1 and 2
# workers, host bytes per window edge and peak RSS, on a 1M-edge graph from
# the shared tgraphgen tool. Usage: scripts/bench-cpu.sh [tgraphgen flags]
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${SHARED:-../shared}
out=${OUT:-${TMPDIR:-/tmp}/motifwatch-bench}
flags=${*:--edges 1000000 -seed 1 -mean-gap 250}
mkdir -p "$out"
go build -o "$out/monitor" ./cmd/monitor
graph="$out/tgraphgen$(echo "$flags" | tr -c 'a-z0-9' '_').txt"
[ -s "$graph" ] || (cd "$shared/tools/tgraphgen" && go run . $flags) > "$graph"
echo "graph: tgraphgen $flags ($(wc -l < "$graph") edges); machine: $(nproc) cores, $(uname -m); $(date -u +%F)"
for w in 1 2; do
	"$out/monitor" mine --graph "$graph" --motif M1,M4,M6,M10,M12 --delta 86400 \
		--workers "$w" --format json --progress 0 > "$out/w$w.json"
	echo "workers=$w:"
	grep -E '"(name|matches|seconds|load_seconds|edges|bytes_per_edge|peak_rss_bytes)"' "$out/w$w.json" | tr -d ' ,"' | paste -sd' ' | sed 's/name:/\n  /g'
	echo
done

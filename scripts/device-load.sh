#!/usr/bin/env bash
# device-load.sh measures batch loading on a many-core host (issue 14,
# goals 4 and 5) for both loaders: `monitor gpm` (static graph) and
# `monitor mine` (temporal window), cold and warm at GOMAXPROCS 1..16
# (scripts/bench-load.sh), and gpm's loader alone (BenchmarkLoadFile) on a
# 10M-edge tgraphgen file. It builds nothing; build on the dev machine:
#   go build -o bin/monitor ./cmd/monitor
#   go test -c -o bin/gpm.test ./gpm
#   (cd ../shared/tools/tgraphgen && go build -o "$OLDPWD/bin/tgraphgen" .)
# then, on the device machine, from the repository root (bin/ carried):
#   scripts/device-load.sh [PROCS...]     (default 1 2 4 8 16)
# Output goes to $OUT (or ./device-out): load-gpm.txt, load-mine.txt,
# load-gpm-bench.txt. Goals: cold < 3 s at 16 cores, >= 1.5x per doubling
# of cores up to 8, warm < 1 s, <= 64 host bytes per edge, peak RSS of
# mine <= 1.5 GB. Device time: ~1 minute to generate the file, ~2-3
# minutes of runs (REPEAT=3).
set -euo pipefail
procs=${*:-1 2 4 8 16}
out=${OUT:-device-out}
mkdir -p "$out"
graph=${GRAPH:-/tmp/tg10m.txt}
[ -s "$graph" ] || bin/tgraphgen -edges 10000000 -seed 1 > "$graph"
nproc
for cmd in gpm mine; do
	COMMAND=$cmd scripts/bench-load.sh bin/monitor "$graph" $procs 2>&1 | tee "$out/load-$cmd.txt"
done
cpus=$(echo $procs | tr ' ' ,)
GPM_LOAD_FILE=$graph bin/gpm.test -test.run '^$' -test.bench LoadFile -test.benchtime 3x \
	-test.cpu "$cpus" 2>&1 | tee "$out/load-gpm-bench.txt"

#!/usr/bin/env bash
# device-gpm.sh runs the GPU static-GPM engine's checks (GPU = CPU on
# citeseer and random graphs, both clique workflows) and the DuMato
# comparison rows on a machine with a CUDA device, from a test binary
# built elsewhere:
#   source scripts/cuda-env.sh
#   go test -c -tags cuda -ldflags=-s\ -w -o bin/gpu.test ./gpu/
#   mkdir -p .devdata/static && cp ../shared/data/static/{citeseer.edgelist,email-Eu-core.txt,ca-GrQc.txt} .devdata/static/
# then, on the GPU machine, from the repository root:
#   scripts/device-gpm.sh [bin/gpu.test] [data dir, default .devdata] [tests] [rows] [motif8] [balance]
# (tests, rows and motif8 when none is named; motif8 is the citeseer motif
# k=8 row, ~100 s on an H200, apart so that a quick check can leave it
# out). balance (not run yet: written when the device time had run out)
# times DM_WC against DM_OPT on the GPU, `monitor gpm --balance off|on`,
# on citeseer motifs and on tgraphgen snapshots (BENCHMARKS.md's CPU
# rows); it needs bin/monitor and bin/tgraphgen beside bin/gpu.test.
# Logs go to $OUT (or ./device-out); the last lines are one summary line
# per row: graph, app, k, clique workflow
# (pa: pattern-aware, dm: DuMato's literal filter-process; - for motifs),
# count, the best and mean GPU ms of the row's runs (the engine's Run:
# host preparation, copies, kernels), and ok (the count equals the
# reference: DESIGN.md's citeseer counts, the CPU engine's for citeseer
# motif 4, BENCHMARKS.md's CPU counts for email-Eu-core and ca-GrQc),
# unchecked (no reference: citeseer motif 8, ca-GrQc k=12), MISMATCH, or
# timeout. Device time on an H200: ~35 s of tests, ~55 s of rows (the
# literal ca-GrQc k=12 row stops at its 30 s timeout), ~100 s of motif8
# (timeout 120 s): ~3.5 minutes.
set -uo pipefail
bin=${1:-bin/gpu.test}
data=$(cd "${2:-.devdata}" && pwd)
shift $(($# < 2 ? $# : 2))
what=${*:-tests rows motif8}
out=${OUT:-device-out}
mkdir -p "$out"
out=$(cd "$out" && pwd)
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpm-gpu.txt"
cd gpu 2>/dev/null || true

# row GRAPH APP K VARIANT RUNS TIMEOUT: one benchmark process per row, so
# that a row past its timeout costs only itself.
row() {
	local graph=$1 app=$2 k=$3 v=$4 runs=$5 limit=$6
	local log=$out/gpm-row-$graph-$app-$k-$v.log
	MOTIFWATCH_DATA=$data timeout "$limit" "$bin" -test.run '^$' -test.bench "^BenchmarkGPMRows\$/^$graph\$/^$app\$/^k=$k\$/^$v\$" \
		-test.benchtime "${runs}x" -test.count=1 >"$log" 2>&1
	local rc=$?
	awk -v g="$graph" -v a="$app" -v k="$k" -v v="$v" -v rc="$rc" -v limit="$limit" '
		/^BenchmarkGPMRows\// { n=$2; mean=$3/1e6; for (i = 4; i < NF; i++) { if ($(i+1) == "best-ms") best=$i; if ($(i+1) == "subgraphs") sg=$i } }
		/GPU [0-9]+; want/ { bad=1 }
		END {
			status = "ok"
			if (rc == 124) status = "timeout (" limit " s)"
			else if (sg == "" || rc != 0 && !bad) status = "error (rc " rc ")"
			else if (bad) status = "MISMATCH"
			else if (unchecked) status = "unchecked"
			printf "  %-14s %-6s k=%-3s %-3s %16s %11s %11s  %s\n", g, a, k, v, (sg == "" ? "-" : sprintf("%.0f", sg)), (best == "" ? "-" : best), (mean == "" ? "-" : sprintf("%.3f", mean)), status
		}' unchecked="$([[ $graph/$app/$k == citeseer/motif/8 || $graph/$k == ca-GrQc/12 ]] && echo 1)" "$log"
}

for step in $what; do
	case $step in
	tests)
		MOTIFWATCH_DATA=$data timeout 150 "$bin" -test.run 'GPM' -test.v -test.count=1 >"$out/gpm-test.log" 2>&1
		echo "tests (rc $?):"
		grep -E '^(--- |PASS|FAIL|ok|panic)' "$out/gpm-test.log" | sed 's/^/  /'
		grep -E 'gpm_cuda_test.go:[0-9]+: ' "$out/gpm-test.log" | grep -v 'subgraphs, [0-9]* traversals' | sed 's/^ */  /' | head -30
		;;
	rows)
		echo "DuMato rows (balance on; GPU ms: best and mean of the runs):"
		printf '  %-14s %-6s %-5s %-3s %16s %11s %11s  %s\n' graph app k var count best-ms mean-ms check
		for k in 3 6 12; do
			for v in pa dm; do row citeseer clique $k $v 20 60; done
		done
		row citeseer motif 4 - 5 60
		row citeseer motif 5 - 3 60
		row citeseer motif 6 - 1 60
		for k in 8 12; do
			row email-Eu-core clique $k pa 3 60
			row email-Eu-core clique $k dm 1 40
		done
		for k in 11 12; do
			row ca-GrQc clique $k pa 1 60
			row ca-GrQc clique $k dm 1 30
		done
		;;
	motif8)
		row citeseer motif 8 - 1 120
		;;
	balance)
		# graph app k: the engine's seconds with balancing off and on.
		mon=$(dirname "$bin")/monitor tg=$(dirname "$bin")/tgraphgen
		[[ -f /tmp/tg10m.txt ]] || "$tg" -edges 10000000 -seed 1 >/tmp/tg10m.txt
		[[ -f /tmp/tg100k.txt ]] || "$tg" -edges 100000 -seed 1 >/tmp/tg100k.txt
		echo "DM_WC (--balance off) against DM_OPT (on), GPU seconds of the engine:"
		while read -r graph app k; do
			for b in off on; do
				timeout 120 "$mon" gpm --graph "$graph" --app "$app" -k "$k" --backend gpu --balance "$b" --format json \
					>"$out/bal-$(basename "$graph")-$app-$k-$b.json" 2>"$out/bal-$(basename "$graph")-$app-$k-$b.err"
				rc=$?
				python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print('  %-16s %-6s k=%-2s balance %-3s %16d subgraphs %10.3f s' % (sys.argv[2], r['app'], r['k'], sys.argv[3], r['total'], r['seconds']))" \
					"$out/bal-$(basename "$graph")-$app-$k-$b.json" "$(basename "$graph")" "$b" 2>/dev/null || echo "  $(basename "$graph") $app k=$k balance $b: rc $rc"
			done
		done <<-ROWS
			$data/static/citeseer.edgelist motif 5
			$data/static/citeseer.edgelist motif 6
			/tmp/tg10m.txt clique 3
			/tmp/tg10m.txt clique 4
			/tmp/tg100k.txt motif 3
			/tmp/tg100k.txt motif 4
		ROWS
		;;
	esac
done

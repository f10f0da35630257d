#!/usr/bin/env bash
# Measures batch loading (issue 14, goals 4 and 5): seconds to load an edge
# file with `monitor mine` (or, with COMMAND=gpm, `monitor gpm`), cold
# (parsed, --no-cache) and warm (from the binary cache), at GOMAXPROCS 1,
# 2, 4, 8, 16, with host bytes per edge (mine: of the window; gpm: of the
# deduplicated graph) and the peak RSS of the whole run (/usr/bin/time's %M
# and the process's own getrusage). It builds nothing.
#
# Usage: [COMMAND=mine|gpm] scripts/bench-load.sh BINARY GRAPH [PROCS...]
#   e.g. scripts/bench-load.sh bin/monitor /tmp/tg10m.txt 1 2 4 8 16
#        COMMAND=gpm scripts/bench-load.sh bin/monitor /tmp/tg10m.txt 1 2 4 8 16
# GRAPH from: (cd ../shared/tools/tgraphgen && go run . -edges 10000000 -seed 1) > /tmp/tg10m.txt
# Each figure is the best of REPEAT runs (default 3). The mining step is
# cheap and timed apart from loading in the JSON report: mine M1 at delta
# 1, gpm 2-cliques (the edges) on one worker.
set -euo pipefail
bin=${1:?usage: bench-load.sh BINARY GRAPH [PROCS...]}
graph=${2:?usage: bench-load.sh BINARY GRAPH [PROCS...]}
shift 2
procs=${*:-1 2 4 8 16}
repeat=${REPEAT:-3}
command=${COMMAND:-mine}
case $command in
mine) job=(--motif M1 --delta 1) ;;
gpm) job=(--app clique -k 2 --workers 1) ;;
*) echo "COMMAND=$command: want mine or gpm" >&2; exit 2 ;;
esac
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
echo "monitor $command; graph: $graph ($(wc -c < "$graph") bytes); machine: $(nproc) cores, $(uname -m); $(date -u +'%F %H:%M') UTC; best of $repeat"

# run MODE PROCS: prints "load_seconds bytes_per_edge peak_rss_MiB(time) cache"
run() {
	local mode=$1 p=$2 flags
	if [ "$mode" = cold ]; then flags=--no-cache; else flags="--cache $cache"; fi
	local out rss
	# Peak RSS from /usr/bin/time where it exists, else from the report's
	# own peak_rss_bytes (getrusage of the process: the same figure).
	local timer=()
	[ -x /usr/bin/time ] && timer=(/usr/bin/time -f 'RSS_KB %M')
	out=$(GOMAXPROCS=$p "${timer[@]}" "$bin" "$command" --graph "$graph" "${job[@]}" \
		--format json --progress 0 $flags 2>&1)
	rss=$(echo "$out" | sed -n 's/^RSS_KB //p')
	echo "$out" | tr -d ' ,"' | awk -F: -v rss="$rss" '
		/^load_seconds/ {l=$2} /^bytes_per_edge/ {b=$2} /^cache/ {c=$2} /^peak_rss_bytes/ {r=$2/1024}
		END {if (rss == "") rss = r; printf "%.3f %.1f %.0f %s\n", l, b, rss/1024, (c==""?"-":c)}'
}

best() { # best MODE PROCS: the run with the lowest load seconds
	local i line bestline=""
	for i in $(seq "$repeat"); do
		line=$(run "$1" "$2")
		if [ -z "$bestline" ] || awk -v a="${line%% *}" -v b="${bestline%% *}" 'BEGIN{exit !(a<b)}'; then
			bestline=$line
		fi
	done
	echo "$bestline"
}

printf '%-6s %-10s %12s %10s %14s %s\n' procs mode load_s B/edge peak_RSS_MiB cache
base_cold=""
for p in $procs; do
	cold=$(best cold "$p")
	run warm "$p" > /dev/null # writes the cache (first warm run after a change)
	warm=$(best warm "$p")
	base_cold=${base_cold:-${cold%% *}}
	for m in cold warm; do
		line=$cold
		[ $m = warm ] && line=$warm
		set -- $line
		printf '%-6s %-10s %12s %10s %14s %s\n' "$p" "$m" "$1" "$2" "$3" "$4"
	done
	awk -v a="$base_cold" -v b="${cold%% *}" -v p0="${procs%% *}" \
		'BEGIN{printf "       cold speed-up vs GOMAXPROCS=%s: %.2fx\n", p0, a/b}'
	rm -rf "${cache:?}"/*
done

#!/usr/bin/env bash
# Prices motif/count3's Small family (two-edge and two-node four-edge count
# queries) on the GPU backend: mined by the kernel (the default) against
# counted on the host's cores (--gpu-count-small-on-host), per query and
# δ, on one graph; and the CPU backend's counting beside them. Counts must
# agree (the script stops if not). It builds nothing: run it where the
# binary and the graph are (the H200 host, for the GPU rows).
#
# Usage: scripts/bench-small.sh BINARY GRAPH [DELTAS...]
#   e.g. scripts/bench-small.sh bin/monitor /tmp/tg10m.txt 600 3600 86400
# GRAPH from: (cd ../shared/tools/tgraphgen && go run . -edges 10000000 -seed 1) > /tmp/tg10m.txt
# BACKENDS (default "gpu-kernel gpu-count cpu") chooses the rows; each
# figure is the query's mining seconds from `mine --format json` (loading
# excluded), best of REPEAT runs (default 2).
set -euo pipefail
bin=${1:?usage: bench-small.sh BINARY GRAPH [DELTAS...]}
graph=${2:?usage: bench-small.sh BINARY GRAPH [DELTAS...]}
shift 2
deltas=${*:-600 3600 86400}
repeat=${REPEAT:-2}
backends=${BACKENDS:-gpu-kernel gpu-count cpu}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
declare -A queries=(
	[reply]='[A -> B, B -> A]'
	[relay]='[x -> hub, hub -> y]'
	[fan-out]='[hub -> x, hub -> y]'
	[round-trip-twice]='[A -> B, B -> A, A -> B, B -> A]'
)
echo "graph: $graph ($(wc -l < "$graph") lines); machine: $(nproc) cores; $(date -u +'%F %H:%M') UTC; best of $repeat"

# one BACKEND QUERY DELTA: prints "seconds matches"
one() {
	local flags=(--backend cpu)
	case $1 in
	gpu-kernel) flags=(--backend gpu) ;;
	gpu-count) flags=(--backend gpu --gpu-count-small-on-host) ;;
	esac
	printf 'queries:\n  - name: q\n    delta: %s\n    edges: %s\n' "$3" "${queries[$2]}" > "$dir/q.yaml"
	if ! "$bin" mine --graph "$graph" --query "$dir/q.yaml" "${flags[@]}" \
		--format json --progress 0 > "$dir/out.json" 2> "$dir/err.txt"; then
		echo "monitor mine ($1, $2, δ $3) failed:" >&2
		cat "$dir/err.txt" >&2
		return 1
	fi
	tr -d ' ,"' < "$dir/out.json" | awk -F: '/^seconds/ && !s {s=$2} /^matches/ {m=$2} END {print s, m}'
}

printf '%-8s %-18s %-11s %12s %18s\n' delta query backend seconds matches
for d in $deltas; do
	for q in "${!queries[@]}"; do
		want=""
		for b in $backends; do
			best=""
			for _ in $(seq "$repeat"); do
				out=$(one "$b" "$q" "$d") || exit 1
				read -r s m <<< "$out"
				if [ -n "$want" ] && [ "$m" != "$want" ]; then
					echo "counts differ: $q δ $d: $b $m, first backend $want" >&2
					exit 1
				fi
				want=$m
				if [ -z "$best" ] || awk -v a="$s" -v b="$best" 'BEGIN{exit !(a<b)}'; then best=$s; fi
			done
			printf '%-8s %-18s %-11s %12s %18s\n' "$d" "$q" "$b" "$best" "$want"
		done
	done
done

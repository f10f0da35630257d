#!/usr/bin/env bash
# Measures BENCHMARKS.md's "SNAP's 36 motifs counted" rows: whole-process
# wall and CPU (user+sys) seconds of `monitor mine --snap3` (counting, this
# checkout), of the general engine's --snap3 (BASE, a monitor built from an
# earlier commit; optional) and of SNAP's temporalmotifs (SNAP, built from
# its public source outside the repository; optional), alternating the
# programs within each repetition so load drifts hit all alike.
# Usage: SNAP=/tmp/snapbuild/examples/temporalmotifs/temporalmotifsmain \
#        BASE=/tmp/base/monitor REPS=3 scripts/bench-count3.sh GRAPH DELTA THREADS...
set -uo pipefail
graph=$1 delta=$2
shift 2
out=${OUT:-${TMPDIR:-/tmp}/motifwatch-count3}
mkdir -p "$out"
me=$out/monitor
(cd "$(dirname "$0")/.." && go build -o "$me" ./cmd/monitor) || exit 1
tm() { # label cmd...: one line "label wall cpu"
	local label=$1
	shift
	/usr/bin/time -f "$label %e %U %S" -o "$out/time" "$@" >"$out/stdout" 2>"$out/stderr" || { echo "$label failed: $(tail -1 "$out/stderr")"; return; }
	awk '{printf "%s wall %.2f cpu %.2f\n", $1, $2, $3 + $4}' "$out/time"
}
for th in "$@"; do
	for r in $(seq "${REPS:-3}"); do
		tm "count3-$th" "$me" mine --graph "$graph" --snap3 --delta "$delta" --workers "$th" --progress 0
		cp "$out/stdout" "$out/count3.grid"
		[ -n "${SNAP:-}" ] && tm "snap-$th" "$SNAP" -i:"$graph" -delta:"$delta" -nt:"$th" -o:"$out/snap.grid"
		[ -n "${BASE:-}" ] && [ "$r" -le "${BASEREPS:-1}" ] && tm "engine-$th" "$BASE" mine --graph "$graph" --snap3 --delta "$delta" --workers "$th" --progress 0
	done
done
if [ -n "${SNAP:-}" ]; then
	# SNAP splits tied instances between cells in its own order (DESIGN.md);
	# totals must agree.
	echo "totals: count3 $(tr ' ' '\n' <"$out/count3.grid" | paste -sd+ | bc) snap $(tr ' ' '\n' <"$out/snap.grid" | grep . | paste -sd+ | bc)"
fi

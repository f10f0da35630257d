#!/usr/bin/env bash
# Measures BENCHMARKS.md's "SNAP's 36 motifs counted" rows: whole-process
# wall and CPU (user+sys) seconds of `monitor mine --snap3` (counting, this
# checkout), its counting seconds (stars + pairs, triangles: the first
# query of each family, from --format json), and the same for the general
# BASE (a monitor built from an earlier commit: the general engine's
# --snap3 or an older counting path; optional) and for SNAP's
# temporalmotifs (SNAP, built from its public source outside the
# repository; optional), alternating the programs within each
# repetition so load drifts hit all alike; then the medians. BASE runs
# BASEREPS times (default 1).
#
# Usage: SNAP=/tmp/snapbuild/examples/temporalmotifs/temporalmotifsmain \
#        BASE=/tmp/base/monitor REPS=5 scripts/bench-count3.sh GRAPH DELTA THREADS...
# GRAPH is an edge file, or tgraphgen:N for `tgraphgen -edges N -seed 1`
# (written once to $OUT, this script's own folder: /tmp is shared;
# TGRAPHGEN names the binary, default bin/tgraphgen, else it is built
# from ../shared/tools/tgraphgen).
# MONITOR names a prebuilt monitor (default: built from this checkout).
#
# On the H200 host (binaries built here as scripts/device-gpu.sh says):
#   MONITOR=bin/monitor REPS=3 scripts/bench-count3.sh tgraphgen:10000000 86400 16
set -uo pipefail
graph=$1 delta=$2
shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-${TMPDIR:-/tmp}/motifwatch-count3}
mkdir -p "$out"
me=${MONITOR:-}
if [ -z "$me" ]; then
	me=$out/monitor
	(cd "$root" && go build -o "$me" ./cmd/monitor) || exit 1
fi
if [[ $graph == tgraphgen:* ]]; then
	n=${graph#tgraphgen:}
	graph=$out/tg$n.txt
	if [ ! -s "$graph" ]; then
		gen=${TGRAPHGEN:-$root/bin/tgraphgen}
		if [ ! -x "$gen" ]; then
			gen=$out/tgraphgen
			(cd "$root/../shared/tools/tgraphgen" && go build -o "$gen" .) || exit 1
		fi
		"$gen" -edges "$n" -seed 1 >"$graph" || exit 1
	fi
fi
results=$out/results
: >"$results"
# tm label cmd...: runs cmd, appends "label wall cpu" to results and prints
# it (bash's own timer: no /usr/bin/time needed on the device host).
tm() {
	local label=$1 rc
	shift
	{
		TIMEFORMAT='%R %U %S'
		time "$@" >"$out/stdout" 2>"$out/stderr"
	} 2>"$out/time"
	rc=$?
	[ $rc -eq 0 ] || { echo "$label failed (status $rc): $(tail -1 "$out/stderr")"; return 1; }
	awk -v l="$label" '{printf "%s %.3f %.3f\n", l, $1, $2 + $3}' "$out/time" | tee -a "$results"
}
# counting label: appends "label-count stars triangles total-cells" from the JSON report.
counting() {
	python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
fam = {}
for i, q in enumerate(r["queries"]):
    # The triangle cells of SNAP grid: M1,3 M1,4 M2,3 M2,4 M3,5 M3,6 M4,5
    # M4,6 (count3.Family); the rest are stars and two-node motifs.
    row, col = divmod(i, 6)
    f = "tri" if (row < 2 and col in (2, 3)) or (row in (2, 3) and col > 3) else "star"
    fam.setdefault(f, q["seconds"])
print("%s-count %.3f %.3f %d" % (sys.argv[2], fam.get("star", 0), fam.get("tri", 0), sum(map(sum, r["snap3"]))))
' "$out/stdout" "$1" | tee -a "$results"
}
for th in "$@"; do
	for r in $(seq "${REPS:-3}"); do
		tm "count3-$th" "$me" mine --graph "$graph" --snap3 --delta "$delta" --workers "$th" --progress 0 --format json && counting "count3-$th"
		[ -n "${SNAP:-}" ] && tm "snap-$th" "$SNAP" -i:"$graph" -delta:"$delta" -nt:"$th" -o:"$out/snap.grid" &&
			echo "snap-$th-cells $(awk '{for (i = 1; i <= NF; i++) s += $i} END {printf "%.0f", s}' "$out/snap.grid")" | tee -a "$results"
		[ -n "${BASE:-}" ] && [ "$r" -le "${BASEREPS:-1}" ] &&
			tm "base-$th" "$BASE" mine --graph "$graph" --snap3 --delta "$delta" --workers "$th" --progress 0 --format json && counting "base-$th"
	done
done
# Medians per label (wall, cpu; stars, triangles for -count lines). SNAP
# splits tied instances between cells in its own order (ARCHITECTURE.md),
# so only the totals of the cells are compared.
echo "==== medians of $(basename "$graph") delta $delta (seconds)"
python3 -c '
import sys, statistics as st
rows = {}
for line in open(sys.argv[1]):
    f = line.split()
    rows.setdefault(f[0], []).append(f[1:])
for label, vals in rows.items():
    if label.endswith("-cells"):
        print(label, "totals", sorted(set(v[0] for v in vals)))
        continue
    cols = list(zip(*vals))
    med = [st.median(float(x) for x in c) for c in cols[:2]]
    extra = " cells %s" % sorted(set(cols[2])) if len(cols) > 2 else ""
    names = ("stars", "triangles") if label.endswith("-count") else ("wall", "cpu")
    print("%-16s %s %.3f  %s %.3f%s  (n=%d)" % (label, names[0], med[0], names[1], med[1], extra, len(vals)))
' "$results"

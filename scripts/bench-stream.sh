#!/usr/bin/env bash
# bench-stream.sh measures the streaming path (issue 14 goal 1) with
# monitor bench on a host with a CUDA device: tgraphgen backlogs, 8
# partitions, batches of 100,000 / 100 ms, M1–M10 at δ 3600 in count
# mode, GPU and CPU backends, from a backlog (produced first) and paced
# at 1M edges/s (tg5m: five seconds of it); with the embedded broker in
# the daemon's process (as BENCHMARKS.md's earlier rows) and against a
# separate `monitor broker` process (the broker's CPU is then not the
# daemon's); the skewed 5M-edge backlog; one CPU profile.
#
# Build elsewhere, into a git-ignored folder that travels (carry it):
#   source scripts/cuda-env.sh
#   go build -tags cuda -ldflags=-s\ -w -o .devfetch/monitor ./cmd/monitor
#   (cd ../shared/tools/tgraphgen && go build -o "$OLDPWD/.devfetch/tgraphgen" .)
# then on the device, from the repository root:
#   BIN=.devfetch scripts/bench-stream.sh [steps]
# steps (default all): embedded external external-cpu skew
# Results: $OUT/results.jsonl (one bench report per line, with its name),
# $OUT/bench.err (stderr of every run), $OUT/*.pprof; a table last.
set -uo pipefail
out=${OUT:-device-out}
bin=${BIN:-bin}
mkdir -p "$out"
steps=${*:-embedded external external-cpu skew}
nproc
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
results=$out/results.jsonl
: >"$results"
common=(--partitions 8 --batch-size 100000 --batch-wait 100ms --format json --timeout 100s)

# bench NAME ARGS...: one monitor bench run, its report appended to
# results.jsonl under NAME.
bench() {
	local name=$1
	shift
	echo "== $name: monitor bench $*" >>"$out/bench.err"
	timeout 150 "$bin/monitor" bench "$@" >/tmp/run.json 2>>"$out/bench.err"
	local rc=$?
	python3 -c 'import json,sys; r=json.load(open("/tmp/run.json")); r["name"]=sys.argv[1]; r["rc"]=int(sys.argv[2]); print(json.dumps(r))' "$name" "$rc" >>"$results" 2>/dev/null ||
		echo "{\"name\": \"$name\", \"rc\": $rc}" >>"$results"
	echo "$name rc=$rc"
}

# 1M edges from a backlog (the baseline's graph); 5M paced at 1M/s (five
# seconds: enough batches for a p99) and as the skewed backlog.
[[ -f /tmp/tg1m.txt ]] || "$bin/tgraphgen" -edges 1000000 -seed 1 >/tmp/tg1m.txt
[[ -f /tmp/tg5m.txt ]] || "$bin/tgraphgen" -edges 5000000 -seed 1 >/tmp/tg5m.txt
for step in $steps; do
	case $step in
	embedded)
		bench gpu-backlog --file /tmp/tg1m.txt "${common[@]}" --backend gpu
		bench cpu-backlog --file /tmp/tg1m.txt "${common[@]}" --backend cpu --workers 16
		bench gpu-1m --file /tmp/tg5m.txt "${common[@]}" --backend gpu --rate 1000000
		bench cpu-1m --file /tmp/tg5m.txt "${common[@]}" --backend cpu --workers 16 --rate 1000000
		;;
	external | external-cpu)
		if [[ -z ${ext:-} ]]; then
			# Unlimited retention: its default (8MiB a partition) deletes a
			# backlog the daemon has not read yet.
			setsid "$bin/monitor" broker --port 19092 --retention-bytes 0 >"$out/broker.log" 2>&1 &
			sleep 2
			ext=(--brokers 127.0.0.1:19092)
		fi
		if [[ $step == external ]]; then
			bench gpu-backlog-ext --file /tmp/tg1m.txt "${common[@]}" "${ext[@]}" --backend gpu --cpuprofile "$out/gpu-backlog-ext.pprof"
			bench gpu-1m-ext --file /tmp/tg5m.txt "${common[@]}" "${ext[@]}" --backend gpu --rate 1000000
		else
			bench cpu-backlog-ext --file /tmp/tg1m.txt "${common[@]}" "${ext[@]}" --backend cpu --workers 16
			bench cpu-1m-ext --file /tmp/tg5m.txt "${common[@]}" "${ext[@]}" --backend cpu --workers 16 --rate 1000000
		fi
		;;
	skew)
		# The skewed backlog whose partitions run apart in event time (18%
		# of its records were late before event-time alignment).
		bench gpu-5m-backlog --file /tmp/tg5m.txt "${common[@]}" --backend gpu
		;;
	esac
done

echo
python3 - "$results" <<'EOF'
import json, sys
print("%-16s %3s %10s %7s %5s %6s %8s %8s  %s" % ("run", "rc", "edges/s", "batches", "late", "early", "p50 ms", "p99 ms", "stages s: fetch decode reorder window sync mine alert commit mine_wait"))
for line in open(sys.argv[1]):
    r = json.loads(line)
    if "edges_per_second" not in r:
        print("%-16s %3d failed" % (r["name"], r["rc"]))
        continue
    st = " ".join("%.2f" % s["seconds"] for s in r["stages"])
    print("%-16s %3d %10.0f %7d %5d %6d %8.1f %8.1f  %s%s" % (r["name"], r["rc"], r["edges_per_second"], r["batches"], r["late"] + r["dead_lettered"],
        r.get("released_early", 0), r["latency_p50_seconds"] * 1e3, r["latency_p99_seconds"] * 1e3, st, " PARTIAL" if r.get("partial") else ""))
EOF

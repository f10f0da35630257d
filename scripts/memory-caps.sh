#!/usr/bin/env bash
# memory-caps.sh [BINARY]: peak resident set of `monitor run` against the
# caps' memory budget (docs/CONFIG.md, "Memory"; issue 24 item 6), with 2
# million distinct node ids. A separate `monitor broker` holds the
# records, so the daemon's process holds only its own memory. For each
# load the backlog is produced first, then the daemon consumes it from
# a fresh group; the script polls /metrics until every record is
# counted and reads the daemon's VmHWM.
#
# Loads (2,000,000 edges at 300 edges/s of event time; the queries' δ of
# 1 h would keep ~1M edges, more than window.max_bytes allows):
#   ids      each edge brings a new node id (2M in all): window.max_bytes
#            128MiB and window.max_nodes 500000, max_buffered_bytes at its
#            default 256MiB
#   nodecap  the same with max_nodes 200000: 1.5M edges dead-lettered
#   skew     half the edges from one hub (one partition dense in event
#            time, the others run ahead and fill the reorder buffer)
# Without BINARY it builds ./cmd/monitor. Extra settings go through the
# environment (MONITOR_…). Prints one line per load: peak RSS, budget,
# their ratio, CPU seconds, wall seconds.
set -euo pipefail
bin=${1:-}
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
if [[ -z $bin ]]; then
	go build -o "$work/monitor" ./cmd/monitor
	bin=$work/monitor
fi
port=${BROKER_PORT:-19192}
mport=${METRICS_PORT:-19564}
"$bin" broker --port "$port" --retention-bytes 0 --topics "" >"$work/broker.log" 2>&1 &
for _ in $(seq 100); do grep -q listening "$work/broker.log" && break; sleep 0.1; done

gen() { # gen LOAD > file
	awk -v n=2000000 -v rate=300 -v load="$1" 'BEGIN {
		for (i = 0; i < n; i++) {
			d = i + 1 + (i * 7919) % 5000
			if (d >= n) d -= n
			if (load == "skew" && i % 2 == 0) printf "hub n%d %d\n", i, int(i / rate)
			else printf "n%d n%d %d\n", i, d, int(i / rate)
		}
	}'
}
metric() { curl -s "127.0.0.1:$mport/metrics" | awk -v re="^$1" '$0 ~ re { s += $2 } END { printf "%.0f", s }'; }

cat >"$work/queries.yaml" <<'Q'
queries:
  - {name: chain, delta: 1h, edges: [A -> B, B -> C]}
  - {name: triangle, delta: 1h, edges: [A -> B, B -> C, C -> A]}
Q
for load in ids nodecap skew; do
	topic=$load
	[[ $load == nodecap ]] && topic=ids
	if [[ ! -f $work/$topic.txt ]]; then
		gen "$topic" >"$work/$topic.txt"
		"$bin" produce --file "$work/$topic.txt" --brokers "127.0.0.1:$port" --topic "$topic" --partitions 4 --batch 10000 --progress 0 2>/dev/null
	fi
	nodes=500000
	[[ $load == nodecap ]] && nodes=200000
	cat >"$work/$load.yaml" <<C
kafka: {brokers: ["127.0.0.1:$port"], edge_topic: $topic, group: mem-$load-$RANDOM, partitions: 4}
input: {fields: {seq: seq}}
window: {max_bytes: 128MiB, max_nodes: $nodes}
queries: {files: [$work/queries.yaml]}
alerts: {mode: count}
metrics: {listen: "127.0.0.1:$mport"}
C
	start=$(date +%s)
	"$bin" run --config "$work/$load.yaml" >"$work/$load.log" 2>&1 &
	pid=$!
	until [[ $(metric motifwatch_pipeline_records_total) -ge 2000000 ]]; do
		kill -0 "$pid" 2>/dev/null || { echo "$load: monitor run exited early:" >&2; tail "$work/$load.log" >&2; exit 1; }
		sleep 1
	done
	budget=$(metric motifwatch_memory_budget_bytes)
	[[ $budget -gt 0 ]] || budget=$(grep -o 'memory budget.*budget_bytes=[0-9]*' "$work/$load.log" | grep -o '[0-9]*$' || echo 0)
	hwm=$(awk '/VmHWM/ { print $2 * 1024 }' "/proc/$pid/status")
	cpu=$(awk '{ print ($14 + $15) / 100 }' "/proc/$pid/stat")
	dead=$(metric 'motifwatch_pipeline_records_total\{outcome="dead_lettered"\}')
	kill "$pid"
	wait "$pid" || true
	printf '%-8s peak RSS %4.0f MiB, budget %4.0f MiB (%s), ratio %s, dead-lettered %d, CPU %.1f s, wall %d s\n' \
		"$load" "$(echo "$hwm / 1048576" | bc -l)" "$(echo "$budget / 1048576" | bc -l)" \
		"$(grep -o 'budget="[^"]*"' "$work/$load.log" | head -1)" \
		"$( [[ $budget -gt 0 ]] && echo "scale=2; $hwm / $budget" | bc || echo -)" "$dead" "$cpu" "$(($(date +%s) - start))"
done

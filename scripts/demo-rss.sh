#!/usr/bin/env bash
# demo-rss.sh BINARY SECONDS: runs `BINARY run` (the demo: embedded broker
# and feed) for SECONDS and prints its resident set size every 20 s, in MB.
# Extra settings go through the environment, e.g.
#   MONITOR_KAFKA_EMBEDDED_RETENTION_BYTES=4MiB scripts/demo-rss.sh /tmp/mon 300
set -euo pipefail
bin=${1:?usage: demo-rss.sh BINARY SECONDS}
secs=${2:-300}
MONITOR_METRICS_LISTEN=${MONITOR_METRICS_LISTEN:-127.0.0.1:0} "$bin" run >/dev/null 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null || true' EXIT
for ((t = 0; t <= secs; t += 20)); do
	kb=$(ps -o rss= -p "$pid") || { echo "monitor exited early" >&2; exit 1; }
	printf '%4ds %6.1f MB\n' "$t" "$(echo "$kb / 1024" | bc -l)"
	[ "$t" -lt "$secs" ] && sleep 20
done

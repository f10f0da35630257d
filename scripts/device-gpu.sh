#!/usr/bin/env bash
# device-gpu.sh runs the GPU engine's checks and benchmarks on a machine
# with a CUDA device, from binaries built elsewhere:
#   source scripts/cuda-env.sh
#   go build -tags cuda -ldflags=-s\ -w -o bin/monitor ./cmd/monitor
#   go test -c -tags cuda -ldflags=-s\ -w -o bin/gpu.test ./gpu/
#   (cd ../shared/tools/tgraphgen && go build -o ../../../main/bin/tgraphgen .)
#   mkdir -p .devdata/temporal && cp ../shared/data/temporal/CollegeMsg.txt .devdata/temporal/
# then, on the GPU machine, from the repository root:
#   scripts/device-gpu.sh [tests] [bench] [bench86400] [count3] [coldstart] [rows]
# The binaries embed kernels/*.sm_90.fatbin; after a .cu or .ptx changed,
# rebuild those on the GPU machine first (scripts/kernels-sm90.sh, CUDA 13's
# ptxas; docs/GPU.md), or the kernels test fails.
# Logs go to $OUT (or ./device-out); the last lines are a summary table.
set -uo pipefail
out=${OUT:-device-out}
mkdir -p "$out"
what=${*:-tests bench}
root=$(pwd)
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv | tee "$out/gpu.txt"
summary=$out/summary.txt
: >"$summary"
for step in $what; do
	case $step in
	tests)
		(cd gpu && MOTIFWATCH_DATA=$root/.devdata timeout 300 ../bin/gpu.test -test.run 'Plan|Encode|Kernel|Expand|Diff|College|Streaming|Skew|Modules|Count3|Batch' -test.v -test.count=1 2>&1) | tee "$out/gpu-test.log" | grep -E '^(---|===|ok|FAIL|PASS|panic)|matches|splits|totals' | tail -80
		grep -E '^(--- FAIL|--- PASS|PASS|FAIL)' "$out/gpu-test.log" >>"$summary"
		;;
	gpm)
		scripts/device-gpm.sh bin/gpu.test .devdata 2>&1 | tee -a "$summary" | tail -40
		;;
	variants)
		# The 10M-edge rows under the engine's options, one line each:
		# VARIANTS="name:--flag=V,--flag=V name2:..." (default below; the
		# kernel's thresholds are no flags: sweep them with a test binary).
		g=/tmp/tg10m.txt
		[[ -f $g ]] || bin/tgraphgen -edges 10000000 -seed 1 >"$g"
		for v in ${VARIANTS:-default: chunks4:--gpu-chunks=4}; do
			name=${v%%:*}
			flags=${v#*:}
			timeout 200 bin/monitor mine ${flags//,/ } --graph "$g" --motif ${MOTIFS:-M1,M2,M3,M4,M5,M6,M7,M8,M9,M10,M11,M12,M13} --delta ${DELTA:-3600} --backend gpu --format json \
				>"$out/var-$name.json" 2>"$out/var-$name.err"
			echo -n "variant $name (${flags:-defaults}, rc $?): " >>"$summary"
			python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(' '.join('%s=%d:%.1fms' % (q['name'], q['matches'], q['seconds']*1000) for q in r['queries']))" "$out/var-$name.json" >>"$summary" 2>/dev/null || echo "failed: $(tail -1 "$out/var-$name.err")" >>"$summary"
		done
		;;
	rows)
		# The kernel's threshold variants side by side (gpu's BenchmarkRows:
		# an engine per variant, alternating call by call, best of 3, counts
		# checked equal): ROWS_VARIANTS names gpu's rowVariants (the first
		# is the base of the ratios), on tg10m and the lighter-tailed
		# -zipf 0.6 graph of 10M edges.
		[[ -f /tmp/tg10m.txt ]] || bin/tgraphgen -edges 10000000 -seed 1 >/tmp/tg10m.txt
		[[ -f /tmp/z06-10m.txt ]] || bin/tgraphgen -edges 10000000 -seed 1 -zipf 0.6 >/tmp/z06-10m.txt
		for g in /tmp/tg10m.txt /tmp/z06-10m.txt; do
			(cd gpu && MOTIFWATCH_ROWS_GRAPH=$g MOTIFWATCH_ROWS_VARIANTS=${ROWS_VARIANTS:-default,expand2All,rankPick8} MOTIFWATCH_ROWS_MOTIFS=${MOTIFS:-M1,M2,M3,M4,M5,M6,M7,M8,M9,M10,M11,M12,M13} \
				timeout 200 ../bin/gpu.test -test.run '^$' -test.bench Rows -test.benchtime 1x -test.v 2>&1) | tee -a "$out/rows.log" | grep -vE '^(goos|goarch|pkg|cpu):' >>"$summary"
		done
		;;
	stream)
		g=/tmp/tg1m.txt
		[[ -f $g ]] || bin/tgraphgen -edges 1000000 -seed 1 >"$g"
		(cd gpu && MOTIFWATCH_DATA=$root/.devdata MOTIFWATCH_STREAM_GRAPH=$g timeout 300 ../bin/gpu.test -test.run '^$' -test.bench Streaming -test.benchtime 1x 2>&1) | tee "$out/stream.log" | grep -E 'Benchmark|ok|FAIL'
		grep -E '^Benchmark' "$out/stream.log" >>"$summary"
		;;
	bench)
		g=/tmp/tg10m.txt
		[[ -f $g ]] || bin/tgraphgen -edges 10000000 -seed 1 >"$g"
		timeout 200 bin/monitor mine --graph "$g" --motif M1,M2,M3,M4,M5,M6,M7,M8,M9,M10,M11,M12,M13 --delta 3600 --backend gpu --format json \
			>"$out/tg10m-3600.json" 2>"$out/tg10m-3600.err"
		echo "tgraphgen 10M delta 3600 (rc $?): $(tail -2 "$out/tg10m-3600.err" | tr '\n' ' ')" >>"$summary"
		python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(' '.join('%s=%d:%.1fms' % (q['name'], q['matches'], q['seconds']*1000) for q in r['queries']))" "$out/tg10m-3600.json" >>"$summary" 2>&1
		;;
	bench86400)
		g=/tmp/tg10m.txt
		[[ -f $g ]] || bin/tgraphgen -edges 10000000 -seed 1 >"$g"
		for m in ${MOTIFS86400:-M1 M4}; do
			timeout ${TIMEOUT86400:-60} bin/monitor mine --graph "$g" --motif "$m" --delta 86400 --backend gpu --format json \
				>"$out/tg10m-86400-$m.json" 2>"$out/tg10m-86400-$m.err"
			rc=$?
			echo -n "tgraphgen 10M delta 86400 $m (rc $rc): " >>"$summary"
			python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(' '.join('%s=%d:%.1fms' % (q['name'], q['matches'], q['seconds']*1000) for q in r['queries']))" "$out/tg10m-86400-$m.json" >>"$summary" 2>/dev/null || echo "timed out" >>"$summary"
		done
		;;
	college)
		for d in 3600 86400; do
			bin/monitor mine --graph .devdata/temporal/CollegeMsg.txt --motif M1,M4,M6 --delta $d --backend gpu --format json \
				>"$out/college-$d.json" 2>"$out/college-$d.err"
			echo -n "CollegeMsg delta $d: " >>"$summary"
			python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(' '.join('%s=%d:%.2fms' % (q['name'], q['matches'], q['seconds']*1000) for q in r['queries']))" "$out/college-$d.json" >>"$summary" 2>&1
		done
		;;
	count3)
		# SNAP's 36 motifs counted (motif/count3): device = CPU counters, then
		# the 10M-edge grid on the GPU and on the host CPU.
		(cd gpu && MOTIFWATCH_DATA=$root/.devdata timeout 300 ../bin/gpu.test -test.run 'Count3' -test.v -test.count=1 2>&1) | tee "$out/count3-test.log" | grep -E '^(---|ok|FAIL|PASS|panic)|total'
		grep -E '^(--- FAIL|--- PASS)' "$out/count3-test.log" >>"$summary"
		g=/tmp/tg10m.txt
		[[ -f $g ]] || bin/tgraphgen -edges 10000000 -seed 1 >"$g"
		for d in 3600 86400; do
			# gpudev: the device counter (off by default, --gpu-count3-on-device).
			for be in ${COUNT3_BACKENDS:-gpu gpudev cpu}; do
				b=${be%dev}
				dev=(); [[ $be == gpudev ]] && dev=(--gpu-count3-on-device)
				timeout 300 bin/monitor mine --graph "$g" --snap3 --delta $d --backend $b "${dev[@]}" --format json >"$out/snap3-$be-$d.json" 2>"$out/snap3-$be-$d.err"
				echo -n "snap3 tgraphgen 10M delta $d backend $be (rc $?): " >>"$summary"
				python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print('count %.3fs total %.2fs load %.2fs cells %d' % (r['queries'][0]['seconds'], r['seconds'], r['load_seconds'], sum(map(sum, r['snap3']))))" "$out/snap3-$be-$d.json" >>"$summary" 2>&1
			done
		done
		;;
	coldstart)
		# A start with no driver cache (CUDA_CACHE_DISABLE=1), to the first
		# launch and past it: whole `monitor mine` processes on CollegeMsg
		# (M1, delta 3600), fresh each; BASE=path/to/an/older/monitor runs it
		# alternately for comparison. Then each module's load from its sm_90
		# code and from its PTX (the driver's full compile), per module.
		for i in 1 2 3; do
			for b in bin/monitor ${BASE:-}; do
				t0=$(date +%s%N)
				CUDA_CACHE_DISABLE=1 $b mine --graph .devdata/temporal/CollegeMsg.txt --motif M1 --delta 3600 --backend gpu --format json --progress 0 \
					>"$out/cold.json" 2>"$out/cold.err"
				echo "cold start $b run $i (rc $?): $(( ($(date +%s%N) - t0) / 1000000 )) ms, $(grep -o 'kernels=.*' "$out/cold.err")" | tee -a "$summary"
			done
		done
		(cd gpu && CUDA_CACHE_DISABLE=1 timeout 120 ../bin/gpu.test -test.run 'TestModulesLoadBothWays' -test.v -test.count=1 2>&1) | grep -E 'loaded|opened|^--- ' | tee -a "$summary"
		;;
	gpmbench)
		(cd gpu && MOTIFWATCH_DATA=$root/.devdata timeout 90 ../bin/gpu.test -test.run '^$' -test.bench 'GPMCiteseer' -test.benchtime 1x 2>&1) | tee "$out/gpm-bench.log" | grep -E '^Benchmark' >>"$summary"
		;;
	esac
done
echo "==== summary"
cat "$summary"

#!/usr/bin/env python3
"""Per trace region: wall ms, goroutine running ms, utilisation of GOMAXPROCS,
and GC ranges (mark phase, mark assists, STW) inside it.
Usage: go tool trace -d=parsed TRACE | scripts/trace-regions.py GOMAXPROCS
(TRACE from `monitor mine --trace TRACE ...`; the loader marks its phases
as regions). Reads Go 1.22+ traces as `go tool trace -d=parsed` prints them."""
import re, sys, collections
procs = int(sys.argv[1])
regions = []  # (name, begin, end)
open_regions = {}
running = {}  # goid -> start
spans = []    # (start, end) running goroutine spans
ranges = collections.defaultdict(list)
open_ranges = {}
t0 = None
for line in sys.stdin:
    m = re.search(r' Time=(\d+)', line)
    if not m: continue
    t = int(m.group(1))
    if t0 is None: t0 = t
    if ' RegionBegin ' in line:
        name = re.search(r'Type="([^"]*)"', line).group(1); open_regions[name] = t
    elif ' RegionEnd ' in line:
        name = re.search(r'Type="([^"]*)"', line).group(1); regions.append((name, open_regions.pop(name, t), t))
    elif ' StateTransition ' in line and 'GoID=' in line:
        g = int(re.search(r'GoID=(\d+)', line).group(1))
        m2 = re.search(r' (\w+)->(\w+) ', line)
        if not m2: continue
        a, b = m2.groups()
        if b == 'Running': running[g] = t
        elif a == 'Running' and g in running: spans.append((running.pop(g), t))
    elif ' RangeBegin ' in line:
        name = re.search(r'Name="([^"]*)"', line).group(1)
        key = (name, re.search(r'Scope=(\S+)', line).group(1))
        open_ranges[key] = t
    elif ' RangeEnd ' in line:
        name = re.search(r'Name="([^"]*)"', line).group(1)
        key = (name, re.search(r'Scope=(\S+)', line).group(1))
        if key in open_ranges: ranges[name].append((open_ranges.pop(key), t))
def overlap(a, b, lo, hi):
    return max(0, min(b, hi) - max(a, lo))
print(f"{'region':22} {'start_ms':>8} {'wall_ms':>8} {'run_ms':>8} {'util':>5}  gc ranges (ms summed)")
for name, b, e in regions:
    run = sum(overlap(s, f, b, e) for s, f in spans)
    gc = {k: sum(overlap(s, f, b, e) for s, f in v) / 1e6 for k, v in ranges.items()}
    gc = ', '.join(f"{k}={v:.1f}" for k, v in sorted(gc.items()) if v > 0.05)
    print(f"{name:22} {(b-t0)/1e6:8.1f} {(e-b)/1e6:8.1f} {run/1e6:8.1f} {run/((e-b)*procs):5.2f}  {gc}")

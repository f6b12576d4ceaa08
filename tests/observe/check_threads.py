#!/usr/bin/env python3
"""Checks the files obs_threads.c left: every unit counts the puts of its
1000 threads that ended (statistics: count and bytes of "put" over both
paths, matrix row to its right neighbour; trace: one "put" event each).

Usage: check_threads.py <stats.json or -> <trace.json or -> <units>
"""
import json
import sys

stats, trace, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
THREADS = 1000
fails = []
if stats != "-":
    with open(stats) as f:
        st = json.load(f)
    if len(st["units_data"]) != n:
        fails.append("%d unit rows" % len(st["units_data"]))
    for row in st["units_data"]:
        u = row["unit"]
        c = sum(r[2] for r in row["ops"] if r[0] == "put")
        b = sum(r[3] for r in row["ops"] if r[0] == "put")
        if (c, b) != (THREADS, 4 * THREADS):
            fails.append("unit %d: put count %d bytes %d" % (u, c, b))
        trow = {t: (o, by) for t, o, by in row["targets"]}
        if trow.get((u + 1) % n) != (THREADS, 4 * THREADS):
            fails.append("unit %d: matrix row %r" % (u, trow))
if trace != "-":
    with open(trace) as f:
        tr = json.load(f)
    per = {}
    for e in tr["traceEvents"]:
        if e.get("ph") == "X" and e.get("name") == "put":
            per[e["pid"]] = per.get(e["pid"], 0) + 1
    if per != {u: THREADS for u in range(n)}:
        fails.append("trace put events per unit %r" % per)
for m in fails:
    print("FAIL: " + m)
print("check_threads: %s (%d units)" % ("FAILED" if fails else "ok", n))
sys.exit(1 if fails else 0)

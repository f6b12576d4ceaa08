#!/usr/bin/env python3
"""Checks the DART_STATS and DART_TRACE files of obs_prog.c (run_obs_test.sh).

Usage: check_obs.py <stats.json> <trace.json> <units> <path: shm|mpi>
Every unit made exactly: 100 puts of 8 bytes to its right neighbour on the
given path, one flush, 10 allreduces, 3 barriers, one lock acquire and one
release; its matrix row is exactly {right: 100 ops, 800 bytes}. The trace
is valid JSON with the same calls per unit, one row (pid) per unit, and
the end times of each unit's events never go back.
"""
import json
import sys

stats_file, trace_file, n, path = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
fails = []


def want(cond, msg):
    if not cond:
        fails.append(msg)


expect = {
    ("put", path): (100, 800),
    ("flush", path): (1, 0),
    ("allreduce", "-"): (10, 0),
    ("barrier", "-"): (3, 0),
    ("lock_acquire", "-"): (1, 0),
    ("lock_release", "-"): (1, 0),
}

with open(stats_file) as f:
    st = json.load(f)
want(st["format"] == "dart-stats-1", "format %r" % st.get("format"))
want(st["units"] == n, "units %r, want %d" % (st["units"], n))
want(len(st["units_data"]) == n, "%d unit rows" % len(st["units_data"]))
for u, row in enumerate(st["units_data"]):
    want(row["unit"] == u, "row %d is unit %r" % (u, row["unit"]))
    got = {(k, p): (c, b) for k, p, c, b, ns in row["ops"]}
    want(got == expect, "unit %d ops %r, want %r" % (u, got, expect))
    for k, p, c, b, ns in row["ops"]:
        want(ns >= 0, "unit %d %s negative time" % (u, k))
        if k in ("allreduce", "barrier", "lock_acquire"):
            want(ns > 0, "unit %d %s took no time" % (u, k))
    right = (u + 1) % n
    want(row["targets"] == [[right, 100, 800]],
         "unit %d targets %r, want [[%d, 100, 800]]" % (u, row["targets"], right))
    want(row["other"] == [0, 0], "unit %d other %r" % (u, row["other"]))

with open(trace_file) as f:
    tr = json.load(f)
events = [e for e in tr["traceEvents"] if e.get("ph") == "X"]
names = {e["pid"]: e["args"]["name"] for e in tr["traceEvents"]
         if e.get("ph") == "M" and e["name"] == "process_name"}
want(names == {u: "unit %d" % u for u in range(n)}, "process names %r" % names)
for u in range(n):
    mine = [e for e in events if e["pid"] == u]
    count = {}
    for e in mine:
        count[(e["name"], e["cat"])] = count.get((e["name"], e["cat"]), 0) + 1
    want(count == {k: v[0] for k, v in expect.items()},
         "unit %d trace calls %r" % (u, count))
    puts = [e for e in mine if e["name"] == "put"]
    want(all(e["args"]["target"] == (u + 1) % n and e["args"]["bytes"] == 8
             for e in puts), "unit %d put events target/bytes" % u)
    want(all(e["args"].get("wait") == "collective"
             for e in mine if e["name"] == "allreduce"),
         "unit %d allreduce wait reason" % u)
    last = None
    for e in mine:
        want(e["dur"] >= 0, "unit %d negative duration" % u)
        end = round((e["ts"] + e["dur"]) * 1000)
        want(last is None or end >= last, "unit %d end times go back" % u)
        last = end

if fails:
    for m in fails[:20]:
        print("FAIL:", m)
    sys.exit(1)
print("observe: stats and trace exact on %d unit(s), path %s" % (n, path))

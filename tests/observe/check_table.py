#!/usr/bin/env python3
"""Checks the DART_STATS file of obs_table.c (see there for the pattern).

Usage: check_table.py <stats.json> <units>
"""
import json
import sys

path, n = sys.argv[1], int(sys.argv[2])
with open(path) as f:
    st = json.load(f)
fails = []
want_ops = {("put", "mpi"): (600, 3 * sum(range(1, 201))),
            ("get", "shm"): (200, 400)}
want_row = {u: (3 + (2 if u < 100 else 0), 3 * (u + 1) + (4 if u < 100 else 0))
            for u in range(200)}
if st.get("format") != "dart-stats-1" or len(st["units_data"]) != n:
    fails.append("format %r, %d rows" % (st.get("format"), len(st["units_data"])))
for row in st["units_data"]:
    got = {(k, p): (c, b) for k, p, c, b, ns in row["ops"]}
    if got != want_ops:
        fails.append("unit %d ops %r, want %r" % (row["unit"], got, want_ops))
    trow = {t: (o, b) for t, o, b in row["targets"]}
    if trow != want_row:
        bad = sorted(set(trow.items()) ^ set(want_row.items()))[:6]
        fails.append("unit %d matrix row differs: %r" % (row["unit"], bad))
    if row["other"] != [0, 0]:
        fails.append("unit %d other %r" % (row["unit"], row["other"]))
for m in fails:
    print("FAIL: " + m)
print("check_table: %s (%d units)" % ("FAILED" if fails else "ok", n))
sys.exit(1 if fails else 0)

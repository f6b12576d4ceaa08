"""report_observe.py - the statistics section of docs/benchmarks.md: the
cost of the DART_STATS hooks (bench/bench_onesided.c --ab) and the
communication matrix of one program run with DART_STATS on
(scripts/dart_stats_plot.py; both written by scripts/bench.sh).

Result files in one MPI's directory:
  obs_ab_sim<S>_<K>.csv   bench_onesided --ab, run K (S=1: DART_SIM_NODE_SIZE=1)
  obs_nh_sim<S>_<K>.csv   the same program built with DART_OBSERVE_HOOKS=OFF,
                          run right after run K (full mode only)
  obs_<prog>-matrix.png, obs_<prog>-ops.png   the plots, obs_<prog>.txt the
                          program's name and units
"""
import os
import shutil

from report_fmt import md_header, splice_section

# Markers around the section (scripts/bench.sh --observe-only rewrites only
# what is between them).
BEGIN = "<!-- statistics: begin -->"
END = "<!-- statistics: end -->"

# Limits of issue 25 on the ratio stats on / stats off (same run).
ON_LIMIT = {"node": 1.10, "rma": 1.03}


def _median(xs):
    xs = sorted(xs)
    n = len(xs)
    if n == 0:
        return None
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def _runs(res, prefix):
    """{(path, op): [row of run 1, row of run 2, ...]} of one file family."""
    out = {}
    for key in sorted(res.data):
        if not key.startswith(prefix):
            continue
        for r in res.data[key]:
            out.setdefault((r["path"], r["op"]), []).append((key, r))
    return out


def _cell(med, lo, hi):
    if med is None:
        return "-"
    return "%.3f [%.3f, %.3f]" % (med, lo, hi)


def ab_rows(res):
    """One dict per (path, op): times, on/off and off/no-hooks ratios."""
    rows = []
    for sim in (0, 1):
        hooks = _runs(res, "obs_ab_sim%d_" % sim)
        nohooks = _runs(res, "obs_nh_sim%d_" % sim)
        for (path, op), runs in hooks.items():
            on_off = [r["ratio"] for _, r in runs]
            row = {"path": path, "op": op, "runs": len(runs),
                   "off": _median([r["off_ns"] for _, r in runs]),
                   "on": _median([r["on_ns"] for _, r in runs]),
                   "on_off": _median(on_off),
                   # several runs: the range of their medians (a preempted
                   # round makes a run's own extremes meaningless); one
                   # run: its rounds' range
                   "on_lo": min(on_off) if len(runs) > 1 else runs[0][1]["ratio_min"],
                   "on_hi": max(on_off) if len(runs) > 1 else runs[0][1]["ratio_max"],
                   "nh": None, "off_nh": None}
            # off / no hooks: run K of each build, alternating processes
            nh = {k.rsplit("_", 1)[1]: r for k, r in nohooks.get((path, op), [])}
            pairs = [r["off_ns"] / nh[k.rsplit("_", 1)[1]]["off_ns"]
                     for k, r in runs if k.rsplit("_", 1)[1] in nh]
            if pairs:
                row["nh"] = _median([r["off_ns"] for r in nh.values()])
                row["off_nh"] = _median(pairs)
                row["nh_lo"], row["nh_hi"] = min(pairs), max(pairs)
            rows.append(row)
    return rows


def _method(nruns):
    return (
        "`bench/bench_onesided --ab`, 2 units: each operation timed in "
        "alternating batches with the statistics counting and not "
        "counting (the flag the hooks test, switched between batches of "
        "one process); per round the best of 3 batches of each, then the "
        "median over the rounds of the per-round ratio. %d run(s) per "
        "path; times and ratios are medians over the runs, in brackets "
        "the range of the runs' medians (with one run: the range over "
        "its rounds). *No hooks*: the same program linked with a DART "
        "built with `-DDART_OBSERVE_HOOKS=OFF`, run alternately with the "
        "normal build; off / no hooks is the ratio of the off times of "
        "the runs made one after the other (separate processes, so it "
        "carries the run-to-run noise). node: the units' own node "
        "(load/store); rma: `DART_SIM_NODE_SIZE=1` (MPI RMA).\n" % nruns)


def cost_table(res):
    """The A/B cost table of one MPI (Markdown lines)."""
    rows = ab_rows(res)
    if not rows:
        return ["_not run_\n"]
    out = md_header("path", "operation", "off ns", "on ns",
                    "on / off [range]", "limit", "no hooks ns",
                    "off / no hooks [range]")
    for r in rows:
        lim = ON_LIMIT[r["path"]]
        on_cell = _cell(r["on_off"], r["on_lo"], r["on_hi"])
        if r["on_off"] > lim:
            on_cell += " **over**"
        nh = ("%.2f" % r["nh"], _cell(r["off_nh"], r["nh_lo"], r["nh_hi"])) \
            if r["off_nh"] is not None else ("-", "not run (quick mode)")
        out.append("| %s | %s | %.2f | %.2f | %s | %.2f | %s | %s |" % (
            r["path"], r["op"], r["off"], r["on"], on_cell, lim, nh[0],
            nh[1]))
    out.append("")
    return out


def section_observe(results, docs):
    """The whole section for every MPI (with its markers)."""
    out = [BEGIN, "## Statistics (DART_STATS): cost and communication "
           "matrix (issue 25)\n"]
    meta = results[0].meta
    out.append("Measured %s, DART commit %s, %s mode, load average %s before "
               "and %s after (`scripts/bench.sh --observe-only` refreshes "
               "this section alone; docs/profiling.md explains the hooks).\n"
               % (meta.get("date", "?"), meta.get("commit", "?"),
                  meta.get("mode", "?"), meta.get("load_before", "?"),
                  meta.get("load_after", "?")))
    nruns = max([r["runs"] for res in results for r in ab_rows(res)] or [0])
    if nruns:
        out.append(_method(nruns))
    for res in results:
        out.append("### Cost of the hooks (%s)\n" % res.mpi)
        out += cost_table(res)
        out += matrix_figures(res, docs)
    out.append(END)
    return "\n".join(out) + "\n"


def splice_observe(md, results, docs):
    """--observe-only: rewrites the section in the report at md and copies
    its CSV files to docs/bench."""
    splice_section(md, section_observe(results, docs), BEGIN, END)
    for res in results:
        for key in res.data:
            if key.startswith("obs_"):
                shutil.copy(os.path.join(res.dir, key + ".csv"),
                            os.path.join(docs, "bench",
                                         "%s_%s.csv" % (res.mpi, key)))


def matrix_figures(res, docs):
    """The heat map and operation bars of the program run with DART_STATS."""
    pngs = sorted(f for f in os.listdir(res.dir)
                  if f.startswith("obs_") and f.endswith("-matrix.png"))
    if not pngs:
        return ["_No program was run with DART_STATS on._\n"]
    out = []
    for m in pngs:
        stem = m[:-len("-matrix.png")]
        what = stem
        txt = os.path.join(res.dir, stem + ".txt")
        if os.path.exists(txt):
            with open(txt) as f:
                what = f.read().strip()
        out.append("Communication matrix and operations of %s with "
                   "`DART_STATS` on (`scripts/dart_stats_plot.py`; rows: "
                   "the unit that issued the operation, columns: its "
                   "target):\n" % what)
        for part in ("matrix", "ops"):
            src = os.path.join(res.dir, "%s-%s.png" % (stem, part))
            if not os.path.exists(src):
                continue
            fname = "%s_%s_%s.png" % (res.mpi, stem, part)
            shutil.copy(src, os.path.join(docs, "bench", fname))
            out.append("![%s %s](bench/%s)" % (stem, part, fname))
        out.append("")
    return out

#!/usr/bin/env python3
"""report.py - turns the results of scripts/bench.sh into docs/benchmarks.md,
docs/bench/*.csv and docs/bench/*.png.

    report.py --results DIR --docs DOCS_DIR

DIR holds one sub-directory per MPI (openmpi, mpich) with meta.txt
(key=value lines written by bench.sh) and the CSV files of the benchmark
programs; lines starting with '#' in a CSV are key=value annotations.
Every comparison is a ratio of two variants measured in the same process
run; targets are printed next to the measured ratio and never adjusted.
"""
import argparse
import csv
import os
import shutil

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from report_dash import dash_targets, section_dash, splice  # noqa: E402
from report_fmt import fmt_ratio, fmt_t, md_header  # noqa: E402
from report_fmt import save_fig, splice_section  # noqa: E402
from report_scale import BEGIN as SCALE_BEGIN  # noqa: E402
from report_scale import END as SCALE_END  # noqa: E402
from report_scale import scale_logs, section_scale  # noqa: E402
from report_observe import section_observe, splice_observe  # noqa: E402
from report_targets import (TARGET_NOTES, evaluate_targets,  # noqa: E402
                            overhead_fit)

KIB = 1024


def read_csv(path):
    """Returns (annotations, rows) of one benchmark CSV, or ({}, [])."""
    meta, lines = {}, []
    if not os.path.exists(path):
        return meta, []
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                key, _, val = line[1:].strip().partition("=")
                meta[key] = val
            elif line.strip():
                lines.append(line)
    rows = []
    for r in csv.DictReader(lines):
        rows.append({k: _num(v) for k, v in r.items()})
    return meta, rows


def _num(v):
    for conv in (int, float):
        try:
            return conv(v)
        except (TypeError, ValueError):
            pass
    return v


def read_meta(path):
    meta = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                key, sep, val = line.rstrip("\n").partition("=")
                if sep:
                    meta[key] = val
    return meta


def fmt_size(m):
    if m >= 1 << 20:
        return "%d MiB" % (m >> 20)
    if m >= KIB:
        return "%d KiB" % (m >> 10)
    return "%d B" % m


def index(rows, *keys):
    """Maps tuple(row[k] for k in keys) -> row."""
    return {tuple(r[k] for k in keys): r for r in rows}


class Result:
    """All results of one MPI."""

    def __init__(self, mpi, d):
        self.mpi = mpi
        self.dir = d
        self.meta = read_meta(os.path.join(d, "meta.txt"))
        self.ann = {}
        self.data = {}
        for name in sorted(os.listdir(d)):
            if name.endswith(".csv"):
                ann, rows = read_csv(os.path.join(d, name))
                key = name[:-4]
                self.ann[key] = ann
                self.data[key] = rows

    def rows(self, key):
        return self.data.get(key, [])

    def prefixed(self, prefix):
        """Rows of every CSV whose name starts with prefix (e.g. gups_np)."""
        return [r for k in sorted(self.data) if k.startswith(prefix)
                for r in self.data[k]]

    def rma(self, path):
        return index(self.rows("rma_" + path), "op", "size", "variant")


# ---------------------------------------------------------------- one-sided
RMA_VARIANTS = [("dart", "DART"), ("mpi", "MPI"),
                ("mpi_rma", "MPI RMA (Win_create)"), ("memcpy", "memcpy/CPU"),
                ("call", "library call"), ("shmem", "OpenSHMEM")]


def rma_table(res, path, op):
    """Markdown table of one operation over message sizes."""
    idx = res.rma(path)
    sizes = sorted({s for (o, s, _v) in idx if o == op})
    if not sizes:
        return "_no data_\n"
    have = [v for v in RMA_VARIANTS if any((op, s, v[0]) in idx for s in sizes)]
    bw = op.endswith("_bw")
    head = ["size"] + [lab + (" MB/s" if bw else "") for _v, lab in have]
    head += ["DART/MPI"] + (["DART/MPI RMA", "DART/memcpy", "DART/call"]
                             if path == "shm" else [])
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for s in sizes:
        cells = [fmt_size(s)]
        t = {v: idx[(op, s, v)]["median_us"] for v, _l in have if (op, s, v) in idx}
        for v, _l in have:
            x = t.get(v)
            if x is None:
                cells.append("-")
            else:
                cells.append("%.0f" % (s / x) if bw else fmt_t(x))
        cells.append(_ratio_cell(t, "dart", "mpi"))
        if path == "shm":
            cells.append(_ratio_cell(t, "dart", "mpi_rma"))
            cells.append(_ratio_cell(t, "dart", "memcpy"))
            cells.append(_ratio_cell(t, "dart", "call"))
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def fig2_table(res):
    """The MPI-3 shm paper's Fig. 2 comparison in numbers: blocking latency
    of DART over native MPI RMA and over OpenSHMEM (same process run)."""
    idx = res.rma("shm")
    out = ["Fig. 2 (blocking latency, 2 units on one node) as ratios; the "
           "paper found DART ~ OpenSHMEM and native MPI RMA over 10x slower "
           "for small messages:\n"]
    out += md_header("size", "put: DART/MPI RMA", "put: DART/OpenSHMEM",
                     "get: DART/MPI RMA", "get: DART/OpenSHMEM")
    for s in (1, 8, 1024, 65536, 1 << 20, 2 << 20):
        cells = [fmt_size(s)]
        for op in ("put_blocking", "get_blocking"):
            t = {v: idx[(op, s, v)]["median_us"] for v in ("dart", "mpi_rma", "shmem")
                 if (op, s, v) in idx}
            cells += [_ratio_cell(t, "dart", "mpi_rma"), _ratio_cell(t, "dart", "shmem")]
        if any(c != "-" for c in cells[1:]):
            out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def _ratio_cell(t, a, b):
    if a in t and b in t and t[b] > 0:
        return fmt_ratio(t[a] / t[b])
    return "-"


def draw_lines(ax, series, xlabel, ylabel, title, logx=False, logy=False):
    """Draws series [(label, [(x, y), ...]), ...]; returns True if any."""
    drawn = False
    for label, pts in series:
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o",
                    ms=3, label=label)
            drawn = True
    if logx:
        ax.set_xscale("log", base=2)
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    if drawn:
        ax.legend(fontsize=8)
    return drawn




def plot_rma(res, path, ops, title, fname, docs, bandwidth=False):
    idx = res.rma(path)
    fig, axes = plt.subplots(1, len(ops), figsize=(5.5 * len(ops), 4))
    drawn = False
    for ax, op in zip(axes, ops):
        series = []
        for v, lab in RMA_VARIANTS:
            pts = sorted((s, r["median_us"]) for (o, s, vv), r in idx.items()
                         if o == op and vv == v)
            series.append((lab, [(s, s / t if bandwidth else t) for s, t in pts]))
        drawn |= draw_lines(ax, series, "message size (bytes)",
                            "MB/s" if bandwidth else "time per operation (us)",
                            op, logx=True, logy=True)
    fig.suptitle("%s (%s)" % (title, res.mpi))
    if not drawn:
        plt.close(fig)
        return None
    return save_fig(fig, docs, fname)


def section_rma(res, docs):
    out = ["## One-sided put/get (DART-MPI §V, MPI-3 shm paper Fig. 2)\n",
           "Units 0 and 1 (unit 1 is the target and idles in MPI calls). "
           "Blocking = operation + completion; `nb_init` = time to initiate "
           "one non-blocking operation (completion outside the timed loop, "
           "as the paper's DTIT); `bw` = a burst of non-blocking operations "
           "and one completion, as MB/s. On the on-node path, memcpy/CPU is "
           "the floor (copies, fences and atomics inline on the shared "
           "window) and library call the same work inside an exported "
           "function of another shared library (bench_floor.c): what any "
           "library call costs, so that DART/call is DART's own work.\n"]
    for path, title in (("shm", "On-node path (shared-memory window)"),
                        ("rma", "RMA path (DART_SIM_NODE_SIZE=1, raw MPI on "
                                "MPI_Win_create)")):
        if not res.rows("rma_" + path):
            out.append("### %s\n\n_not run or failed (see the log)_\n" % title)
            continue
        out.append("### %s\n" % title)
        if path == "shm":
            out.append(fig2_table(res))
        for op in ("put_blocking", "get_blocking", "put_nb_init",
                   "get_nb_init", "put_bw", "get_bw", "fetch_add8",
                   "flush_idle"):
            out.append("**%s**\n\n%s" % (op, rma_table(res, path, op)))
        out.append(_overhead_table(res, path))
        for ops, name, bw in ((("put_blocking", "get_blocking"), "latency", 0),
                              (("put_nb_init", "get_nb_init"), "nb_init", 0),
                              (("put_bw", "get_bw"), "bandwidth", 1)):
            f = plot_rma(res, path, ops, "%s: %s" % (title, name),
                         "%s_%s_%s.png" % (res.mpi, path, name), docs, bw)
            if f:
                out.append("![%s %s](bench/%s)\n" % (path, name, f))
    return "\n".join(out)


def _overhead_table(res, path):
    out = ["Constant-overhead model t_DART(m) - t_base(m) = c (the DART-MPI "
           "paper's fit), weighted least squares over all message sizes"
           "%s:\n" % (" (base memcpy: DART's fixed cost per call over the "
                      "bare copy)" if path == "shm" else "")]
    out += md_header("operation", "base", "c (us)", "std. error (us)", "sizes")
    trials = int(res.ann.get("rma_" + path, {}).get("trials", "5"))
    bases = ("mpi", "memcpy") if path == "shm" else ("mpi",)
    for base in bases:
        for op in ("put_blocking", "get_blocking", "put_nb_init", "get_nb_init"):
            fit = overhead_fit(res.rma(path), op, trials, base)
            if fit:
                out.append("| %s | %s | %+.4f | %.4f | %d |" % (
                    op, base, fit[0], fit[1], len(fit[2])))
    return "\n".join(out) + "\n"


# ------------------------------------------------------------ applications
INTRO = {
    "gups": ["## RandomAccess / GUPS (MPI-3 shm paper Fig. 5)\n",
        "HPCC rules: 64-bit table, 4 x table-size XOR updates from the "
        "HPCC stream, remote atomics with at most 1024 updates in flight "
        "(HPCC's look-ahead), then verification by a sequential replay "
        "on unit 0 (HPCC allows 1% wrong words). Table size per unit is "
        "the same at every unit count (weak scaling).\n"],
    "stencil": ["## Five-point stencil (MPI-3 shm paper Fig. 6)\n",
        "Jacobi sweeps on an N x N grid of doubles, block rows, halo rows "
        "exchanged after every sweep (DART: blocking put + barrier; MPI: "
        "two-sided MPI_Sendrecv; OpenSHMEM: putmem + barrier_all), "
        "residual check every 20 sweeps inside the timed loop. 64x64 runs "
        "until the residual reaches the tolerance; 1024x1024 runs a fixed "
        "number of sweeps (Jacobi would need millions to converge). "
        "Sweeps, residual and checksum must be bit-identical across "
        "versions.\n"],
    "halo": ["## Halo exchange (Thakur/Gropp/Toonen, Tables 1-2)\n",
        "Periodic 2-D unit grid, every unit sends n bytes to each of 4 "
        "neighbours per step. Ratios: time of the one-sided version / "
        "time of MPI point-to-point (the paper's tables: smaller is "
        "better). The DART version is put + flush + notification flag "
        "(see bench/paper/bench_halo.c). Every received halo is checked.\n"],
}


def start_section(res, key, prefix):
    """Rows of the CSVs named prefix*, and the section's first lines (one
    heading level down for the inter-host section's "mh_" CSVs)."""
    rows = res.prefixed(prefix)
    out = list(INTRO[key])
    if prefix.startswith("mh_"):
        out[0] = "#" + out[0]
    if not rows:
        out.append("_not run or failed_\n")
    return rows, out


def section_gups(res, docs, prefix="gups_np"):
    rows, out = start_section(res, "gups", prefix)
    if not rows:
        return "\n".join(out)
    out += md_header("units", "version", "table words", "updates", "time",
                     "GUPS", "wrong words", "vs MPI", "vs OpenSHMEM")
    by = index(rows, "units", "variant")
    for (u, v), r in sorted(by.items()):
        g = r["gups"]
        vm = by.get((u, "mpi"))
        vs = by.get((u, "shmem"))
        out.append("| %d | %s | %d | %d | %.2f ms | %.4f | %d (%.3f%%) | %s | %s |" % (
            u, v, r["table_words"], r["updates"], r["median_s"] * 1e3, g,
            r["errors"], 100.0 * r["errors"] / r["table_words"],
            fmt_ratio(g / vm["gups"]) if vm else "-",
            fmt_ratio(g / vs["gups"]) if vs else "-"))
    fig, ax = plt.subplots(figsize=(6, 4))
    series = [(v, sorted((u, r["gups"]) for (u, vv), r in by.items() if vv == v))
              for v in ("dart", "mpi", "shmem")]
    draw_lines(ax, series, "units", "GUPS", "RandomAccess (%s)" % res.mpi)
    ax.set_xticks(sorted({u for (u, _v) in by}))
    fname = save_fig(fig, docs, "%s_%s.png" % (res.mpi, prefix[:-3]))
    out.append("\n![GUPS](bench/%s)\n" % fname)
    return "\n".join(out)


def section_stencil(res, docs, prefix="stencil_np"):
    rows, out = start_section(res, "stencil", prefix)
    if not rows:
        return "\n".join(out)
    out += md_header("units", "grid", "tolerance", "sweeps", "version",
                     "time", "time/sweep", "vs MPI", "residual", "checksum",
                     "equal to MPI")
    by = index(rows, "units", "n", "variant")
    for (u, n, v), r in sorted(by.items()):
        m = by.get((u, n, "mpi_p2p"))
        out.append("| %d | %dx%d | %s | %d | %s | %.2f ms | %s | %s | %.6e | "
                   "%.10g | %s |" % (
                       u, n, n, r["tol"] or "- (fixed)", r["iters"], v,
                       r["median_s"] * 1e3,
                       fmt_t(r["median_s"] * 1e6 / r["iters"]),
                       fmt_ratio(r["median_s"] / m["median_s"]) if m else "-",
                       r["residual"], r["checksum"], r["match"]))
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, n in zip(axes, (64, 1024)):
        sel = sorted((u, v, r) for (u, nn, v), r in by.items() if nn == n)
        labels = ["%s\n%du" % (v, u) for u, v, _r in sel]
        ax.bar(range(len(sel)), [r["median_s"] * 1e3 for _u, _v, r in sel])
        ax.set_xticks(range(len(sel)))
        ax.set_xticklabels(labels, fontsize=8)
        ax.set_ylabel("time (ms)")
        ax.set_title("%dx%d (%s)" % (n, n, res.mpi))
    fname = save_fig(fig, docs, "%s_%s.png" % (res.mpi, prefix[:-3]))
    out.append("\n![stencil](bench/%s)\n" % fname)
    return "\n".join(out)


HALO = ("fence", "pscw", "lock", "dart")


def section_halo(res, docs, prefix="halo_np"):
    rows, out = start_section(res, "halo", prefix)
    if not rows:
        return "\n".join(out)
    by = index(rows, "units", "size", "variant")
    for u in sorted({k[0] for k in by}):
        out += ["**%d units** (p2p time per step, then ratios)\n" % u]
        out += md_header("size", "p2p", "fence", "pscw", "lock", "DART",
                         "DART / best MPI one-sided", "checks")
        for s in sorted({k[1] for k in by if k[0] == u}):
            p = by.get((u, s, "p2p"))
            cells = [fmt_size(s), fmt_t(p["median_us"]) if p else "-"]
            for v in HALO:
                r = by.get((u, s, v))
                cells.append(fmt_ratio(r["median_us"] / p["median_us"])
                             if r and p else "-")
            best = [by[(u, s, v)]["median_us"] for v in HALO[:3] if (u, s, v) in by]
            d = by.get((u, s, "dart"))
            cells.append(fmt_ratio(d["median_us"] / min(best)) if d and best else "-")
            checks = {by[k]["check"] for k in by if k[0] == u and k[1] == s}
            cells.append("ok" if checks == {"ok"} else "FAILED")
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
    fig, ax = plt.subplots(figsize=(6.5, 4))
    series = [(v, sorted((s, by[(u, s, v)]["median_us"] /
                          by[(u, s, "p2p")]["median_us"])
                         for (u, s, vv) in by if vv == v and (u, s, "p2p") in by))
              for v in HALO]
    draw_lines(ax, series, "bytes per neighbour", "time / time(p2p)",
               "Halo exchange (%s)" % res.mpi, logx=True, logy=True)
    ax.axhline(1.0, color="gray", lw=0.8)
    fname = save_fig(fig, docs, "%s_%s.png" % (res.mpi, prefix[:-3]))
    out.append("![halo](bench/%s)\n" % fname)
    return "\n".join(out)


def section_start(res, prefix, title):
    """The sorted result keys starting with prefix, and the section's first
    lines: its title, and "_not run_" when there are no such results."""
    keys = [k for k in sorted(res.data) if k.startswith(prefix)]
    out = [title] if keys else [title, "_not run_\n"]
    return keys, out


def section_alloc(res):
    """Collective allocation (bench/bench_alloc.c): DART / 8-byte
    MPI_Allreduce and DART / MPI_Win_allocate, same run."""
    keys, out = section_start(res, "alloc_np", "## Collective allocation (bench/bench_alloc.c)\n")
    if not keys:
        return "\n".join(out)
    out.append("`dart_team_memalloc_aligned` + `dart_team_memfree` (and "
               "registration + deregistration) on all units, as ratios to "
               "one 8-byte `MPI_Allreduce` and to `MPI_Win_allocate` + "
               "`MPI_Win_free` on the same communicator, same run (minimum "
               "over trials). Target: alloc + free up to 64 KiB <= 3x the "
               "allreduce. `live`: time per allocation while making N live "
               "64-byte allocations, and 1 KiB alloc + free with them live.\n")
    out += md_header("run", "op", "size", "DART", "allreduce", "DART/allreduce",
                     "DART/Win_allocate")
    for k in keys:
        ann = res.ann.get(k, {})
        run = "%s units, %s init%s" % (ann.get("units", "?"), ann.get("init", "?"),
                                        ", sim1" if ann.get("sim_node_size") == "1" else "")
        for r in res.data[k]:
            ratio_win = r.get("ratio_win")
            out.append("| %s | %s | %s | %s | %s | %s | %s |" % (
                run, r["op"], fmt_size(int(r["bytes"])) if r["op"] != "live_alloc"
                else "%d live" % int(r["bytes"]),
                fmt_t(r["dart_us"]), fmt_t(r["allreduce_us"]),
                fmt_ratio(r["ratio_allreduce"]),
                fmt_ratio(ratio_win if isinstance(ratio_win, float) else None)))
    out.append("")
    return "\n".join(out)


def section_progress(res):
    """Latency while the target computes (bench/bench_progress.c): DART and
    raw MPI, same run, interleaved."""
    keys, out = section_start(res, "progress_np", "## Latency while the target computes (bench/bench_progress.c)\n")
    if not keys:
        return "\n".join(out)
    out.append("Unit 0 computes outside DART and MPI; the other units time "
               "single blocking operations on its memory (put, get, "
               "fetch-and-op, accumulate, each flushed), every DART operation "
               "paired with the same raw MPI operation on an `MPI_Win_create` "
               "window (which DART's progress thread serves as well). "
               "Percentiles over all origins' samples. Target: under 10 ms; "
               "DART/MPI near 1. On one node, allocated memory is "
               "load/store (no target involvement). When every core is busy "
               "(here: 2 cores), the target's progress thread waits for a "
               "scheduler tick (4 ms) before it can serve a request; the raw "
               "MPI column shows the same.\n")
    out += md_header("run", "memory", "op", "samples", "DART p50", "DART p99",
                     "DART max", "MPI p50", "MPI p99", "MPI max", "p50 ratio",
                     "p99 ratio")
    for k in keys:
        ann = res.ann.get(k, {})
        run = "%s units%s" % (ann.get("units", "?"),
                              ", sim1" if ann.get("sim_node_size") == "1" else "")
        for r in res.data[k]:
            ratio = [r["dart_%s_us" % p] / r["mpi_%s_us" % p]
                     if r["mpi_%s_us" % p] else None for p in ("p50", "p99")]
            out.append("| %s | %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | "
                       "%s |" % (run, r["memory"], r["op"], r["samples"],
                                 fmt_t(r["dart_p50_us"]), fmt_t(r["dart_p99_us"]),
                                 fmt_t(r["dart_max_us"]), fmt_t(r["mpi_p50_us"]),
                                 fmt_t(r["mpi_p99_us"]), fmt_t(r["mpi_max_us"]),
                                 fmt_ratio(ratio[0]), fmt_ratio(ratio[1])))
    out.append("")
    return "\n".join(out)


def section_lock(res):
    path = os.path.join(res.dir, "lock.log")
    out = ["## Lock contention (bench/bench_lock.c)\n"]
    if not os.path.exists(path):
        out.append("_bench_lock was not built in this tree (bench/bench_lock.c "
                   "absent); nothing to report._\n")
        return "\n".join(out)
    with open(path) as f:
        text = f.read().rstrip()
    units = res.meta.get("lock_units", "?")
    out.append("Output of `bench_lock %s` at %s units, unchanged (see the "
               "header of bench/bench_lock.c for what it measures):\n" % (
                   res.meta.get("lock_args", ""), units))
    out.append("```\n%s\n```\n" % text)
    return "\n".join(out)


# ------------------------------------------------------------- inter-host
MH_OPS = ("put_blocking", "get_blocking", "put_bw", "get_bw", "fetch_add8")


def _median(xs):
    xs = sorted(xs)
    n = len(xs)
    return (xs[n // 2] + xs[(n - 1) // 2]) / 2 if n else None


def multihost_ratios(res):
    """[(what, DART/MPI time ratio, ratio of the minima or None)] of the
    inter-host run (same process run each): median over message sizes for
    put/get, then the applications."""
    out = []
    idx = res.rma("net")
    for op in MH_OPS:
        pairs = [(idx[(o, s, "dart")], idx[(o, s, "mpi")])
                 for (o, s, v) in idx if o == op and v == "dart"
                 and (o, s, "mpi") in idx]
        if pairs:
            out.append((op, _median([d["median_us"] / m["median_us"]
                                     for d, m in pairs]),
                        _median([d["min_us"] / m["min_us"] for d, m in pairs
                                 if m["min_us"] > 0])))
    for key, label, base in (("mh_gups_np4", "GUPS", "mpi"),
                             ("mh_stencil_np4", "stencil", "mpi_p2p")):
        rows = res.rows(key)
        for r in rows:
            if r["variant"] != "dart":
                continue
            b = [x for x in rows if x["variant"] == base
                 and x.get("n") == r.get("n")]
            if b:
                name = label + (" %dx%d" % (r["n"], r["n"]) if "n" in r else "")
                out.append((name, r["median_s"] / b[0]["median_s"],
                            r["min_s"] / b[0]["min_s"]))
    halo = index(res.rows("mh_halo_np4"), "size", "variant")
    pairs = [(halo[(s, "dart")], halo[(s, "p2p")])
             for (s, v) in halo if v == "dart" and (s, "p2p") in halo]
    if pairs:
        out.append(("halo (vs p2p)",
                    _median([d["median_us"] / p["median_us"] for d, p in pairs]),
                    _median([d["min_us"] / p["min_us"] for d, p in pairs])))
    return out


def section_multihost(res, docs):
    out = ["## Inter-host (2 hosts made by scripts/multihost/dmh)\n"]
    state = res.meta.get("multihost", "not run")
    if not state.startswith("2 hosts"):
        out.append("_%s_ (docs/multihost.md)\n" % state)
        return "\n".join(out)
    out.append(
        "Two hosts on this machine (network, UTS and IPC namespaces, TCP "
        "over a veth bridge; docs/multihost.md), launched by the MPI's own "
        "launcher. MPI sees two nodes, DART detects them itself (no "
        "`DART_SIM_NODE_SIZE`), and every byte between the hosts crosses "
        "TCP. Put/get/atomics: unit 0 on one host, unit 1 on the other; "
        "raw MPI on an `MPI_Win_create` window. GUPS (2^6 words per unit), "
        "stencil and halo (quick-mode sizes): 2 hosts x 2 units. Both hosts share the machine's 2 cores, so a "
        "unit that waits for its peer's progress waits for the scheduler "
        "too: absolute times are those of a loaded machine; the ratios "
        "compare DART and MPI in the same process run.\n")
    ratios = multihost_ratios(res)
    out.append("Time of DART / time of the same raw MPI operation (GUPS: "
               "MPI RMA; stencil and halo: MPI two-sided), from the medians "
               "over trials and, as a check on noise, from the minima "
               "(median over message sizes where there are several):\n")
    out += md_header("operation", "DART / MPI (medians)", "DART / MPI (minima)")
    for what, r, rmin in ratios:
        out.append("| %s | %s | %s |" % (what, fmt_ratio(r),
                                         fmt_ratio(rmin) if rmin else "-"))
    out.append("")
    if ratios:
        fig, ax = plt.subplots(figsize=(7, 3.5))
        xs = range(len(ratios))
        ax.bar([x - 0.2 for x in xs], [r for _w, r, _m in ratios], 0.4,
               label="medians")
        ax.bar([x + 0.2 for x in xs], [m or 0 for _w, _r, m in ratios], 0.4,
               label="minima")
        ax.axhline(1.0, color="gray", lw=0.8)
        ax.legend(fontsize=8)
        ax.set_xticks(list(xs))
        ax.set_xticklabels([w for w, _r, _m in ratios], rotation=30,
                           ha="right", fontsize=8)
        ax.set_ylabel("time DART / time MPI")
        ax.set_title("Inter-host, DART vs raw MPI (%s)" % res.mpi)
        out.append("![inter-host ratios](bench/%s)\n" % save_fig(
            fig, docs, "%s_net_ratios.png" % res.mpi))
    for op in MH_OPS:
        out.append("**%s**\n\n%s" % (op, rma_table(res, "net", op)))
    for ops, name, bw in ((("put_blocking", "get_blocking"), "latency", 0),
                          (("put_bw", "get_bw"), "bandwidth", 1)):
        f = plot_rma(res, "net", ops, "Inter-host: %s" % name,
                     "%s_net_%s.png" % (res.mpi, name), docs, bw)
        if f:
            out.append("![net %s](bench/%s)\n" % (name, f))
    out += [section_gups(res, docs, "mh_gups_np"),
            section_stencil(res, docs, "mh_stencil_np"),
            section_halo(res, docs, "mh_halo_np")]
    return "\n".join(out)


# ---------------------------------------------------------------- document
def section_targets(res):
    rows = evaluate_targets(res)
    out = ["## Targets (%s)\n" % res.mpi,
           "| target | measured | limit | status |", "|---|---|---|---|"]
    missed = []
    for t in rows:
        status = {True: "met", False: "**MISSED**", None: "not measured"}[t["met"]]
        out.append("| %s | %s | %s | %s |" % (t["name"], t["measured"],
                                              t["limit"], status))
        if t["met"] is not True:
            missed.append(t)
    out.append("")
    errs = data_errors(res)
    out.append("Data checks (put/get round trips, halo contents, GUPS "
               "verification, stencil results): %s\n" % (
                   "all passed" if not errs else
                   "**%d FAILED**: %s" % (len(errs), "; ".join(errs))))
    for t in missed:
        if t["met"] is None:
            out.append("* **%s** - not measured: %s.\n" % (t["name"], t["evidence"]))
            continue
        why = TARGET_NOTES.get(t["id"], "no analysis recorded yet")
        out.append("* **%s** - missed. Evidence: %s. Reason: %s\n" % (
            t["name"], t.get("evidence", "-"), why))
    return "\n".join(out)


def section_setup(results):
    first = results[0].meta
    out = ["## Setup\n", "| item | value |", "|---|---|"]
    for key, label in (("date", "date"), ("mode", "mode"),
                       ("cpu", "CPU"), ("cores", "cores"),
                       ("memory", "memory"), ("os", "OS"),
                       ("commit", "DART commit")):
        out.append("| %s | %s |" % (label, first.get(key, "?")))
    for r in results:
        out.append("| %s | %s |" % (r.mpi, r.meta.get("mpi_version", "?")))
        out.append("| load average (1/5/15 min) before / after the %s runs "
                   "| %s / %s |" % (r.mpi, r.meta.get("load_before", "?"),
                                    r.meta.get("load_after", "?")))
        out.append("| %s OpenSHMEM | %s |" % (r.mpi, r.meta.get("shmem", "no")))
    out.append("")
    out.append("Unit placement (CPU affinity of every unit as reported by "
               "the units themselves):\n")
    for r in results:
        for key in sorted(r.ann):
            pl = r.ann[key].get("placement")
            if pl:
                out.append("* %s `%s`: %s" % (r.mpi, key, pl))
    out.append("")
    return "\n".join(out)


def trials(results):
    """Trials per point, as annotated by the benchmark programs."""
    found = sorted({a["trials"] for r in results for a in r.ann.values()
                    if "trials" in a})
    return "/".join(found) or "?"


def data_errors(res):
    """Failed data checks of one MPI's run (empty list = all correct)."""
    errs = []
    for key, ann in res.ann.items():
        errs += ["%s %s=%s" % (key, k, v) for k, v in ann.items()
                 if v.startswith("FAILED")]
    for key, rows in res.data.items():
        for r in rows:
            if (r.get("check", "ok") not in ("ok", "-")
                    or r.get("match", "yes") != "yes"):
                errs.append("%s: %s" % (key, r))
            if "errors" in r and r["errors"] > 0.01 * r["table_words"]:
                errs.append("%s: %s wrong words %d" % (key, r["variant"],
                                                       r["errors"]))
    return errs


def print_targets(res, dash_only=False):
    print("targets (%s): measured ratio vs limit" % res.mpi)
    for t in [] if dash_only else evaluate_targets(res):
        status = {True: "met", False: "MISSED", None: "not measured"}[t["met"]]
        print("  %-62s %-18s %-9s %s" % (t["name"], t["measured"], t["limit"],
                                         status))
    for name, measured, limit, status, _ev in dash_targets(res):
        print("  %-62s %-18s %-9s %s" % (name, measured, limit,
                                         status.strip("*").lower()))


METHOD = """## Methodology

* All variants of a comparison run in the **same process run**, trial by
  trial interleaved (in an order shuffled per trial), after one
  warm-up call each. Every number is the **median over trials** of the time
  per operation (maximum over units); trials per point in this run: %s.
  Every result is a ratio of two such medians; absolute times are context.
* Micro-benchmarks (put/get, atomics, halo) use many short trials (at most
  ~1 ms and 200 operations each), so that the median dodges the time slices
  that other processes take on a shared machine; a variant so slow that its
  trial would exceed ~1 ms runs fewer operations (at least 3; the count is
  in the CSV). Application benchmarks (GUPS, stencil) time their fixed work.
  The spread is recorded as the median absolute deviation (MAD) and the
  minimum over trials.
* DART runs against its public API only (`include/dash/dart/if`); raw MPI
  and OpenSHMEM run in the same process (Open MPI's oshmem shares the MPI
  library; `OMPI_MCA_osc=^rdma`, so that both run on osc/ucx as DART's
  RMA path does on (simulated) nodes, where `dart_init` chooses it too).
* The machine is small and shared (2 cores; 4-unit runs are
  oversubscribed, so scheduling dominates their absolute times; the load
  average during the run is in the setup table). Quick mode (`--quick`,
  CI) uses fewer sizes, iterations and trials and is noisier.
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--results", required=True)
    ap.add_argument("--docs", required=True)
    ap.add_argument("--print-targets", action="store_true",
                    help="print the target table; exit 1 on data errors")
    ap.add_argument("--splice-dash", action="store_true",
                    help="rewrite only the DASH-shaped section of an "
                    "existing benchmarks.md (and its CSV/PNG files)")
    ap.add_argument("--splice-scale", action="store_true",
                    help="rewrite only the scale section of an existing "
                    "benchmarks.md (and its log/PNG files)")
    ap.add_argument("--splice-observe", action="store_true",
                    help="rewrite only the statistics section of an "
                    "existing benchmarks.md (and its CSV/PNG files)")
    a = ap.parse_args()
    os.makedirs(os.path.join(a.docs, "bench"), exist_ok=True)
    results = [Result(m, os.path.join(a.results, m))
               for m in ("openmpi", "mpich")
               if os.path.isdir(os.path.join(a.results, m))]
    if not results:
        raise SystemExit("report.py: no results in %s" % a.results)
    md = os.path.join(a.docs, "benchmarks.md")
    if a.splice_dash and os.path.exists(md):
        splice(md, section_dash(results, a.docs))
        for r in results:
            for key in r.data:
                if key.startswith("dash_"):
                    shutil.copy(os.path.join(r.dir, key + ".csv"),
                                os.path.join(a.docs, "bench",
                                             "%s_%s.csv" % (r.mpi, key)))
        report_errors(results, a.print_targets, True)
        return
    if a.splice_scale and os.path.exists(md):
        splice_section(md, section_scale(results, a.docs), SCALE_BEGIN,
                       SCALE_END)
        copy_scale_logs(results, a.docs)
        return
    if a.splice_observe and os.path.exists(md):
        splice_observe(md, results, a.docs)
        return
    parts = ["# DART benchmarks\n",
             "<!-- Generated by scripts/bench.sh (bench/paper/report.py); "
             "do not edit. -->\n",
             "Reproduce with `scripts/bench.sh` (full) or `scripts/bench.sh "
             "--quick` (CI, under a minute). Sources: `bench/paper/`.\n",
             section_setup(results),
             METHOD % trials(results)]
    for r in results:
        parts.append(section_targets(r))
    parts.append(section_dash(results, a.docs))
    parts.append(kept_section(md, BYHAND_BEGIN, BYHAND_END))
    parts.append(section_scale(results, a.docs))
    parts.append(section_observe(results, a.docs))
    copy_scale_logs(results, a.docs)
    for r in results:
        parts.append("# Results with %s\n" % r.mpi)
        parts += [section_rma(r, a.docs), section_gups(r, a.docs),
                  section_stencil(r, a.docs), section_halo(r, a.docs),
                  section_alloc(r), section_progress(r), section_lock(r),
                  section_multihost(r, a.docs)]
        for key in r.data:
            shutil.copy(os.path.join(r.dir, key + ".csv"),
                        os.path.join(a.docs, "bench", "%s_%s.csv" % (r.mpi, key)))
    parts.append("## Raw data\n\nCSV files of this run: `docs/bench/<mpi>_*.csv` "
                 "(times in us or s as named in the header); the scale "
                 "section's SCALE lines: `docs/bench/<mpi>_*.log`.\n")
    with open(md, "w") as f:
        f.write("\n".join(parts))
    report_errors(results, a.print_targets)


# Measured by hand against third-party builds outside the repository (DASH's
# programs under the original DART, the OpenSHMEM libraries under OSU's
# benchmarks: docs/benchmarks.md says how): kept as it is by a full run.
BYHAND_BEGIN = "<!-- by-hand: begin -->"
BYHAND_END = "<!-- by-hand: end -->"


def kept_section(md, begin, end):
    """The text between begin and end (markers included) of the existing
    file md, or an empty section."""
    text = open(md).read() if os.path.exists(md) else ""
    i, j = text.find(begin), text.find(end)
    if i < 0 or j < i:
        return "%s\n%s\n" % (begin, end)
    return text[i:j + len(end)] + "\n"


def copy_scale_logs(results, docs):
    """The scale section's raw logs as docs/bench/<mpi>_<name>.log."""
    for r in results:
        for name in scale_logs(r):
            shutil.copy(os.path.join(r.dir, name),
                        os.path.join(docs, "bench", "%s_%s" % (r.mpi, name)))


def report_errors(results, print_them, dash_only=False):
    """With print_them: the target table; exit 1 on a failed data check."""
    if not print_them:
        return
    bad = []
    for r in results:
        print_targets(r, dash_only)
        bad += ["%s: %s" % (r.mpi, e) for e in data_errors(r)]
    for e in bad:
        print("DATA ERROR " + e)
    if bad:
        raise SystemExit(1)


if __name__ == "__main__":
    main()

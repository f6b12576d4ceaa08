"""report_dash.py - the "DASH-shaped workloads" section of
docs/benchmarks.md (issue 22): bulk accumulate and single atomics under
traffic (bench/bench_accumulate.c), small collectives (bench/bench_coll.c
--small), each next to its issue-22 target. Every ratio compares variants
of the same process run; limits are never adjusted here.

Used by report.py; with --splice-dash, report.py rewrites only this section
(between BEGIN and END) of an existing benchmarks.md."""
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from report_fmt import save_fig  # noqa: E402
from report_fmt import fmt_ratio as _r  # noqa: E402
from report_fmt import fmt_t as _t  # noqa: E402
from report_fmt import md_header as _head  # noqa: E402
from report_fmt import splice_section  # noqa: E402

BEGIN = "<!-- dash-shaped: begin -->"
END = "<!-- dash-shaped: end -->"
PATTERNS = ("own", "neighbour", "all-to-one")
MIB = 1 << 20


def _acc_keys(res):
    return [k for k in sorted(res.data) if k.startswith("dash_acc_np")]


def _coll_keys(res):
    return sorted((k for k in res.data if k.startswith("dash_coll_np")),
                  key=lambda k: int(k[len("dash_coll_np"):]))


def _prog_keys(res):
    return sorted((k for k in res.data if k.startswith("dash_prog_np")),
                  key=lambda k: int(k[len("dash_prog_np"):]))


def _prog_table(res):
    """bench_dash: one row per kernel, DART / MPI per unit count."""
    keys = _prog_keys(res)
    if not keys:
        return "_not run_\n"
    units = [int(k[len("dash_prog_np"):]) for k in keys]
    rows = {}
    for k, u in zip(keys, units):
        for r in res.data[k]:
            rows.setdefault((r["kernel"], r["program"]), {})[u] = r
    out = _head(*(["inner loop", "DASH program"] +
                  ["%d units: DART / MPI (us)" % u for u in units] +
                  ["%d units: ratio [min, max]" % u for u in units] +
                  ["check"]))
    for (kern, prog), by in rows.items():
        times = ["%s / %s" % (_t(by[u]["dart_us"]), _t(by[u]["mpi_us"]))
                 if u in by else "-" for u in units]
        ratios = ["%.2f [%.2f, %.2f]" % (by[u]["ratio"], by[u]["ratio_min"],
                                         by[u]["ratio_max"])
                  if u in by else "-" for u in units]
        checks = {by[u]["check"] for u in units if u in by}
        out.append("| " + " | ".join(
            [kern, "`%s`" % prog] + times + ratios +
            ["FAILED" if "FAILED" in checks else "ok"]) + " |")
    out.append("")
    return "\n".join(out) + "\n"


def _rows(res, kind):
    return [r for k in _acc_keys(res) for r in res.data[k] if r["kind"] == kind]


def _target(name, ratio, limit, evidence, check="ok"):
    met = None if ratio is None or ratio == "" else ratio <= limit
    if check != "ok":
        met = False
    return (name, "-" if met is None else "%.2f" % ratio,
            "<= %.2f" % limit, {True: "met", False: "**MISSED**",
                                None: "not measured"}[met], evidence)


def dash_targets(res):
    """[(target, measured, limit, status, evidence)] of one MPI's run."""
    out = []
    for kind, lab in (("alone", "unit 0 alone, 2 units"),
                      ("all", "every unit at once")):
        for pat in PATTERNS:
            rows = [r for r in _rows(res, kind) if r["pattern"] == pat
                    and r["n"] == MIB]
            if kind == "alone" and pat == "all-to-one":
                continue
            for r in sorted(rows, key=lambda r: r["units"]):
                units = "" if kind == "alone" else ", %d units" % r["units"]
                name = "accumulate 1 M doubles, %s, %s%s: DART / MPI" % (
                    pat, lab, units)
                if pat == "all-to-one":
                    name += " (no issue target; same limit shown)"
                out.append(_target(name, r["dart_mpi"], 1.10,
                                   "DART %s, MPI %s, floor %s" % (
                                       _t(r["dart_us"]), _t(r["mpi_us"]),
                                       _t(r["floor_us"])), r["check"]))
    for r in _rows(res, "fop"):
        if r["pattern"] == "idle":
            out.append(_target("fetch_and_op on a node peer / CPU atomic "
                               "(idle node)", r["dart_floor"], 2.0,
                               "DART %s, CPU atomic %s" % (
                                   _t(r["dart_us"]), _t(r["floor_us"])),
                               r["check"]))
    for k in _coll_keys(res):
        rows = res.data[k]
        if not rows:
            continue
        worst = max(rows, key=lambda r: r["ratio"])
        bad = all(r["check"] in ("ok", "-") for r in rows)
        out.append(_target(
            "small collectives (allreduce, bcast 1-16 doubles, barrier), "
            "%d units: worst DART / blocking MPI" % rows[0]["units"],
            worst["ratio"], 1.10, "worst: %s of %d elements, DART %s, "
            "MPI %s; auto mode %s" % (worst["op"], worst["elements"],
                                      _t(worst["dart_us"]), _t(worst["mpi_us"]),
                                      worst["auto_mode"]),
            "ok" if bad else "FAILED"))
    return out


def _acc_table(rows, alone):
    out = _head(*(["pattern", "doubles", "DART", "DART GB/s"] +
                  (["before (CAS loop)"] if alone else []) +
                  ["MPI", "floor", "DART / MPI", "DART / floor", "check"]))
    for r in sorted(rows, key=lambda r: (PATTERNS.index(r["pattern"]), r["n"])):
        gbs = r["n"] * 8 / r["dart_us"] / 1e3 if r["dart_us"] else None
        cells = [r["pattern"], "%d" % r["n"], _t(r["dart_us"]),
                 "-" if gbs is None else "%.1f" % gbs]
        if alone:
            cells.append(_t(r["before_us"]))
        cells += [_t(r["mpi_us"]), _t(r["floor_us"]), _r(r["dart_mpi"]),
                  _r(r["dart_floor"]), r["check"]]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def _plot_acc(res, docs):
    fig, axes = plt.subplots(1, 3, figsize=(15, 4))
    drawn = False
    for ax, pat in zip(axes, PATTERNS):
        for k in _acc_keys(res):
            rows = sorted((r for r in res.data[k] if r["kind"] == "all"
                           and r["pattern"] == pat), key=lambda r: r["n"])
            if not rows:
                continue
            u = rows[0]["units"]
            for col, lab, st in (("dart_us", "DART", "-"), ("mpi_us", "MPI", "--"),
                                 ("floor_us", "floor", ":")):
                ax.plot([r["n"] for r in rows], [r[col] for r in rows], st,
                        marker="o", ms=3, label="%s, %d units" % (lab, u))
                drawn = True
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("doubles per call")
        ax.set_ylabel("time per call, every unit (us)")
        ax.set_title("accumulate: %s" % pat)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle("Every unit at once: dart_accumulate vs MPI_Accumulate "
                 "(shared window) vs plain loop (%s)" % res.mpi)
    if not drawn:
        plt.close(fig)
        return None
    fname = "%s_dash_accumulate.png" % res.mpi
    return save_fig(fig, docs, fname)


def _plot_coll(res, docs):
    keys = _coll_keys(res)
    if not keys:
        return None
    fig, ax = plt.subplots(figsize=(8, 4))
    labels = []
    for k in keys:
        for r in res.data[k]:
            labels.append(("%s %d" % (r["op"], r["elements"]), r["units"],
                           r["ratio"]))
    names = sorted({l for l, _u, _x in labels}, key=lambda s: (s.split()[0],
                                                              int(s.split()[1])))
    units = sorted({u for _l, u, _x in labels})
    w = 0.8 / len(units)
    for i, u in enumerate(units):
        val = {l: x for l, uu, x in labels if uu == u}
        ax.bar([j + i * w for j in range(len(names))],
               [val.get(n, 0) for n in names], w, label="%d units" % u)
    ax.axhline(1.10, color="red", lw=0.8, label="target 1.10")
    ax.axhline(1.0, color="gray", lw=0.6)
    ax.set_xticks([j + 0.4 - w / 2 for j in range(len(names))])
    ax.set_xticklabels(names, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("time DART / time blocking MPI")
    ax.set_title("Small collectives (%s)" % res.mpi)
    ax.legend(fontsize=8)
    fname = "%s_dash_coll.png" % res.mpi
    return save_fig(fig, docs, fname)


def _coll_table(res):
    keys = _coll_keys(res)
    if not keys:
        return "_not run_\n"
    by = {}
    units = []
    for k in keys:
        for r in res.data[k]:
            by[(r["op"], r["elements"], r["units"])] = r
            if r["units"] not in units:
                units.append(r["units"])
    cols = ["op", "doubles"]
    for u in units:
        mode = next(r["auto_mode"] for (o, e, uu), r in by.items() if uu == u)
        cols += ["%d units: DART (%s) / MPI" % (u, mode), "ratio"]
    cols += ["target", "checks"]
    out = _head(*cols)
    for op, e in sorted({(o, e) for (o, e, _u) in by},
                        key=lambda x: (("allreduce", "bcast", "barrier").index(
                            x[0]) if x[0] in ("allreduce", "bcast", "barrier")
                            else 9, x[1])):
        cells = [op, "%d" % e if op != "barrier" else "-"]
        checks = set()
        for u in units:
            r = by.get((op, e, u))
            if r is None:
                cells += ["-", "-"]
                continue
            checks.add(r["check"])
            cells += ["%s / %s" % (_t(r["dart_us"]), _t(r["mpi_us"])),
                      ("%.2f" % r["ratio"]) + ("" if r["ratio"] <= 1.10 else " (over)")]
        cells += ["<= 1.10", "FAILED" if "FAILED" in checks else
                  ("ok" if "ok" in checks else "- (no data)")]
        out.append("| " + " | ".join(cells) + " |")
    out.append("")
    out.append("Both wait modes of DART in the same run (yield = non-blocking "
               "MPI + yielding wait, block = the blocking MPI call; the ratio "
               "above uses the mode DART_COLL_WAIT=auto picks):\n")
    out += _head("op", "doubles", "units", "DART yield", "DART block",
                 "MPI blocking", "MPI_I* + wait", "yield / MPI", "block / MPI",
                 "calls")
    for (op, e, u), r in sorted(by.items()):
        out.append("| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s |" % (
            op, "%d" % e if op != "barrier" else "-", u,
            _t(r["dart_yield_us"]), _t(r["dart_block_us"]), _t(r["mpi_us"]),
            _t(r["mpi_nb_us"]), _r(r["dart_yield_us"] / r["mpi_us"]),
            _r(r["dart_block_us"] / r["mpi_us"]), r.get("min_calls", "-")))
    out.append("")
    out.append("*calls*: the fewest calls any variant timed over all rounds. "
               "Each timed variant stops after about one second "
               "(`--budget`), so a variant whose calls take milliseconds "
               "(MPICH's blocking collectives poll; with more units than "
               "cores each call can wait for a scheduler time slice) is "
               "measured on fewer calls rather than left out.")
    return "\n".join(out) + "\n"


INTRO = """Issue 22 item 3: what DASH's algorithms hand to DART, measured
against raw MPI and the plain-loop floor in the same process run.

* **Bulk accumulate** (`bench/bench_accumulate.c`): `dart_accumulate` of n
  doubles (SUM) + `dart_flush` against `MPI_Accumulate` + `MPI_Win_flush`
  on an `MPI_Win_allocate_shared` window in a `lock_all` epoch (Open MPI:
  osc/sm) and the plain loop `t[i] += v[i]` on that window (the floor).
  *Unit 0 alone*: unit 0 accumulates into its own portion or its
  neighbour's while unit 1 waits (with "before", the per-element CAS loop
  the accumulate gate replaced). *Every unit at once*: all units accumulate
  together into their own portions, their neighbours', or all into unit
  0's (all-to-one; its floor is unit 0 running the loop once per unit, what
  a perfect per-target lock allows); the time is from the first unit's
  start to the last unit's end, per call. Medians of the rounds; ratios are
  medians of per-round ratios. Every measurement starts on zeroed targets
  and ends with an exact check of every element (origin values 1..7).
* **Single atomics** (section 2 and 6 of the same program): `dart_fetch_and_op`
  (long SUM) by unit 0 on unit 1's memory, idle, and while every other unit
  accumulates 1 M doubles (quick mode: 128 K) into unit 1's portion without
  pause (vs a CPU atomic on the same word under the same traffic, and vs
  `MPI_Fetch_and_op` under `MPI_Accumulate` traffic); the counter and the
  bulk sums are checked exactly.
* **Small collectives** (`bench/bench_coll.c --small`): `dart_allreduce`,
  `dart_bcast` of 1, 4, 16 doubles and `dart_barrier` against the blocking
  MPI call on the same communicator, best of the rounds (per-call average,
  maximum over units); every result checked in both wait modes.
* **DASH programs' inner loops** (`bench/bench_dash.c`, issue 38 item 4):
  the loop of each DASH benchmark program issue 38 names, written with the
  DART calls DASH makes for it (jacobi-1d: neighbour gets, stencil,
  barrier; min-element: allgather of the local minimum; igups: `++` through
  a global reference, i.e. a blocking get and put on the own block;
  multi-reader: one `dart_get` per unit's block and
  `dart_flush_local_all`, as DASH's blocking `dash::copy`; for_each:
  local loop and barrier; allreduce of single values with MIN, MAX,
  MINMAX and a user op; accumulate of one double + flush), against the
  same loop in raw MPI on the same processes (an `MPI_Win_allocate_shared`
  window with the same fences DART's blocking copies make, blocking MPI
  collectives on the same communicator). Time per iteration of the slowest
  unit, medians of alternating rounds, ratio = median of the per-round
  DART / MPI ratios with their range; every DART result checked (bit for
  bit against the MPI variant, or the exact value). No issue target: DASH's
  own A/B against the original DART is in the section "DASH programs:
  this DART against the original".

The machine has 2 cores and was shared with other builds during the run:
absolute times move between runs; the ratios of one run are what count.
"""


def section_dash(results, docs):
    out = [BEGIN, "## DASH-shaped workloads (issue 22)\n", INTRO]
    for res in results:
        m = res.meta
        out.append("Run with %s: %s, %s, DART commit %s, load %s / %s.\n" % (
            res.mpi, m.get("date", "?"), m.get("mode", "?"),
            m.get("commit", "?"), m.get("load_before", "?"),
            m.get("load_after", "?")))
    for res in results:
        out.append("### Targets of issue 22 (%s)\n" % res.mpi)
        out += _head("target", "measured", "limit", "status", "evidence")
        for t in dash_targets(res):
            out.append("| %s | %s | %s | %s | %s |" % t)
        out.append("")
    for res in results:
        out.append("### Bulk accumulate (%s)\n" % res.mpi)
        if not _acc_keys(res):
            out.append("_not run or failed_\n")
            continue
        for k in _acc_keys(res):
            ann = res.ann.get(k, {})
            for kind, lab in (("alone", "unit 0 alone"),
                              ("all", "every unit at once")):
                rows = [r for r in res.data[k] if r["kind"] == kind]
                if rows:
                    out.append("**%s, %s units** (%s; gate: %s)\n" % (
                        lab, ann.get("units", "?"), ann.get("mpi_library", "?"),
                        ann.get("gate", "?")))
                    out.append(_acc_table(rows, kind == "alone"))
        f = _plot_acc(res, docs)
        if f:
            out.append("![accumulate](bench/%s)\n" % f)
        out.append("**Single fetch_and_op (long SUM) on a node peer**\n")
        out += _head("units", "condition", "DART", "CPU atomic", "MPI",
                     "DART / CPU", "DART / MPI", "DART p99", "CPU p99", "check")
        for r in _rows(res, "fop"):
            cond = "idle" if r["pattern"] == "idle" else \
                "%d doubles bulk traffic" % r["n"]
            out.append("| %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                r["units"], cond, _t(r["dart_us"]), _t(r["floor_us"]),
                _t(r["mpi_us"]), _r(r["dart_floor"]), _r(r["dart_mpi"]),
                _t(r["dart_p99_us"]), _t(r["floor_p99_us"]), r["check"]))
        out.append("")
    for res in results:
        out.append("### Small collectives (%s)\n" % res.mpi)
        out.append(_coll_table(res))
        f = _plot_coll(res, docs)
        if f:
            out.append("![small collectives](bench/%s)\n" % f)
    for res in results:
        out.append("### DASH programs' inner loops (%s)\n" % res.mpi)
        out.append(_prog_table(res))
    out.append(END + "\n")
    return "\n".join(out)


def splice(path, text):
    """Replaces the section between BEGIN and END in the file at path (or
    inserts it before the first "# Results with" heading)."""
    splice_section(path, text, BEGIN, END)

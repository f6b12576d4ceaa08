"""report_scale.py - the "Scale" section of docs/benchmarks.md (issue 23):
how the locality build grows with the number of units (bench/bench_scale.c,
no MPI, synthetic machines up to 10^6 units), the memory model of dart_init
fitted to the heap measured inside it (bench/bench_init_mem.c, 1-16 real
units), and the bytes per live allocation, registration and team
(tests/globmem/test_globmem_scale.c) where a run has them.

Inputs in each MPI's results directory: scale.log, init_mem_np<n>_sim<s>.log
and globmem_scale_np<n>_sim<s>.log (all "SCALE ..." lines). Used by
report.py; with --splice-scale only this section (between BEGIN and END)
of an existing benchmarks.md is rewritten. Prints one
"SCALE_MODEL init P=<n> peak=<b> kept=<b> per_node=<k> mpi=<mpi>" line per
modelled P (peak: DART's kept + freed bytes, a bound on its peak)."""
import glob
import math
import os
import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker as ticker  # noqa: E402
from report_fmt import save_fig  # noqa: E402
from report_fmt import fmt_bytes as _b  # noqa: E402
from report_fmt import fmt_status as _status  # noqa: E402
from report_fmt import md_header as _head  # noqa: E402

BEGIN = "<!-- scale: begin -->"
END = "<!-- scale: end -->"
MODEL_P = (1000, 100000, 1000000)
MB = 1e6
TIMER_FLOOR = 1e-3  # seconds: shorter builds are timer and load noise
# issue 23's limits: (P, units per host) -> (seconds, bytes per process)
LOCALITY_TARGETS = {(100000, 1): (1.0, 8 * MB), (100000, 64): (0.5, 8 * MB),
                    (1000000, 1): (10.0, None)}
INIT_TARGET_P, INIT_TARGET_BYTES = 100000, 2 * MB
PHASES = (("locality_init", "dart_init (host check)"),
          ("locality", "full tree (on demand)"))
INIT_METRICS = ("dart_peak", "dart_kept", "all_peak", "all_kept")
UNITS_PER_NODE = 64  # the model's units per node (issue 23's dense case)


# ------------------------------------------------------------------ input
def parse(path):
    """[(what, {key: number or text}, [bare words])] of the SCALE lines."""
    out = []
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for line in f:
            m = re.search(r"\b(SCALE_FIT|SCALE) (\S+) (.*)", line)
            if not m:
                continue
            fields, words = {}, []
            for tok in m.group(3).split():
                if "=" in tok:
                    k, v = tok.split("=", 1)
                    try:
                        fields[k] = float(v) if "." in v else int(v)
                    except ValueError:
                        fields[k] = v
                else:
                    words.append(tok)
            what = ("fit_" if m.group(1) == "SCALE_FIT" else "") + m.group(2)
            out.append((what, fields, words))
    return out


def _logs(res, prefix):
    """{(np, sim): path} of the logs named <prefix>_np<n>_sim<s>.log."""
    found = {}
    for path in glob.glob(os.path.join(res.dir, prefix + "_np*_sim*.log")):
        m = re.search(r"_np(\d+)_sim(\d)\.log$", path)
        if m:
            found[(int(m.group(1)), int(m.group(2)))] = path
    return found


def init_points(res):
    """{sim: [(P, fields)]} of bench_init_mem's SCALE init lines."""
    series = {}
    for (_np, sim), path in sorted(_logs(res, "init_mem").items()):
        for what, f, _w in parse(path):
            if what == "init" and "dart_peak" in f:
                series.setdefault(sim, []).append((f["P"], f))
    return series


# ------------------------------------------------------------------ fits
def linear_fit(pts):
    """Least squares a + b*x over [(x, y)]; (a, b), or None below 2 x."""
    if len({x for x, _ in pts}) < 2:
        return None
    n = len(pts)
    sx = sum(x for x, _ in pts)
    sy = sum(y for _, y in pts)
    sxx = sum(x * x for x, _ in pts)
    sxy = sum(x * y for x, y in pts)
    b = (n * sxy - sx * sy) / (n * sxx - sx * sx)
    return (sy - b * sx) / n, b


def power_fit(pts):
    """Least-squares exponent of log(y) over log(x) (None below 2 x)."""
    fit = linear_fit([(math.log(x), math.log(max(y, 1e-12))) for x, y in pts])
    return None if fit is None else fit[1]


def at_p(pts, p, floor=0.0):
    """y at x = p: measured, or extrapolated from the largest measured x
    with the exponent fitted over the points with y >= floor (linear if
    fewer than two). (value, how) or (None, "")."""
    for x, y in pts:
        if x == p:
            return y, "measured"
    if not pts:
        return None, ""
    e = power_fit([(x, y) for x, y in pts if y >= floor])
    x0, y0 = max(pts)
    if e is None:
        return y0 * p / x0, "modelled, linear assumed"
    return y0 * (p / x0) ** e, "modelled"


# ---------------------------------------------------------- locality part
def _locality_rows(lines):
    """{(phase, per_host): [(P, seconds, bytes per process, fields)]}; the
    bytes are the peak during the build plus, for the full tree, the
    gathered records it starts from (the init phase's peak already holds
    its gathered words)."""
    rows = {}
    for what, f, words in lines:
        if what not in ("locality", "locality_init") or "skipped" in words:
            continue
        mem = f["peak"] + (f["input"] if what == "locality" else 0)
        rows.setdefault((what, f["per_host"]), []).append(
            (f["P"], f["seconds"], mem, f))
    return rows


def _locality_targets(rows):
    out = []
    for (p, k), (tsec, tbytes) in sorted(LOCALITY_TARGETS.items()):
        for phase, label in PHASES:
            pts = rows.get((phase, k), [])
            t, how = at_p([(r[0], max(r[1], 1e-6)) for r in pts], p,
                          TIMER_FLOOR)
            lim = "<= %g s" % tsec
            out.append(("%s, P=%d, %d unit(s)/host: seconds" % (label, p, k),
                        "-" if t is None else "%.3g s (%s)" % (t, how), lim,
                        _status(None if t is None else t <= tsec)))
            if tbytes is None:
                continue
            b, how = at_p([(r[0], r[2]) for r in pts], p)
            out.append(("%s, P=%d, %d unit(s)/host: bytes" % (label, p, k),
                        "-" if b is None else "%s (%s)" % (_b(b), how),
                        "<= %s" % _b(tbytes),
                        _status(None if b is None else b <= tbytes)))
    return out


def plot_scale(rows, init, docs, fname):
    """Log-log: locality seconds and bytes over P; dart_init's bytes."""
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
    for (phase, k), pts in sorted(rows.items()):
        lab = "%s, %d/host" % (dict(PHASES)[phase], k)
        pts = sorted(pts)
        axes[0].plot([r[0] for r in pts], [max(r[1], 1e-6) for r in pts],
                     marker="o", ms=3, label=lab)
        axes[1].plot([r[0] for r in pts], [r[2] for r in pts], marker="o",
                     ms=3, label=lab)
    for mpi, series in init:
        for sim, pts in sorted(series.items()):
            pts = sorted(pts, key=lambda p: p[0])
            for m in ("dart_peak", "all_peak"):
                axes[2].plot([p for p, _ in pts], [f[m] for _, f in pts],
                             marker="o", ms=3, label="%s %s%s" % (
                                 mpi, m, ", sim. nodes" if sim else ""))
    titles = (("units P", "seconds", "locality build: time"),
              ("units P", "bytes per process", "locality build: memory"),
              ("units P", "bytes per process", "dart_init heap (peak)"))
    for i, (ax, (xl, yl, ti)) in enumerate(zip(axes, titles)):
        ax.set_xscale("log", base=2 if i == 2 else 10)
        if i == 2:
            ax.xaxis.set_major_formatter(ticker.ScalarFormatter())
        ax.set_yscale("log")
        ax.set_xlabel(xl)
        ax.set_ylabel(yl)
        ax.set_title(ti)
        ax.grid(True, which="both", alpha=0.3)
        if ax.lines:
            ax.legend(fontsize=6)
    return save_fig(fig, docs, fname)


def _section_locality(lines):
    rows = _locality_rows(lines)
    out = ["### Locality build (bench/bench_scale.c, no MPI)\n",
           "Synthetic hardware records of P units, k per host, fed to the "
           "builders as dart_init would receive them. *dart_init (host "
           "check)*: what every process does for locality inside dart_init "
           "(the allgathered host word per unit and the check); *full tree "
           "(on demand)*: the whole domain tree, built when a program first "
           "asks for locality. Bytes per process: peak heap during the "
           "build, plus the gathered records for the full tree.\n"]
    out += _head("phase", "P", "units/host", "seconds", "bytes per process",
                 "kept after")
    for (phase, k), pts in sorted(rows.items()):
        for p, sec, mem, f in sorted(pts, key=lambda r: r[0]):
            out.append("| %s | %d | %d | %.4f | %s | %s |" % (
                dict(PHASES)[phase], p, k, sec, _b(mem), _b(f["bytes"])))
    skipped = [(w, f) for w, f, words in lines if "skipped" in words]
    for w, f in skipped:
        out.append("| %s | %d | %d | skipped (predicted %s s) | - | - |" % (
            dict(PHASES).get(w, w), f["P"], f["per_host"],
            f.get("predicted_seconds", "?")))
    out.append("")
    out += _head("phase", "units/host", "time exponent", "bytes exponent")
    for (phase, k), pts in sorted(rows.items()):
        te = power_fit([(r[0], max(r[1], 1e-6)) for r in pts])
        be = power_fit([(r[0], r[2]) for r in pts])
        out.append("| %s | %d | %s | %s |" % (
            dict(PHASES)[phase], k, "-" if te is None else "%.2f" % te,
            "-" if be is None else "%.2f" % be))
    out.append("\n(least-squares slopes of log(seconds) and log(bytes) over "
               "log(P); 1.00 is linear. Times below ~1 ms are timer noise.)\n")
    out += _head("issue 23 target", "value", "limit", "status")
    out += ["| %s | %s | %s | %s |" % t for t in _locality_targets(rows)]
    out.append("\n(modelled: extrapolated from the largest P measured with "
               "the exponent fitted over its builds of 1 ms or more; linear "
               "if there are fewer than two.)\n")
    return out, rows


# --------------------------------------------------------- dart_init part
def _slope_fit(pts):
    """a + b*P over [(P, y)], over P >= 2 (one unit skips work) when there
    are two such P."""
    big = [(p, y) for p, y in pts if p >= 2]
    return linear_fit(big if len({p for p, _ in big}) >= 2 else pts)


def _value(f, m):
    return f["dart_kept"] + f.get("dart_freed", 0) if m == "dart_bound" \
        else f[m]


def init_model(series):
    """{metric: (a, b_job, b_node)}: bytes = a + b_job*P + b_node*k at P
    units, k per node. b_job is the per-unit slope with every unit its own
    (simulated) node; b_node what the one-node series grows by on top (its
    units are node peers too). One series only: b_node = 0."""
    model = {}
    for m in INIT_METRICS + ("dart_bound",):
        fits = {sim: _slope_fit([(p, _value(f, m)) for p, f in pts])
                for sim, pts in series.items()}
        sim1, one = fits.get(1), fits.get(0)
        if sim1 is not None and one is not None:
            b_node = one[1] - sim1[1]
            model[m] = (sim1[0] - b_node, sim1[1], b_node)
        elif sim1 is not None or one is not None:
            a, b = sim1 or one
            model[m] = (a, b, 0.0)
    return model


def model_at(fit, p, k=UNITS_PER_NODE):
    a, b_job, b_node = fit
    return a + b_job * p + b_node * min(k, p)


_INIT_LABELS = (("dart_bound", "DART peak bound (kept + freed)"),
                ("dart_peak", "DART peak"), ("dart_kept", "DART kept"),
                ("all_peak", "all peak"), ("all_kept", "all kept"))


def _section_init(res, series):
    out = ["### dart_init memory (bench/bench_init_mem.c, %s)\n" % res.mpi]
    if not series:
        return out + ["Not measured in this run.\n"], {}
    out.append(
        "Heap taken inside dart_init, MPI started by the program before it "
        "(maximum over units; requested sizes). *DART*: blocks DART's own "
        "code allocated; *all*: every block allocated during the call "
        "(DART, the MPI calls it makes, MPI's threads). Peak: most bytes "
        "live at once; kept: still live when dart_init returns; freed: "
        "allocated and freed again within the call.\n")
    out += _head("P", "nodes", "DART peak", "DART kept", "DART freed",
                 "all peak", "all kept")
    for sim, pts in sorted(series.items()):
        for p, f in sorted(pts, key=lambda x: x[0]):
            out.append("| %d | %s | %d | %d | %s | %d | %d |" % (
                p, "1 per unit (simulated)" if sim else "1", f["dart_peak"],
                f["dart_kept"], f.get("dart_freed", "-"), f["all_peak"],
                f["all_kept"]))
    model = init_model(series)
    out.append("")
    out += _head("model: bytes = a + b*P + c*k", "a", "b (per unit of the "
                 "job)", "c (per unit of the node)")
    for m, lab in _INIT_LABELS:
        if m in model:
            out.append("| %s | %.0f | %.1f | %.1f |" % ((lab,) + model[m]))
    out.append("")
    out += _head("modelled per process, k=%d" % UNITS_PER_NODE,
                 *("P=%d" % p for p in MODEL_P))
    for m, lab in _INIT_LABELS:
        if m in model:
            out.append("| %s | %s |" % (lab, " | ".join(
                _b(model_at(model[m], p)) for p in MODEL_P)))
    out.append("")
    out += _head("issue 23 target", "modelled", "limit", "status")
    if "dart_bound" in model:
        v = model_at(model["dart_bound"], INIT_TARGET_P)
        out.append("| dart_init transient: DART's peak heap (bound) at P=%d, "
                   "%d units/node | %s | <= %s | %s |" % (
                       INIT_TARGET_P, UNITS_PER_NODE, _b(v),
                       _b(INIT_TARGET_BYTES),
                       _status(v <= INIT_TARGET_BYTES)))
    out.append(
        "\n(b: least-squares slope over the measured P >= 2 with every unit "
        "its own simulated node; c: how much faster the one-node series "
        "grows, i.e. arrays sized by the units of a node. *all* is context, "
        "not a target: MPI's part includes per-peer state for the peers on "
        "this node (shared-memory endpoints), which grows with the units of "
        "a node whether DART simulates nodes or not, so b overstates it for "
        "a real machine.)\n")
    return out, model


# ------------------------------------------------------- per-object part
def _section_objects(res):
    logs = _logs(res, "globmem_scale")
    if not logs:
        return []
    out = ["### Bytes per live object (tests/globmem/test_globmem_scale.c, "
           "%s)\n" % res.mpi]
    out += _head("units", "nodes", "object", "team size", "bytes",
                 "DART's (MPI window excluded)")
    fails = []
    for (np_, sim), path in sorted(logs.items()):
        for what, f, _w in parse(path):
            if what in ("alloc", "team", "reg"):
                out.append("| %d | %s | %s | %d | %.1f | %s |" % (
                    np_, "simulated" if sim else "1",
                    {"alloc": "team allocation", "team": "team",
                     "reg": "registration"}[what], f["team"], f["bytes"],
                    "%.1f" % f["dart_mean"] if "dart_mean" in f else "-"))
        with open(path) as fh:
            fails += ["%d units%s: %s" % (np_, ", sim. nodes" if sim else "",
                                          line.split("FAIL", 1)[1].strip())
                      for line in fh if "FAIL" in line][:1]
    out.append("")
    if fails:
        out.append("The test's own check failed: " + "; ".join(fails) + "\n")
    return out


# ---------------------------------------------------------------- section
def scale_logs(res):
    """Names of the result logs this section reads (copied to docs/bench)."""
    return sorted(os.path.basename(p) for pat in
                  ("scale.log", "init_mem_np*.log", "globmem_scale_np*.log")
                  for p in glob.glob(os.path.join(res.dir, pat)))


def section_scale(results, docs):
    """The whole section (with its markers); prints SCALE_MODEL lines."""
    out = [BEGIN, "## Scale (issue 23)\n"]
    meta = results[0].meta
    out.append("Measured %s, DART commit %s, %s mode (`scripts/bench.sh "
               "--scale-only` refreshes this section alone).\n" % (
                   meta.get("date", "?"), meta.get("commit", "?"),
                   meta.get("mode", "?")))
    lines = next((parse(os.path.join(r.dir, "scale.log")) for r in results
                  if os.path.exists(os.path.join(r.dir, "scale.log"))), [])
    if lines:
        part, rows = _section_locality(lines)
        out += part
    else:
        rows = {}
        out.append("Locality build: not measured in this run.\n")
    init = [(r.mpi, init_points(r)) for r in results]
    for r, (_mpi, series) in zip(results, init):
        part, model = _section_init(r, series)
        out += part
        if "dart_bound" in model and "dart_kept" in model:
            for p in MODEL_P:
                print("SCALE_MODEL init P=%d peak=%.0f kept=%.0f per_node=%d "
                      "mpi=%s" % (p, model_at(model["dart_bound"], p),
                                  model_at(model["dart_kept"], p),
                                  UNITS_PER_NODE, r.mpi))
        out += _section_objects(r)
    if rows or any(s for _, s in init):
        out.append("![scale](bench/%s)\n" % plot_scale(rows, init, docs,
                                                       "scale.png"))
    out.append(END)
    return "\n".join(out) + "\n"

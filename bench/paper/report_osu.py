#!/usr/bin/env python3
"""report_osu.py - the OSU OpenSHMEM table and plots of docs/benchmarks.md.

The OSU micro-benchmarks (a third-party suite) are built and run by hand
outside this repository against each OpenSHMEM library (docs/benchmarks.md
says how). Their outputs land in one directory per run:

    RUNDIR/<program>/<library>.np<N>.r<round>.out

(stdout and stderr of one run, then a line "# rc=<exit code> ..."). The
raw-MPI anchors (OSU's MPI programs: osu_put_latency, osu_fop_latency,
osu_barrier, ...) use the same layout with the library named mpi-<mpi>.

This script takes the median over the rounds of every (program, PEs,
library, size or operation), writes docs/bench/osu_np<N>.csv and
docs/bench/osu_np<N>.png and prints (or, with --splice, puts into
docs/benchmarks.md between the osu markers) a Markdown table with the
ratio of this library to the best other library on every row.

    python3 bench/paper/report_osu.py RUNDIR [--docs docs] [--splice]
        [--sizes 8,4096,65536] [--title "..."] [--no-plot]
"""
import argparse
import csv
import os
import re
import statistics
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report_fmt import md_header, splice_section  # noqa: E402

BEGIN = "<!-- osu: begin -->"
END = "<!-- osu: end -->"
FNAME = re.compile(r"^(?P<lib>.+)\.np(?P<np>\d+)\.r(?P<r>\d+)\.out$")
# Column order; libraries not named here follow in alphabetical order.
LIBS = ["dart-openmpi", "dart-mpich", "oshmem", "oshmpi-openmpi",
        "oshmpi-mpich", "mpi-openmpi", "mpi-mpich"]
OURS = ("dart-openmpi", "dart-mpich")
# OSU's MPI programs standing for an OpenSHMEM row: (shmem program, key
# rewrite). A key of None keeps the size.
MPI_ROWS = {
    "osu_put_latency": ("osu_oshm_put", None),
    "osu_get_latency": ("osu_oshm_get", None),
    "osu_fop_latency": ("osu_oshm_atomics", "fadd"),
    "osu_cas_latency": ("osu_oshm_atomics", "cswap"),
    "osu_barrier": ("osu_oshm_barrier", None),
    "osu_bcast": ("osu_oshm_broadcast", None),
    "osu_allgather": ("osu_oshm_fcollect", None),
    "osu_allreduce": ("osu_oshm_reduce", None),
}
# Benchmarks in table order, with the unit of their numbers.
ORDER = ["osu_oshm_put", "osu_oshm_get", "osu_oshm_put_nb", "osu_oshm_get_nb",
         "osu_oshm_put_mr", "osu_oshm_atomics", "osu_oshm_barrier",
         "osu_oshm_broadcast", "osu_oshm_collect", "osu_oshm_fcollect",
         "osu_oshm_reduce"]


def _isnum(s):
    try:
        float(s)
        return True
    except ValueError:
        return False


def parse(path):
    """One output file -> (rate, {key: value}, rc). rate: the numbers are
    messages per second (higher is better), else latencies in us. Keys:
    message sizes (int), "all" (a barrier), operation names (atomics,
    without the shmem_ prefix)."""
    rate, data, rc = False, {}, None
    with open(path, errors="replace") as f:
        for line in f:
            s = line.strip()
            m = re.match(r"# rc=(-?\d+)", s)
            if m:
                rc = int(m.group(1))
                continue
            if s.startswith("#"):
                rate = rate or "Messages/s" in s
                continue
            t = s.split()
            if not t or not all(_isnum(x) for x in t[1:]):
                continue
            if len(t) == 1 and _isnum(t[0]):
                data["all"] = float(t[0])  # osu_oshm_barrier: one number
            elif re.fullmatch(r"\d+", t[0]) and len(t) >= 2:
                data[int(t[0])] = float(t[1])  # size, latency or rate
            elif re.fullmatch(r"shmem_\w+", t[0]) and len(t) >= 3:
                data[t[0][len("shmem_"):]] = float(t[-1])  # op, Mops/s, us
            elif len(t) == 2 and t[0] == "0" and _isnum(t[1]):
                data["all"] = float(t[1])
    return rate, data, rc


def _mpi_key(prog, key):
    """The key of a raw-MPI row as the OpenSHMEM program names it."""
    if prog == "osu_barrier":
        return "all"
    rewrite = MPI_ROWS[prog][1]
    if rewrite is None:
        return key
    # osu_fop_latency / osu_cas_latency time 8-byte operations.
    return "longlong_" + rewrite if key == 8 else None


def collect(rundir):
    """-> (values, rate, fails): values[(prog, np, lib, key)] = [per round],
    rate[prog] = higher is better, fails = ["prog npN lib rK rc=..."]."""
    values, rate, fails = defaultdict(list), {}, []
    for prog in sorted(os.listdir(rundir)):
        pdir = os.path.join(rundir, prog)
        if not os.path.isdir(pdir):
            continue
        for fn in sorted(os.listdir(pdir)):
            m = FNAME.match(fn)
            if not m:
                continue
            lib, np_, r = m.group("lib"), int(m.group("np")), m.group("r")
            is_rate, data, rc = parse(os.path.join(pdir, fn))
            if rc != 0 or not data:
                # A program that dies part way (OSHMEM's atomics) printed
                # valid rows before: they are kept, the run is listed.
                fails.append("%s np%d %s r%s rc=%s%s" % (
                    prog, np_, lib, r, rc, " (%d rows kept)" % len(data)
                    if data else " (no data)"))
                if not data:
                    continue
            row = prog
            if prog in MPI_ROWS:
                row = MPI_ROWS[prog][0]
                data = {_mpi_key(prog, k): v for k, v in data.items()}
                data.pop(None, None)
            else:
                rate[row] = is_rate
            for k, v in data.items():
                values[(row, np_, lib, k)].append(v)
    return values, rate, fails


def medians(values):
    return {k: statistics.median(v) for k, v in values.items()}


def libraries(med):
    seen = {lib for (_, _, lib, _) in med}
    return [x for x in LIBS if x in seen] + sorted(seen - set(LIBS))


def _better(a, b, rate):
    return a > b if rate else a < b


def best_other(med, prog, np_, key, rate, libs):
    """The best value of the OpenSHMEM libraries that are not this one,
    and which library it is."""
    best = None
    for lib in libs:
        if lib in OURS or lib.startswith("mpi-"):
            continue
        v = med.get((prog, np_, lib, key))
        if v is not None and (best is None or _better(v, best[0], rate)):
            best = (v, lib)
    return best


def ratio(mine, other, rate):
    """This library against another, below 1 means this one is better
    (for rates the inverse, so that below 1 still means better)."""
    if mine is None or other is None or mine <= 0 or other <= 0:
        return None
    return other / mine if rate else mine / other


def _keys(med, prog, np_, sizes):
    keys = {k for (p, n, _, k) in med if p == prog and n == np_}
    ints = sorted(k for k in keys if isinstance(k, int))
    if ints:
        return [s for s in sizes if s in keys]
    return sorted(k for k in keys if not isinstance(k, int))


def _fmt(v, rate):
    if v is None:
        return "-"
    if rate:
        return "%.3g M" % (v / 1e6)
    return "%.3g" % v


def table(med, rate, np_, sizes):
    """Markdown rows of one PE count."""
    libs = libraries(med)
    shmem_libs = [x for x in libs if not x.startswith("mpi-")]
    mpi_libs = [x for x in libs if x.startswith("mpi-")]
    head = ["benchmark", "size / op", "unit"] + shmem_libs + mpi_libs + \
        ["DART/best other (OMPI, MPICH)", "best other"]
    out = md_header(*head)
    for prog in ORDER:
        r = rate.get(prog, False)
        for key in _keys(med, prog, np_, sizes):
            cells = [prog.replace("osu_oshm_", ""),
                     "%d B" % key if isinstance(key, int) else key,
                     "msgs/s" if r else "us"]
            cells += [_fmt(med.get((prog, np_, x, key)), r) for x in libs]
            best = best_other(med, prog, np_, key, r, libs)
            rs = [ratio(med.get((prog, np_, x, key)), best and best[0], r)
                  for x in OURS]
            cells.append(", ".join("-" if x is None else "%.2f" % x for x in rs))
            cells.append(best[1] if best else "-")
            out.append("| " + " | ".join(cells) + " |")
    return out


def write_csv(med, rate, np_, path):
    libs = libraries(med)
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["benchmark", "key", "unit"] + libs)
        for prog in ORDER:
            keys = {k for (p, n, _, k) in med if p == prog and n == np_}
            ints = sorted(k for k in keys if isinstance(k, int))
            for key in ints + sorted(k for k in keys if not isinstance(k, int)):
                w.writerow([prog, key, "msgs/s" if rate.get(prog) else "us"] +
                           ["" if med.get((prog, np_, x, key)) is None else
                            "%g" % med[(prog, np_, x, key)] for x in libs])


def plot(med, rate, np_, path, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    libs = libraries(med)
    # One color per library in every panel, the raw-MPI anchors dotted.
    color = {lib: "C%d" % (i % 10) for i, lib in enumerate(libs)}
    progs = [p for p in ORDER
             if any(k[0] == p and k[1] == np_ for k in med)]
    if not progs:
        return False
    cols = 3
    rows = (len(progs) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(5 * cols, 3.6 * rows),
                             squeeze=False)
    for ax, prog in zip(axes.flat, progs):
        r = rate.get(prog, False)
        keys = {k for (p, n, _, k) in med if p == prog and n == np_}
        ints = sorted(k for k in keys if isinstance(k, int))
        if ints:
            for lib in libs:
                pts = [(k, med[(prog, np_, lib, k)]) for k in ints
                       if (prog, np_, lib, k) in med]
                if pts:
                    ax.plot([p[0] for p in pts], [p[1] for p in pts],
                            marker="o", ms=3, label=lib, color=color[lib],
                            lw=2 if lib in OURS else 1,
                            ls=":" if lib.startswith("mpi-") else "-")
            ax.set_xscale("log", base=2)
            ax.set_xlabel("bytes")
        else:
            names = sorted(keys)
            width = 0.8 / max(1, len(libs))
            for i, lib in enumerate(libs):
                ys = [med.get((prog, np_, lib, k), 0) for k in names]
                ax.bar([j + i * width for j in range(len(names))], ys, width,
                       label=lib, color=color[lib])
            ax.set_xticks([j + 0.4 - width / 2 for j in range(len(names))])
            ax.set_xticklabels(names, rotation=60, fontsize=6)
        ax.set_yscale("log")
        ax.set_ylabel("messages/s" if r else "us")
        ax.set_title("%s, %d PEs" % (prog.replace("osu_oshm_", ""), np_))
        ax.grid(True, which="both", alpha=0.3)
    for ax in list(axes.flat)[len(progs):]:
        ax.axis("off")
    from matplotlib.lines import Line2D
    handles = [Line2D([], [], color=color[lib], lw=2 if lib in OURS else 1,
                      ls=":" if lib.startswith("mpi-") else "-", marker="o",
                      ms=3) for lib in libs]
    fig.legend(handles, libs, loc="lower right", fontsize=8,
               ncol=1 if len(progs) % cols else len(libs))
    fig.suptitle(title)
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return True


def section(med, rate, fails, sizes, docs, title, do_plot):
    nps = sorted({n for (_, n, _, _) in med})
    parts = [BEGIN]
    for np_ in nps:
        os.makedirs(os.path.join(docs, "bench"), exist_ok=True)
        write_csv(med, rate, np_, os.path.join(docs, "bench", "osu_np%d.csv" % np_))
        parts.append("\n**%d PEs** (median over rounds; every size in "
                     "`docs/bench/osu_np%d.csv`)\n" % (np_, np_))
        parts += table(med, rate, np_, sizes)
        if do_plot and plot(med, rate, np_, os.path.join(
                docs, "bench", "osu_np%d.png" % np_), "%s, %d PEs" % (title, np_)):
            parts.append("\n![OSU OpenSHMEM, %d PEs](bench/osu_np%d.png)" % (np_, np_))
    if fails:
        parts.append("\nRuns that failed: " + "; ".join(fails) + ".")
    parts.append(END)
    return "\n".join(parts) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("rundir")
    ap.add_argument("--docs", default="docs")
    ap.add_argument("--splice", action="store_true",
                    help="write the section into DOCS/benchmarks.md")
    ap.add_argument("--sizes", default="8,4096,65536")
    ap.add_argument("--title", default="OSU OpenSHMEM micro-benchmarks")
    ap.add_argument("--no-plot", action="store_true")
    a = ap.parse_args(argv)
    values, rate, fails = collect(a.rundir)
    if not values:
        print("report_osu: no OSU output under %s" % a.rundir, file=sys.stderr)
        return 1
    sizes = [int(x) for x in a.sizes.split(",")]
    text = section(medians(values), rate, fails, sizes, a.docs, a.title,
                   not a.no_plot)
    if a.splice:
        md = os.path.join(a.docs, "benchmarks.md")
        with open(md) as f:
            if BEGIN not in f.read():
                raise SystemExit("%s: no %s ... %s markers" % (md, BEGIN, END))
        splice_section(md, text, BEGIN, END)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

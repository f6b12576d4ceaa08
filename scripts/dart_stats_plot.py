#!/usr/bin/python3
"""Plots a DART_STATS file (docs/profiling.md).

usage: dart_stats_plot.py STATS.json [--out PREFIX] [--max-units N]

Writes PREFIX-matrix.png, a heat map of the bytes each unit sent to or read
from each other unit (puts, gets and atomics; rows: the unit that issued the
operation, columns: its target; an extra "other" column when a unit had more
targets than DART_STATS_TARGETS), and PREFIX-ops.png, bar charts of the
count and of the time inside the calls per operation kind, split by path
(shm, mpi, -). Beyond --max-units units (default 256) the matrix is summed
into blocks of consecutive units so the picture stays readable.
"""
import argparse
import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def load(path):
    with open(path) as f:
        st = json.load(f)
    if st.get("format") != "dart-stats-1":
        raise SystemExit("%s: not a DART_STATS file" % path)
    return st


def matrix(st, max_units):
    n = st["units"]
    block = max(1, -(-n // max_units))
    m = -(-n // block)
    has_other = any(r["other"][0] for r in st["units_data"])
    mat = np.zeros((m, m + (1 if has_other else 0)))
    for r in st["units_data"]:
        i = r["unit"] // block
        for to, _ops, nbytes in r["targets"]:
            mat[i, to // block] += nbytes
        if has_other:
            mat[i, m] += r["other"][1]
    return mat, block, has_other


def plot_matrix(st, out, max_units):
    mat, block, has_other = matrix(st, max_units)
    fig, ax = plt.subplots(figsize=(6, 5))
    shown = np.where(mat > 0, mat, np.nan)
    im = ax.imshow(shown, cmap="viridis", interpolation="nearest")
    fig.colorbar(im, ax=ax, label="bytes")
    unit = "unit" if block == 1 else "block of %d units" % block
    ax.set_xlabel("target " + unit + (" (last column: other)" if has_other else ""))
    ax.set_ylabel("issuing " + unit)
    ax.set_title("DART communication matrix (%d units)" % st["units"])
    if mat.shape[0] <= 16:
        ax.set_xticks(range(mat.shape[1]))
        ax.set_yticks(range(mat.shape[0]))
        for i in range(mat.shape[0]):
            for j in range(mat.shape[1]):
                if mat[i, j] > 0:
                    ax.text(j, i, "%d" % mat[i, j], ha="center", va="center",
                            color="w", fontsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


def plot_ops(st, out):
    paths = ["shm", "mpi", "-"]
    tot = {}
    for r in st["units_data"]:
        for kind, path, count, _nbytes, ns in r["ops"]:
            c, t = tot.get((kind, path), (0, 0))
            tot[(kind, path)] = (c + count, t + ns)
    kinds = sorted({k for k, _ in tot}, key=lambda k: -sum(
        tot.get((k, p), (0, 0))[0] for p in paths))
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    x = np.arange(len(kinds))
    w = 0.8 / len(paths)
    for col, (ax, what) in enumerate(zip(axes, ["calls", "time in calls [ms]"])):
        for i, p in enumerate(paths):
            vals = [tot.get((k, p), (0, 0))[col] / (1 if col == 0 else 1e6)
                    for k in kinds]
            if any(vals):
                ax.bar(x + (i - 1) * w, vals, w, label=p, color="C%d" % i)
        ax.set_xticks(x)
        ax.set_xticklabels(kinds, rotation=45, ha="right")
        ax.set_ylabel(what)
        if col == 0:
            ax.set_yscale("log")
        ax.legend(title="path")
    fig.suptitle("DART operations, all %d units" % st["units"])
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("stats")
    ap.add_argument("--out", default="dart-stats")
    ap.add_argument("--max-units", type=int, default=256)
    a = ap.parse_args()
    st = load(a.stats)
    plot_matrix(st, a.out + "-matrix.png", a.max_units)
    plot_ops(st, a.out + "-ops.png")
    print("wrote %s-matrix.png %s-ops.png" % (a.out, a.out))


if __name__ == "__main__":
    main()

"""report_targets.py - the performance targets of the DART project, each
evaluated from one benchmark run as a ratio of two variants measured in the
same process, and the analysis shown when a target is missed.

Limits are the project's targets (issues 4 and 7); they are never relaxed
here. TARGET_NOTES holds the measured reasons for targets that this machine
misses (filled in from the analysis recorded in docs/benchmarks.md)."""
import math
import statistics

KIB = 1024

# Measured explanations, shown only next to a missed target (the numbers
# of the run are in its evidence). Written from the analysis of runs on the
# project's 2-core machine; see docs/benchmarks.md.
TARGET_NOTES = {
    "put8": "the blocking on-node put is memcpy + fence plus DART's fixed "
            "call cost (argument checks, datatype and segment lookup, bounds "
            "check; see the DART - memcpy rows of the constant-overhead "
            "table). That cost is of the order of the 7 ns floor itself, so "
            "the 8 B ratio sits close to 2 and a disturbed 8 B point (large "
            "MAD in rma_shm.csv) tips it over.",
    "get8": "as for the blocking put: fixed call cost of the order of the "
            "memcpy+fence floor.",
    "burst8": "a non-blocking 8 B dart_put on the on-node path is a library "
              "call: it checks buffer, datatypes and count, resolves the "
              "global pointer (team, segment and unit to a mapped address, "
              "with a bounds check) and copies. The baseline is a bare 8 B "
              "memcpy; the call variant (the same memcpy inside an exported "
              "function of another shared library) shows what a library "
              "call alone costs relative to it (1.5-3x in the runs on this "
              "machine), which leaves next to nothing of a 2x budget for "
              "checking. DART's own work is the DART/call column of the "
              "put_bw table; the ratio falls towards 1 from 1 KiB on. A "
              "per-thread cache of the last segment was tried and dropped "
              "(more instructions, no faster).",
    "fop8": "dart_fetch_and_op completes at dart_flush, so the measured "
            "operation is two library calls around one lock-prefixed "
            "instruction; the call variant shows the cost of one bare call "
            "doing the same atomic. The ratio sits near 2 and moves with the "
            "machine's load (1.7-2.2 over runs with Open MPI; the flush "
            "itself needs no fence after an atomic and costs less than one "
            "fence, flush_idle row).",
    "bw_put": "DART's on-node put is a memcpy into the target's portion "
              "of a shared segment, the same copy as the floor (memcpy into "
              "a shared window of its own); both destinations start on a "
              "page boundary and share the source (#page_offset in "
              "rma_shm.csv), so the copies differ only in the memory they "
              "touch. Single points of such a comparison scatter between "
              "runs on this shared machine: two identical floor windows "
              "differed by 0.94-1.22 in the same run (at 1-2 MiB a trial "
              "holds only 3-5 copies, as many as the slowest variant "
              "manages in ~1 ms). Repeat the run before looking for a "
              "cause in DART.",
    "bw_get": "see the put bandwidth note.",
    "rma_put_blocking": "the fitted c is DART's per-call work on the RMA "
                        "path (checks, segment resolution, rank and "
                        "displacement translation) on top of MPI_Put + "
                        "MPI_Win_flush.",
    "rma_get_blocking": "as for put_blocking.",
    "rma_put_nb_init": "initiating a raw MPI_Put takes only ~0.1-0.2 us "
                       "here, so 10% leaves 10-20 ns; DART's per-call work "
                       "on the RMA path (argument checks, segment "
                       "resolution, marking the segment for flush, "
                       "displacement translation) is the fitted c in the "
                       "evidence, a constant that vanishes against the "
                       "transfer from ~64 KiB on. The 000 paper measured "
                       "~100 ns for the same step.",
    "rma_get_nb_init": "as for put_nb_init.",
    "gups_mpi": "with Open MPI the raw MPI version is itself a shared-memory "
                "path: with osc/rdma excluded (as this report runs) Open MPI "
                "serves MPI_Win_allocate on one node with osc/sm, which "
                "performs MPI_Accumulate by direct loads/stores under a "
                "window lock. Measured: excluding osc/sm as well "
                "(OMPI_MCA_osc=^rdma,sm) drops the MPI version from ~0.009 "
                "to ~0.000006 GUPS at 4 units. The 3x target presumes an MPI "
                "whose RMA does not take that shortcut (compare the MPICH "
                "section, where DART/MPI is two orders of magnitude).",
    "gups_shmem": "both versions issue one remote atomic XOR per update; "
                  "OpenSHMEM's goes through UCX atomics (spml/ucx), DART's "
                  "through CPU atomics on the shared window; at 4 units on "
                  "2 cores the run is dominated by scheduling (compare "
                  "median and minimum in gups_np4.csv).",
    "stencil_64": "DART's version synchronises every sweep with dart_barrier "
                  "(as the paper's blocking-put stencil), MPI two-sided only "
                  "pairwise; with 4 units on 2 cores a barrier needs every "
                  "unit scheduled, so on this machine its cost is "
                  "scheduling-bound and varies from run to run.",
    "stencil_1024": "see the 64x64 note; at 1024x1024 the sweep dominates.",
    "halo": "DART's exchange is faster than every MPI variant for small "
            "halos (synchronisation by 4 flag puts instead of an epoch) and "
            "loses at some of the large sizes, where a step is bound by "
            "copying 4 x n bytes per unit into the neighbours' memory: the "
            "same copies as MPI's osc/sm, but into receive slots that DART "
            "double-buffers by step parity (needed so that a fast unit "
            "cannot overwrite a halo its neighbour is still waiting on; "
            "fence, PSCW and lock+barrier get that ordering from their "
            "epochs), which doubles the receive footprint in the cache. "
            "With 4 units on 2 cores the spread (MAD in the evidence) is of "
            "the order of the difference.",
}


def _t(idx, op, size, variant):
    r = idx.get((op, size, variant))
    return None if r is None else r["median_us"]


def _ratio_target(tid, name, num, den, limit, evidence, higher_is_better=False):
    if num is None or den is None or den <= 0:
        why = "a variant is missing in this run"
        if "OpenSHMEM" in name:
            why = "no OpenSHMEM with this MPI (Open MPI's oshmem only)"
        return {"id": tid, "name": name, "measured": "-", "met": None,
                "limit": limit[0], "evidence": why}
    r = num / den
    met = r >= limit[1] if higher_is_better else r <= limit[1]
    return {"id": tid, "name": name, "measured": "%.2f" % r, "met": met,
            "limit": limit[0], "evidence": evidence}


def _us(x):
    return "-" if x is None else "%.4f us" % x


def _shm_evidence(idx, tid):
    """Measured decomposition behind the on-node small-message ratios."""
    nb_d, nb_m = _t(idx, "put_nb_init", 8, "dart"), _t(idx, "put_nb_init", 8, "memcpy")
    nb_c = _t(idx, "put_nb_init", 8, "call")
    fl_d, fl_m = _t(idx, "flush_idle", 0, "dart"), _t(idx, "flush_idle", 0, "memcpy")
    parts = ["one non-blocking 8 B dart_put %s vs one 8 B memcpy %s "
             "and one bare library call doing that memcpy %s" % (
                 _us(nb_d), _us(nb_m), _us(nb_c))]
    if tid == "fop8":
        parts.append("a bare library call doing the CPU atomic %s"
                     % _us(_t(idx, "fetch_add8", 8, "call")))
    if tid in ("burst8", "fop8"):
        parts.append("dart_flush with nothing outstanding %s vs a fence %s"
                     % (_us(fl_d), _us(fl_m)))
    return "; ".join(parts)


def shm_targets(res):
    idx = res.rma("shm")
    out = []
    for tid, op, label in (("put8", "put_blocking", "blocking 8 B put"),
                           ("get8", "get_blocking", "blocking 8 B get"),
                           ("burst8", "put_bw", "burst of 8 B puts + flush"),
                           ("fop8", "fetch_add8", "8 B fetch_and_op")):
        d, m = _t(idx, op, 8, "dart"), _t(idx, op, 8, "memcpy")
        floor = "CPU atomic" if op == "fetch_add8" else "memcpy+fence"
        ev = "per operation DART %s, %s %s; %s" % (
            _us(d), floor, _us(m), _shm_evidence(idx, tid))
        out.append(_ratio_target(tid, "%s / %s (on-node)" % (label, floor),
                                 d, m, ("<= 2.00", 2.0), ev))
    for tid, op in (("bw_put", "put_bw"), ("bw_get", "get_bw")):
        out.append(_bandwidth_target(idx, tid, op))
    return out


def _bandwidth_target(idx, tid, op):
    name = "%s bandwidth / memcpy bandwidth, every size >= 64 KiB" % op[:3]
    fr = []
    for (o, s, v), r in idx.items():
        if o == op and v == "dart" and s >= 64 * KIB and (o, s, "memcpy") in idx:
            fr.append((idx[(o, s, "memcpy")]["median_us"] / r["median_us"], s))
    if not fr:
        return {"id": tid, "name": name, "measured": "-", "met": None,
                "limit": ">= 0.90", "evidence": "variant missing in this run"}
    worst = min(fr)
    ev = "worst at %d KiB; per size: %s" % (worst[1] // KIB, ", ".join(
        "%d KiB %.2f" % (s // KIB, f) for f, s in sorted(fr, key=lambda x: x[1])))
    return {"id": tid, "name": name, "measured": "%.2f (worst)" % worst[0],
            "met": worst[0] >= 0.90, "limit": ">= 0.90", "evidence": ev}


def overhead_fit(idx, op, trials, base="mpi"):
    """The DART-MPI paper's model t_DART(m) - t_base(m) = c, fitted by
    weighted least squares over all message sizes m: each difference is
    weighted by 1/sigma^2, sigma being the standard error of the two
    medians (from their median absolute deviation over the trials, at
    least 0.2% of the value). The error of c is scaled by sqrt(reduced
    chi^2) when the points scatter more than their errors say.
    Returns (c, err, sizes) in us, or None."""
    sizes = sorted(s for (o, s, v) in idx if o == op and v == "dart"
                   and (o, s, base) in idx)
    if len(sizes) < 2:
        return None
    d, w = [], []
    for s in sizes:
        sig2 = 0.0
        for v in ("dart", base):
            r = idx[(op, s, v)]
            se = 1.4826 * r.get("mad_us", 0.0) * 1.2533 / math.sqrt(trials)
            sig2 += max(se, 0.002 * r["median_us"], 1e-4) ** 2
        d.append(idx[(op, s, "dart")]["median_us"] - idx[(op, s, base)]["median_us"])
        w.append(1.0 / sig2)
    c = sum(wi * di for wi, di in zip(w, d)) / sum(w)
    chi2 = sum(wi * (di - c) ** 2 for wi, di in zip(w, d)) / (len(d) - 1)
    err = math.sqrt(1.0 / sum(w)) * max(1.0, math.sqrt(chi2))
    return c, err, sizes


def rma_trials(res):
    return int(res.ann.get("rma_rma", {}).get("trials", "5"))


def rma_targets(res):
    """Overhead of DART on the RMA path: the fitted constant c relative to
    the median raw-MPI time of messages up to 1 KiB (where a constant
    overhead weighs most)."""
    idx = res.rma("rma")
    out = []
    for op, lim in (("put_blocking", 0.05), ("get_blocking", 0.05),
                    ("put_nb_init", 0.10), ("get_nb_init", 0.10)):
        name = "RMA path %s overhead vs raw MPI" % op
        fit = overhead_fit(idx, op, rma_trials(res))
        if fit is None:
            out.append({"id": "rma_" + op, "name": name, "measured": "-",
                        "met": None, "limit": "<= %d%%" % (lim * 100),
                        "evidence": "variant missing in this run"})
            continue
        c, err, sizes = fit
        base = statistics.median(_t(idx, op, s, "mpi") for s in sizes if s <= KIB)
        rel = c / base
        ev = "c = %+.4f +- %.4f us (%d sizes), raw MPI %.4f us (median of " \
             "sizes <= 1 KiB); per-size DART/MPI %s" % (c, err, len(sizes), base,
                                                        ", ".join(
                 "%.2f" % (_t(idx, op, s, "dart") / _t(idx, op, s, "mpi"))
                 for s in sizes))
        if rel > lim and rel - 2 * err / base <= lim:
            ev += "; the excess is within 2 standard errors (noise)"
        out.append({"id": "rma_" + op, "name": name,
                    "measured": "%+.1f%% (+-%.1f%%)" % (100 * rel, 100 * err / base),
                    "met": rel <= lim, "limit": "<= %d%%" % (lim * 100),
                    "evidence": ev})
    return out


def gups_targets(res):
    rows = res.prefixed("gups_np")
    by = {(r["units"], r["variant"]): r for r in rows}
    d, s, m = by.get((4, "dart")), by.get((4, "shmem")), by.get((4, "mpi"))

    def g(r):
        return None if r is None else r["gups"]
    ev = "GUPS at 4 units: DART %s, OpenSHMEM %s, MPI %s" % tuple(
        "-" if x is None else "%.4f" % x["gups"] for x in (d, s, m))
    out = [_ratio_target("gups_shmem", "GUPS DART / OpenSHMEM, 4 units",
                         g(d), g(s), (">= 1.00", 1.0), ev, True),
           _ratio_target("gups_mpi", "GUPS DART / MPI RMA, 4 units",
                         g(d), g(m), (">= 3.00", 3.0), ev, True)]
    bad = ["%s@%d: %d" % (r["variant"], r["units"], r["errors"]) for r in rows
           if r["errors"] > 0.01 * r["table_words"]]
    out.append({"id": "gups_verify", "name": "RandomAccess verification "
                "(every version, every unit count)", "limit": "<= 1% wrong",
                "measured": "%d runs checked" % len(rows) if rows else "-",
                "met": (not bad) if rows else None,
                "evidence": "over the limit: " + (", ".join(bad) or "none")})
    return out


def stencil_targets(res):
    rows = res.prefixed("stencil_np")
    by = {(r["units"], r["n"], r["variant"]): r for r in rows}
    units = max([r["units"] for r in rows], default=4)
    out = []
    for n in (64, 1024):
        d, m = by.get((units, n, "dart")), by.get((units, n, "mpi_p2p"))
        ev = "%d units, %dx%d: DART %s ms, MPI %s ms; residuals equal: %s" % (
            units, n, n, "-" if d is None else "%.2f" % (d["median_s"] * 1e3),
            "-" if m is None else "%.2f" % (m["median_s"] * 1e3),
            "-" if d is None else d["match"])
        t = _ratio_target("stencil_%d" % n, "stencil %dx%d time DART / MPI "
                          "two-sided (%d units)" % (n, n, units),
                          d and d["median_s"], m and m["median_s"],
                          ("<= 1.00", 1.0), ev)
        if d is not None and d["match"] != "yes":
            t["met"] = False
            t["evidence"] += " (DART result differs)"
        out.append(t)
    return out


def halo_targets(res):
    rows = res.prefixed("halo_np")
    by = {(r["units"], r["size"], r["variant"]): r for r in rows}
    fr = []
    for (u, s, v), r in by.items():
        if v != "dart":
            continue
        best = [by[(u, s, w)] for w in ("fence", "pscw", "lock") if (u, s, w) in by]
        if best:
            b = min(best, key=lambda x: x["median_us"])
            fr.append((r["median_us"] / b["median_us"], s, u, r, b))
    name = "halo exchange DART / best MPI one-sided, every size"
    if not fr:
        return [{"id": "halo", "name": name, "measured": "-", "met": None,
                 "limit": "<= 1.00", "evidence": "variant missing in this run"}]
    worst = max(fr, key=lambda x: x[0])
    d, b = worst[3], worst[4]
    ev = "%d units; per size: %s; at the worst size DART %.1f us (MAD %.1f), " \
         "%s %.1f us (MAD %.1f)" % (worst[2], ", ".join(
             "%s %.2f" % (_sz(s), f) for f, s, *_ in sorted(fr, key=lambda x: x[1])),
             d["median_us"], d.get("mad_us", 0.0), b["variant"], b["median_us"],
             b.get("mad_us", 0.0))
    return [{"id": "halo", "name": name, "measured": "%.2f (worst, %s)" % (
        worst[0], _sz(worst[1])), "met": worst[0] <= 1.0, "limit": "<= 1.00",
        "evidence": ev}]


def _sz(s):
    return "%d KiB" % (s // KIB) if s >= KIB else "%d B" % s


def evaluate_targets(res):
    return (shm_targets(res) + rma_targets(res) + gups_targets(res) +
            stencil_targets(res) + halo_targets(res))

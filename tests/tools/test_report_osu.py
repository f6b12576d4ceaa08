#!/usr/bin/env python3
"""tools.report_osu: bench/paper/report_osu.py on synthetic OSU outputs
(medians over rounds, raw-MPI rows mapped, failed runs listed, the ratio
to the best other library, the CSV). No MPI, no matplotlib (--no-plot)."""
import csv
import os
import sys
import tempfile

sys.path.insert(0, sys.argv[1])
import report_osu as R  # noqa: E402

PUT = "# OSU OpenSHMEM Put Latency Test v7.4\n# Size  Latency (us)\n" \
      "8 %s\n4096 %s\n# rc=0 secs=1\n"
MR = "# OSU OpenSHMEM Put Message Rate Test v7.4\n# Size Messages/s\n" \
     "8 %s\n# rc=0 secs=1\n"
AMO = "# OSU OpenSHMEM Atomic Operation Rate Test v7.4\n" \
      "# Operation Million ops/s Latency (us)\n" \
      "shmem_longlong_fadd 30.0 %s\n# rc=0 secs=1\n"
BAR = "# OSU OpenSHMEM Barrier Latency Test v7.4\n# Avg Latency(us)\n" \
      "   %s\n# rc=0 secs=1\n"
MPI_PUT = "# OSU MPI_Put Latency Test v7.4\n# Size Latency (us)\n8 %s\n# rc=0\n"
MPI_FOP = "# OSU MPI_Fetch_and_op latency Test v7.4\n# Size Latency (us)\n" \
          "8 %s\n# rc=0\n"
MPI_BAR = "# OSU MPI Barrier Latency Test v7.4\n# Avg Latency(us)\n %s\n# rc=0\n"


def write(root, prog, lib, np_, r, text):
    os.makedirs(os.path.join(root, prog), exist_ok=True)
    with open(os.path.join(root, prog, "%s.np%d.r%d.out" % (lib, np_, r)),
              "w") as f:
        f.write(text)


def check(cond, what):
    if not cond:
        print("FAIL: " + what)
        sys.exit(1)


def main():
    d = tempfile.mkdtemp()
    runs = os.path.join(d, "runs")
    for r, (a, b, c) in enumerate([("0.02", "0.05", "0.04"),
                                   ("0.03", "0.07", "0.05"),
                                   ("0.04", "0.06", "0.06")], 1):
        write(runs, "osu_oshm_put", "dart-openmpi", 2, r, PUT % (a, b))
        write(runs, "osu_oshm_put", "oshmem", 2, r, PUT % (c, "0.09"))
        write(runs, "osu_oshm_put_mr", "dart-openmpi", 2, r, MR % "5e7")
        write(runs, "osu_oshm_put_mr", "oshmem", 2, r, MR % "4e7")
        write(runs, "osu_oshm_atomics", "dart-openmpi", 2, r, AMO % "0.03")
        write(runs, "osu_oshm_barrier", "oshmem", 4, r, BAR % "5.0")
        write(runs, "osu_oshm_barrier", "dart-openmpi", 4, r, BAR % "4.0")
        write(runs, "osu_put_latency", "mpi-openmpi", 2, r, MPI_PUT % "0.2")
        write(runs, "osu_fop_latency", "mpi-openmpi", 2, r, MPI_FOP % "0.5")
        write(runs, "osu_barrier", "mpi-openmpi", 4, r, MPI_BAR % "6.0")
    write(runs, "osu_oshm_atomics", "oshmem", 2, 1,
          "# OSU OpenSHMEM Atomic Operation Rate Test v7.4\n"
          "*** stack smashing detected ***\n# rc=134 secs=1\n")

    write(runs, "osu_oshm_atomics", "oshmem", 2, 2,
          (AMO % "0.04").replace("# rc=0", "*** stack smashing ***\n# rc=134"))

    values, rate, fails = R.collect(runs)
    med = R.medians(values)
    check(med[("osu_oshm_put", 2, "dart-openmpi", 8)] == 0.03, "median 8 B")
    check(med[("osu_oshm_put", 2, "dart-openmpi", 4096)] == 0.06, "median 4 KiB")
    check(med[("osu_oshm_put", 2, "mpi-openmpi", 8)] == 0.2, "raw MPI put row")
    check(med[("osu_oshm_atomics", 2, "mpi-openmpi", "longlong_fadd")] == 0.5,
          "raw MPI fetch-and-op row")
    check(med[("osu_oshm_barrier", 4, "mpi-openmpi", "all")] == 6.0,
          "raw MPI barrier row")
    check(rate["osu_oshm_put_mr"] and not rate["osu_oshm_put"], "units")
    check(fails == ["osu_oshm_atomics np2 oshmem r1 rc=134 (no data)",
                    "osu_oshm_atomics np2 oshmem r2 rc=134 (1 rows kept)"],
          "failed runs listed: %s" % fails)
    check(med[("osu_oshm_atomics", 2, "oshmem", "longlong_fadd")] == 0.04,
          "rows of a run that died later are kept")
    best = R.best_other(med, "osu_oshm_put", 2, 8, False, R.libraries(med))
    check(best == (0.05, "oshmem"), "best other: %s" % (best,))
    check(abs(R.ratio(0.03, 0.05, False) - 0.6) < 1e-12, "latency ratio")
    check(abs(R.ratio(5e7, 4e7, True) - 0.8) < 1e-12, "rate ratio")
    rows = R.table(med, rate, 2, [8, 4096])
    put8 = [x for x in rows if x.startswith("| put | 8 B")]
    check(len(put8) == 1 and "0.60, -" in put8[0] and "oshmem" in put8[0],
          "table row: %s" % put8)
    mr = [x for x in rows if x.startswith("| put_mr | 8 B")]
    check(len(mr) == 1 and "50 M" in mr[0] and "0.80, -" in mr[0],
          "rate row: %s" % mr)
    bar = R.table(med, rate, 4, [8])
    check(any(x.startswith("| barrier | all") and "0.80, -" in x for x in bar),
          "barrier row: %s" % bar)

    docs = os.path.join(d, "docs")
    os.makedirs(docs)
    with open(os.path.join(docs, "benchmarks.md"), "w") as f:
        f.write("before\n%s\nold\n%s\nafter\n" % (R.BEGIN, R.END))
    check(R.main([runs, "--docs", docs, "--splice", "--no-plot"]) == 0, "main")
    text = open(os.path.join(docs, "benchmarks.md")).read()
    check(text.startswith("before\n" + R.BEGIN) and "old" not in text and
          text.endswith(R.END + "\nafter\n") and "**4 PEs**" in text,
          "spliced section")
    with open(os.path.join(docs, "bench", "osu_np2.csv")) as f:
        rows = list(csv.reader(f))
    check(rows[0][:3] == ["benchmark", "key", "unit"] and
          ["osu_oshm_put", "8", "us", "0.03", "0.05", "0.2"] in rows,
          "csv: %s" % rows[:3])
    check(R.main([docs, "--no-plot"]) == 1, "no OSU output gives 1")
    print("report_osu: all checks passed")


if __name__ == "__main__":
    main()

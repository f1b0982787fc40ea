"""`acart collect --uncore` end to end on the simulated board (acart_simboard: the target
runtime on four simulated Skylakes, 06_5E, whose package has the simulated client uncore
of tests/sim/sim_uncore.c): the host names the events, the agent takes the uncore ECB
through its allowlist, programs the ARB, CBo and UCLK MSRs and reads them and the IMC's
MMIO counters every interval into uncore records on the uncore channel; `report --uncore`
shows the counts per interval and `export csv` writes them as VTune's discrete table.
Every simulated millisecond the package does 1,000,000 uncore clocks, 5000 ARB requests,
4000/3000/2000/1000 lookups on CBo 0-3 and 20000/10000 DRAM line reads/writes, so each
interval's counts are the same whole number of those steps. The same collection against
the board in QEMU's shape (no PMU) fails with the board's reason.

  test_uncore_simboard.py --acart ACART --simboard SIMBOARD --workdir DIR"""
import argparse
import csv
import glob
import os
import shutil
import sys

from acarttest.ptcase import check, run
from acarttest.simboard import Board

EVENTS = ["UNC_CLOCK.SOCKET", "UNC_ARB_TRK_REQUESTS.ALL", "UNC_CBO_CACHE_LOOKUP.ANY_MESI",
          "UNC_CBO_CACHE_LOOKUP.ANY_MESI:cbo=2", "UNC_IMC_DRAM_DATA_READS",
          "UNC_IMC_DRAM_DATA_WRITES", "UNC_ARB_COH_TRK_REQUESTS.ALL"]
PER_STEP = [1000000, 5000, 4000, 2000, 20000, 10000, 0]  # the last: not simulated


def main():
    ap = argparse.ArgumentParser()
    for a in ("--acart", "--simboard", "--workdir"):
        ap.add_argument(a, required=True)
    args = ap.parse_args()
    shutil.rmtree(args.workdir, ignore_errors=True)
    os.makedirs(args.workdir)
    folder = os.path.join(args.workdir, "uncore")
    target = ["collect", "--duration", "2", "-o", folder]
    with Board(args, "uncore") as board:
        check("acart: uncore: Skylake client" in board.text(), board.text())
        out, _ = run([args.acart] + target + ["--target", "127.0.0.1:%d" % board.port,
                     "--uncore", ",".join(EVENTS), "--uncore-interval", "50"])
        check("uncore: " in out and "(acart report --uncore)" in out, out)
        # A name of another model's uncore, and an unknown one: usage errors.
        for bad, says in (("UNC_IMC_DRAM_RW_SLICE0", "is no uncore event of Skylake client"),
                          ("UNC_CBO_CACHE_LOOKUP.ANY_MESI:cbo=9", "the only modifier is :cbo=N")):
            _, err = run([args.acart] + target + ["--target", "127.0.0.1:%d" % board.port,
                         "--uncore", bad], expect=2)
            check(says in err, err)

    out, _ = run([args.acart, "report", folder, "--uncore"])
    lines = out.splitlines()
    check(lines[0].startswith("Uncore: ") and "every 50 ms asked" in lines[0], out)
    reads = int(lines[0].split()[1])
    check(reads >= 10, "only %d reads in 2 s at 50 ms:\n%s" % (reads, out))
    rows = [l.split() for l in lines[2:2 + reads]]
    steps_seen = 0
    for row in rows[1:]:
        counts = [int(c) for c in row[2:]]
        steps = counts[0] // PER_STEP[0]
        check(counts == [steps * p for p in PER_STEP], "interval not whole steps: %s" % row)
        steps_seen += steps
    check(steps_seen > 0, "the uncore counted nothing after the first read:\n%s" % out)
    check(any(l.startswith("UNC_IMC_DRAM_DATA_READS: ") and "per second" in l for l in lines), out)

    csv_dir = os.path.join(args.workdir, "csv")
    run([args.acart, "export", "csv", folder, "-o", csv_dir])
    paths = glob.glob(os.path.join(csv_dir, "uncore-hostname-*.csv"))
    check(len(paths) == 1, "uncore CSV files: %s" % paths)
    with open(paths[0]) as f:
        table = list(csv.reader(f))
    check(table[0] == ["tsc.RDTSC"] + ["%s.COUNT" % e.replace(".", "_").replace(":", "_").replace("=", "_")
                                       for e in EVENTS], "header %s" % table[0])
    check(len(table) == 1 + reads, "%d CSV rows for %d reads" % (len(table) - 1, reads))
    for prev, row in zip(table[1:], table[2:]):
        check(all(int(b) >= int(a) for a, b in zip(prev, row)), "not cumulative: %s %s" % (prev, row))

    with Board(args, "uncore-qemu", "--model", "qemu") as board:
        _, err = run([args.acart] + target + ["--target", "127.0.0.1:%d" % board.port,
                     "--uncore", "UNC_CLOCK.SOCKET"], expect=5)
        check("has no uncore acart can count (INIT_UNC answered 167" in err, err)
        check("acart: no uncore (no usable core PMU, so no uncore either): uncore requests are "
              "refused" in board.text(), board.text())
        check("acart: INIT_UNC refused: no usable core PMU" in board.text(), board.text())
    print("PASS: %d reads, %d simulated steps after the first" % (reads, steps_seen))
    return 0


if __name__ == "__main__":
    sys.exit(main())

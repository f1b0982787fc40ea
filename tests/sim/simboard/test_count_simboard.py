"""Counting mode end to end on the simulated board (acart_simboard --rates: four
simulated Skylakes retiring ten kinds of events at known rates of real time).

1. One group: `acart collect --count` of six events reads READ_AND_RESET every 50 ms; per
   CPU and event the counts add up to what the simulated CPU retired while its counters
   were enabled (the board's truth) within 5 %, and the per-CPU TSC deltas cover the
   collection but for the time the reads take (within 10 %).
2. Three groups: twelve events take turns of one interval each (READ_SWITCH_GROUP): each
   row counts one group, the others' fields are empty, and within a row the events of its
   group stand in the simulator's ratios (exact: they counted over the same time).
3. `acart report --counts` prints the events and the series; `acart export csv` writes a
   VTune discrete table per CPU with a row per read and cumulative counts.

  test_count_simboard.py --acart ACART --simboard SIMBOARD --workdir DIR"""
import csv
import glob
import json
import os
import re
import sys
import time

from acarttest.ptcase import board_test_args, check, run
from acarttest.simboard import Board

# Events per TSC tick (simboard.c RATES) by what the simulator counts.
RATE = {"instructions": 1.0, "cycles": 0.5, "ref_cycles": 1.0, "branches": 0.2,
        "mispredicts": 0.01, "loads": 0.333, "stores": 0.143, "llc_refs": 0.02,
        "llc_misses": 0.005, "uops": 1.25}
KIND = {"INST_RETIRED.ANY": "instructions", "CPU_CLK_UNHALTED.THREAD": "cycles",
        "CPU_CLK_UNHALTED.REF_TSC": "ref_cycles", "INST_RETIRED.ANY_P": "instructions",
        "CPU_CLK_UNHALTED.THREAD_P": "cycles", "BR_INST_RETIRED.ALL_BRANCHES": "branches",
        "BR_MISP_RETIRED.ALL_BRANCHES": "mispredicts", "MEM_INST_RETIRED.ALL_LOADS": "loads",
        "MEM_INST_RETIRED.ALL_STORES": "stores", "LONGEST_LAT_CACHE.REFERENCE": "llc_refs",
        "LONGEST_LAT_CACHE.MISS": "llc_misses", "UOPS_ISSUED.ANY": "uops"}
ONE_GROUP = ["INST_RETIRED.ANY", "CPU_CLK_UNHALTED.THREAD", "BR_INST_RETIRED.ALL_BRANCHES",
             "MEM_INST_RETIRED.ALL_LOADS", "LONGEST_LAT_CACHE.MISS", "UOPS_ISSUED.ANY"]
THREE_GROUPS = list(KIND)
FIXED = ["interval", "cpu", "group", "tsc", "tsc_delta"]


def truth_of(log):
    truth = {}
    for m in re.finditer(r"simboard: truth cpu (\d+)((?: \w+=\d+)+)", log):
        truth[int(m.group(1))] = {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", m.group(2))}
    return truth


def collect(args, board, name, events):
    folder = os.path.join(args.workdir, name)
    out, _ = run([args.acart, "collect", "--target", "127.0.0.1:%d" % board.port, "-o", folder,
                  "--duration", "2", "--count", ",".join(events), "--interval", "50"])
    check("counting: %d events" % len(events) in out, out)
    deadline = time.time() + 10
    while len(truth_of(board.text())) < 4 and time.time() < deadline:
        time.sleep(0.1)
    with open(os.path.join(folder, "counts.csv")) as f:
        rows = list(csv.DictReader(f))
    check(rows and list(rows[0].keys()) == FIXED + events, "counts.csv header %s" % rows[:1])
    return folder, rows


def main():
    args = board_test_args()

    with Board(args, "one", "--rates") as board:
        folder, rows = collect(args, board, "one", ONE_GROUP)
        log = board.text()
    check("collection started: counting 6 events in 1 groups, no samples" in log, log)
    truth = truth_of(log)
    with open(os.path.join(folder, "session.json")) as f:
        duration = json.load(f)["duration_s"]
    reads = len(rows) // 4
    check(reads >= 20 and len(rows) == 4 * reads, "%d rows" % len(rows))
    for cpu in range(4):
        mine = [r for r in rows if int(r["cpu"]) == cpu]
        check([int(r["interval"]) for r in mine] == list(range(reads)), "cpu %d reads" % cpu)
        check(all(r["group"] == "0" for r in mine), "cpu %d: one group" % cpu)
        ticks = sum(int(r["tsc_delta"]) for r in mine)
        check(abs(ticks / 2e9 / duration - 1) < 0.1,
              "cpu %d counted %.3f s of %.3f" % (cpu, ticks / 2e9, duration))
        # A row's tsc is the target's TSC as the host asked for it, just before the read:
        # read b ran after a's TSC and before c's was asked for, however late the host's
        # requests reached the target (a loaded machine delays them by tens of ms).
        for a, b, c in zip(mine, mine[1:], mine[2:]):
            check(0 < int(b["tsc_delta"]) <= int(c["tsc"]) - int(a["tsc"]),
                  "cpu %d: read %s's interval is not between the reads" % (cpu, b["interval"]))
        for name in ONE_GROUP:
            got, want = sum(int(r[name]) for r in mine), truth[cpu][KIND[name]]
            error = abs(got - want) / want
            print("cpu %d %-30s counted %12d truth %12d error %5.2f %%" %
                  (cpu, name, got, want, 100 * error))
            check(error < 0.05, "cpu %d %s: counted %d, truth %d" % (cpu, name, got, want))

    with Board(args, "three", "--rates") as board:
        folder, rows = collect(args, board, "three", THREE_GROUPS)
    groups = [[0, 1, 2, 3, 4, 5, 6], [7, 8, 9, 10], [11]]
    checked = 0
    for r in rows:
        g = int(r["group"])
        check(g == int(r["interval"]) % 3, "read %s counted group %d" % (r["interval"], g))
        mine = [THREE_GROUPS[i] for i in groups[g]]
        for i, name in enumerate(THREE_GROUPS):
            check((r[name] != "") == (name in mine), "read %s: %s" % (r["interval"], name))
        base = mine[0]
        if int(r[base]) < 10 ** 6:
            continue
        for name in mine[1:]:
            ratio = int(r[name]) / int(r[base])
            want = RATE[KIND[name]] / RATE[KIND[base]]
            check(abs(ratio / want - 1) < 0.02, "read %s %s/%s = %.4f, not %.4f" %
                  (r["interval"], name, base, ratio, want))
            checked += 1
    check(checked > 100, "only %d ratios checked" % checked)

    out, _ = run([args.acart, "report", folder, "--counts"])
    check(re.search(r"Counting: 12 events in 3 groups, \d+ reads of 50 ms on 4 CPUs", out), out)
    for i, name in enumerate(THREE_GROUPS):
        check(re.search(r"\d+ +\d+ +\d+ +%d  e%d %s\n" % (i in groups[1] and 1 or
                                                         i in groups[2] and 2 or 0, i, re.escape(name)),
                        out), "report: %s\n%s" % (name, out))
    check(len(re.findall(r"^ +\d+ +\d+\.\d{3} +[0-3] ", out, re.M)) == len(rows), out)
    csvdir = os.path.join(args.workdir, "csv")
    run([args.acart, "export", "csv", folder, "-o", csvdir])
    files = sorted(glob.glob(os.path.join(csvdir, "counters-cpu*-hostname-*.csv")))
    check(len(files) == 4, "csv files %s" % files)
    with open(files[0]) as f:
        table = list(csv.reader(f))
    check(table[0][0] == "tsc.RDTSC" and table[0][1] == "INST_RETIRED_ANY_cpu0.COUNT" and
          len(table[0]) == 13, "csv header %s" % table[0])
    check(len(table) - 1 == len(rows) // 4, "csv rows %d" % (len(table) - 1))
    for a, b in zip(table[1:], table[2:]):
        check(all(int(y) >= int(x) for x, y in zip(a, b)), "csv not cumulative: %s %s" % (a, b))
    print("PASS: counts within 5 % of the truth, groups in turn with exact ratios, report, csv")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Multiplexing end to end on the simulated board (acart_simboard --rates: the target
runtime on four simulated Skylakes whose code retires ten kinds of events at known rates
of real time): `acart collect --mux 10` packs twelve events into three groups that take
turns of 10 ms on each CPU's counters (3 fixed and 4 general), and `acart report` scales
each event's samples by the time its group counted against the time the CPUs counted.
Each scaled count must be within 5 % of what the simulated CPUs retired while the
collection ran (the board prints that truth when the collection stops).

  test_mux_simboard.py --acart ACART --simboard SIMBOARD --workdir DIR"""
import json
import os
import re
import sys
import time

from acarttest.ptcase import board_test_args, check, run
from acarttest.simboard import Board

# (event, sample-after, what the simulator counts for it)
EVENTS = [
    ("INST_RETIRED.ANY", 2000003, "instructions"),
    ("CPU_CLK_UNHALTED.THREAD", 1000003, "cycles"),
    ("CPU_CLK_UNHALTED.REF_TSC", 2000003, "ref_cycles"),
    ("INST_RETIRED.ANY_P", 2000003, "instructions"),
    ("CPU_CLK_UNHALTED.THREAD_P", 1000003, "cycles"),
    ("BR_INST_RETIRED.ALL_BRANCHES", 400009, "branches"),
    ("BR_MISP_RETIRED.ALL_BRANCHES", 20011, "mispredicts"),
    ("MEM_INST_RETIRED.ALL_LOADS", 500009, "loads"),
    ("MEM_INST_RETIRED.ALL_STORES", 200003, "stores"),
    ("LONGEST_LAT_CACHE.REFERENCE", 40009, "llc_refs"),
    ("LONGEST_LAT_CACHE.MISS", 10007, "llc_misses"),
    ("UOPS_ISSUED.ANY", 2500009, "uops"),
]
GROUPS = [0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2]


def main():
    args = board_test_args()
    folder = os.path.join(args.workdir, "mux")
    spec = ",".join("%s:sa=%d" % (name, sa) for name, sa, _ in EVENTS)
    with Board(args, "mux", "--rates") as board:
        out, _ = run([args.acart, "collect", "--target", "127.0.0.1:%d" % board.port, "-o", folder,
                      "--duration", "3", "--mux", "10", "--event", spec])
        deadline = time.time() + 10
        while "simboard: truth" not in board.text() and time.time() < deadline:
            time.sleep(0.1)
        log = board.text()
    check("3 event groups take turns on the counters (timer-based)" in log, log)
    truth = {}
    for m in re.finditer(r"simboard: truth cpu \d+((?: \w+=\d+)+)", log):
        for k, v in re.findall(r"(\w+)=(\d+)", m.group(1)):
            truth[k] = truth.get(k, 0) + int(v)
    check(truth.get("instructions", 0) > 0, "no truth from the board:\n" + log)

    with open(os.path.join(folder, "session.json")) as f:
        session = json.load(f)
    check([e["group"] for e in session["events"]] == GROUPS,
          "groups %s" % [e.get("group") for e in session["events"]])
    mux = session["multiplexing"]
    check(mux["groups"] == 3 and mux["switch_ms"] == 10, "multiplexing %s" % mux)
    for cpu, running in enumerate(mux["running_tsc"]):
        check(sum(running) == mux["enabled_tsc"][cpu], "cpu %d: running %s" % (cpu, running))
        for g in range(3):
            share = running[g] / mux["enabled_tsc"][cpu]
            check(share > 0.1, "cpu %d group %d counted %.2f of the time" % (cpu, g, share))
    check(sum(session["samples"]["dropped_per_cpu"]) == 0, "samples dropped")

    out, _ = run([args.acart, "report", folder, "--by", "cpu"])
    estimates = dict(re.findall(r"\nEvent (\S+) \(index \d+\)[^\n]*\nMultiplexed: group \d of 3 "
                                r"counted [^\n]*: estimated count (\d+)", out))
    check(len(estimates) == len(EVENTS), "estimates for %d events:\n%s" % (len(estimates), out))
    errors = {}
    for name, _, kind in EVENTS:
        errors[name] = abs(int(estimates[name]) - truth[kind]) / truth[kind]
        print("%-30s estimated %14d truth %14d error %5.2f %%" %
              (name, int(estimates[name]), truth[kind], 100 * errors[name]))
    worst = max(errors.values())
    check(worst < 0.05, "a scaled count is %.2f %% off the truth" % (100 * worst))
    print("PASS: every scaled count within %.2f %% of the truth" % (100 * worst))
    return 0


if __name__ == "__main__":
    sys.exit(main())

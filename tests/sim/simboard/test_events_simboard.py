"""`acart collect --event` by perfmon name, end to end on the simulated board
(acart_simboard: the target runtime on four simulated Skylakes, CPUID 06_5E, over loopback
TCP): the host resolves the names against perfmon's SKL table, the agent accepts the ECB
(general counters with counter masks and invert, MSR_OFFCORE_RSP_0) through its MSR
allowlist, the simulated CPUs program it without a #GP, and the events the simulator
counts (instructions on fixed counter 0, branches on a general counter) give samples under
their perfmon names; the ones it does not model (stalls, offcore responses) give none.

  test_events_simboard.py --acart ACART --simboard SIMBOARD --workdir DIR"""
import json
import os
import sys

from acarttest.ptcase import board_test_args, check, run
from acarttest.simboard import Board

EVENTS = ["INST_RETIRED.ANY:sa=100000", "BR_INST_RETIRED.ALL_BRANCHES:sa=20000",
          "UOPS_ISSUED.STALL_CYCLES", "OFFCORE_RESPONSE.DEMAND_DATA_RD.ANY_RESPONSE"]


def main():
    args = board_test_args()
    with Board(args, "events") as board:
        folder = os.path.join(args.workdir, "events")
        out, _ = run([args.acart, "collect", "--target", "127.0.0.1:%d" % board.port, "-o", folder,
                      "--duration", "2", "--event", ",".join(EVENTS)])
        check("events named from Intel perfmon SKL version 59" in out, out)
    with open(os.path.join(folder, "session.json")) as f:
        session = json.load(f)
    names = [e["name"] for e in session["events"]]
    check(names == [e.split(":")[0] for e in EVENTS], "session events %s" % names)
    check([e["sample_after"] for e in session["events"]] == [100000, 20000, 2000003, 100003],
          "sample-after values %s" % session["events"])
    out, _ = run([args.acart, "report", folder, "--by", "cpu"])
    samples = {}
    for line in out.splitlines():
        if line.startswith("Event "):
            samples[line.split()[1]] = int(line.rsplit(":", 1)[1].split()[0])
    check(samples["INST_RETIRED.ANY"] > 0 and samples["BR_INST_RETIRED.ALL_BRANCHES"] > 0,
          "no samples of the counted events:\n%s" % out)
    check(samples["UOPS_ISSUED.STALL_CYCLES"] == 0 and
          samples["OFFCORE_RESPONSE.DEMAND_DATA_RD.ANY_RESPONSE"] == 0,
          "samples of events the simulator does not count:\n%s" % out)

    # --lbr: the simulated Skylakes' LBRs (format 5, 32 deep) hold the loop's two branches
    # of every millisecond (simboard.c), frozen at each overflow.
    with Board(args, "lbr") as board:
        folder = os.path.join(args.workdir, "lbr")
        run([args.acart, "collect", "--target", "127.0.0.1:%d" % board.port, "-o", folder,
             "--duration", "2", "--lbr", "--event", "INST_RETIRED.ANY:sa=100000"])
    with open(os.path.join(folder, "session.json")) as f:
        lbr = json.load(f)["lbr"]
    check((lbr["format"], lbr["depth"], lbr["has_info"], lbr["call_stack"]) == (5, 32, True, False)
          and len(lbr["registers"]) == 97 and lbr["registers"][:4] == ["tos", "from0", "to0", "info0"],
          "session.json lbr %s" % lbr)
    out, _ = run([args.acart, "report", folder, "--by", "branch"])
    edges = [l.split() for l in out.splitlines() if "->" in l and not l.lstrip().startswith("Branches")]
    got = sorted((e[-4], e[-1], e[3]) for e in edges)
    check(got == [("0x100048", "0x100100", "2.0"), ("0x100100", "0x100040", "6.0")],
          "--by branch edges %s:\n%s" % (got, out))
    back = [e for e in edges if e[-4] == "0x100100"][0]
    check(40.0 <= float(back[2].rstrip("%")) <= 60.0, "back edge mispredicts %s" % back)
    check(int(edges[0][0]) + int(edges[1][0]) > 0 and "32 entries" in out, out)

    # A precise event with --lbr on simulated Sapphire Rapids (adaptive PEBS, architectural
    # LBRs): the samples' LBR words come from each PEBS record's LBR group, and the host
    # finds the same loop edges in them.
    with Board(args, "pebs-lbr", "--model", "sapphirerapids") as board:
        folder = os.path.join(args.workdir, "pebs-lbr")
        run([args.acart, "collect", "--target", "127.0.0.1:%d" % board.port, "-o", folder,
             "--duration", "2", "--lbr", "--event", "BR_INST_RETIRED.ALL_BRANCHES:sa=1000:precise"])
    with open(os.path.join(folder, "session.json")) as f:
        lbr = json.load(f)["lbr"]
    check((lbr["format"], lbr["depth"]) == (63, 32), "session.json lbr %s" % lbr)
    out, _ = run([args.acart, "report", folder, "--by", "branch"])
    edges = [l.split() for l in out.splitlines() if "->" in l and not l.lstrip().startswith("Branches")]
    arch = sorted((e[-4], e[-1], e[3]) for e in edges)
    check(arch == [("0x100048", "0x100100", "2.0"), ("0x100100", "0x100040", "6.0")],
          "--by branch edges from PEBS records %s:\n%s" % (arch, out))
    check(" 0 of " not in out and "architectural" in out, out)
    print("PASS: %s; LBR edges %s; from PEBS records %s" % (samples, got, arch))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""`acart collect --event` by perfmon name, end to end on the simulated board
(acart_simboard: the target runtime on four simulated Skylakes, CPUID 06_5E, over loopback
TCP): the host resolves the names against perfmon's SKL table, the agent accepts the ECB
(general counters with counter masks and invert, MSR_OFFCORE_RSP_0) through its MSR
allowlist, the simulated CPUs program it without a #GP, and the events the simulator
counts (instructions on fixed counter 0, branches on a general counter) give samples under
their perfmon names; the ones it does not model (stalls, offcore responses) give none.

  test_events_simboard.py --acart ACART --simboard SIMBOARD --workdir DIR"""
import argparse
import json
import os
import shutil
import sys

from ptcase import check, run
from test_pt_capture import Board

EVENTS = ["INST_RETIRED.ANY:sa=100000", "BR_INST_RETIRED.ALL_BRANCHES:sa=20000",
          "UOPS_ISSUED.STALL_CYCLES", "OFFCORE_RESPONSE.DEMAND_DATA_RD.ANY_RESPONSE"]


def main():
    ap = argparse.ArgumentParser()
    for a in ("--acart", "--simboard", "--workdir"):
        ap.add_argument(a, required=True)
    args = ap.parse_args()
    shutil.rmtree(args.workdir, ignore_errors=True)
    os.makedirs(args.workdir)
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
    print("PASS: %s" % samples)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""A PMI storm end to end on the simulated board (acart_simboard --rates: four simulated
Skylakes retiring instructions at one per TSC tick, every MSR access costing the CPU real
time, --msr-cost, which is what the board's TSC counts): INST_RETIRED.ANY every 100,000
instructions is 20,000 PMIs a second per CPU, each some 15 us of MSR accesses, more than
the one thread that runs the four CPUs and the net context has. With the board's PMI budget
at 2 kHz (--pmi-rate) the periods double until it holds, and:

1. the session stays responsive: `acart collect --duration 2` gets every answer (START,
   STOP, the results) and ends within 3 s of its duration;
2. the throttling is reported: session.json's samples.pmi_budget (per CPU: throttles, the
   TSC of the first), the board's console at STOP, and `acart report`'s "Throttled:" line
   per CPU.

Without the budget (--pmi-rate 1000000) the same collection does not end: the board spends
its time in PMIs and answers nothing (tried by hand; not run here, it only times out).

  test_storm_simboard.py --acart ACART --simboard SIMBOARD --workdir DIR"""
import json
import os
import sys
import time

from acarttest.ptcase import board_test_args, check, run
from acarttest.simboard import Board, collect

DURATION = 2
RATE_HZ = 2000


def main():
    args = board_test_args()
    with Board(args, "storm", "--rates", "--slice", "50000", "--msr-cost", "2000",
               "--pmi-rate", str(RATE_HZ)) as board:
        began = time.time()
        folder, out, _ = collect(args, board, "storm", "--duration", str(DURATION),
                                 "--event", "INST_RETIRED.ANY:sa=100000")
        took = time.time() - began
        time.sleep(0.5)
        log = board.text()
    print("collect took %.2f s for a %d s collection" % (took, DURATION))
    check(took < DURATION + 3, "the session was not responsive: %.1f s\n%s" % (took, log))
    with open(os.path.join(folder, "session.json")) as f:
        budget = json.load(f)["samples"]["pmi_budget"]
    print("budget: %s" % json.dumps(budget))
    check(budget["max_rate_hz"] == RATE_HZ and budget["cpu_percent"] == 25, budget)
    for cpu in range(4):
        check(budget["throttles"][cpu] >= 3, "cpu %d not throttled: %s" % (cpu, budget))
        check(budget["first_raise_tsc"][cpu] > 0, budget)
        check("acart: cpu %d: PMI budget exceeded" % cpu in log, log)
    out, _ = run([args.acart, "report", folder, "--by", "cpu"])
    for cpu in range(4):
        check("Throttled: CPU %d " % cpu in out, out)
    print(next(line for line in out.splitlines() if line.startswith("Throttled: CPU 0")))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""aca_selftest() on the kit board (qemu-pc, --append selftest): every CPU's index, the
current-task hook, the stack bounds and the sampling timer, checked by acart itself from
the boot task with interrupts on. Every CPU must take ticks, each in a task and with its
interrupted stack pointer inside the bounds the kit reports."""
import argparse
import re

from acarttest.board import Board

ap = argparse.ArgumentParser()
ap.add_argument("--image", required=True)
ap.add_argument("--cpus", type=int, default=4)
args = ap.parse_args()

with Board(args.image, cpus=args.cpus, workload="hotspot", append="selftest") as b:
    b.wait_for(r"^acart selftest: (ok|.*wrong.*|.*error.*|busy.*)$", timeout=120)
    con = b.console()

assert re.search(r"^acart selftest: ok$", con, re.M), con
assert re.search(r"^acart selftest: %d CPUs, indexes 0\.\.%d, TSC \d+ Hz$" %
                 (args.cpus, args.cpus - 1), con, re.M), con
rows = re.findall(r"^acart selftest: cpu (\d+): (\d+) ticks in (\d+) ms, (\d+) in a task, "
                  r"(\d+) with the interrupted stack inside its bounds$", con, re.M)
assert sorted(int(r[0]) for r in rows) == list(range(args.cpus)), con
for cpu, ticks, ms, in_task, stack_ok in rows:
    ticks, in_task, stack_ok = int(ticks), int(in_task), int(stack_ok)
    assert ticks > 0, "cpu %s took no tick:\n%s" % (cpu, con)
    assert in_task == ticks and stack_ok == ticks, (cpu, ticks, in_task, stack_ok)
print("selftest ok on %d cpus: %s" % (args.cpus, ", ".join("cpu%s %s ticks" % (r[0], r[1])
                                                            for r in rows)))

"""acart report --metrics on a synthetic collection whose event counts are known: top-down
level 1 (tools/metrics.h) per task and for the whole run, each fraction computed here from
the counts the collection holds (samples x sample-after value), with sample-after values
that differ by event so the scaling is checked too; and the refusals: a collection without
the tma1 events, --metrics with --by caller."""

import os
import re

from acarttest.tooltest import check, main, run

# The tma1 events with their sample-after values (index = order).
EVENTS = [("CPU_CLK_UNHALTED.THREAD", 2000), ("IDQ_UOPS_NOT_DELIVERED.CORE", 1000),
          ("UOPS_ISSUED.ANY", 2000), ("UOPS_RETIRED.RETIRE_SLOTS", 2000),
          ("INT_MISC.RECOVERY_CYCLES", 500)]
# Samples per task and event.
TASKS = {(1, 1, "control"): [50, 80, 100, 80, 10], (2, 2, "logger"): [25, 20, 55, 50, 0]}


def fractions(samples):
    clk, nd, issued, retired, recovery = (n * sav for n, (_, sav) in zip(samples, EVENTS))
    slots = 4.0 * clk
    fe, ret = nd / slots, retired / slots
    bs = (issued - retired + 4 * recovery) / slots
    return clk, ret, bs, fe, 1 - fe - bs - ret


def row(values, label):
    clk, ret, bs, fe, be = values
    return "%.0f %.1f%% %.1f%% %.1f%% %.1f%% %s" % (clk, 100 * ret, 100 * bs, 100 * fe, 100 * be, label)


def test(args):
    folder = os.path.join(args.workdir, "tma1")
    cmd = [args.synth, folder, "--cpus", 1]
    for name, sav in EVENTS:
        cmd += ["--event", "%s:%d" % (name, sav)]
    for (pid, tid, name), samples in TASKS.items():
        cmd += ["--task", "%d:%d:%s" % (pid, tid, name)]
        for event, n in enumerate(samples):
            if n:
                cmd += ["--run", "0:%d:%d:0x1000:%d:%d" % (pid, tid, n, event)]
    run(cmd)
    out, _ = run([args.acart, "report", folder, "--by", "task", "--metrics"])
    lines = [" ".join(l.split()) for l in out.splitlines()]
    want = []
    for (pid, tid, name), samples in sorted(TASKS.items(), key=lambda kv: -kv[1][0]):
        want.append(row(fractions(samples), "%s (pid %d, tid %d)" % (name, pid, tid)))
    total = [sum(s[i] for s in TASKS.values()) for i in range(len(EVENTS))]
    want.append(row(fractions(total), "Total"))
    start = next((i for i, l in enumerate(lines) if l.startswith("Clockticks Retiring")), None)
    check(start is not None, "no metrics table:\n%s" % out)
    got = lines[start + 1:start + 1 + len(want)]
    check(got == want, "metrics:\n got %s\nwant %s\n%s" % (got, want, out))
    # Known values, so the formula itself is pinned, not only its port to Python.
    check(want[0] == "100000 40.0% 15.0% 20.0% 25.0% control (pid 1, tid 1)", want[0])
    check(not re.search(r"^Event ", out, re.M), "event tables printed with --metrics")

    # A collection without the tma1 events, and --by caller.
    plain = os.path.join(args.workdir, "plain")
    run([args.synth, plain, "--event", "CPU_CLK_UNHALTED.REF_TSC:2200000",
         "--run", "0:1:1:0x1000:10:0"])
    _, err = run([args.acart, "report", plain, "--metrics"], expect=2)
    check("needs event CPU_CLK_UNHALTED.THREAD" in err, err)
    _, err = run([args.acart, "report", folder, "--metrics", "--by", "caller"], expect=2)
    check("--metrics" in err, err)


main(test)

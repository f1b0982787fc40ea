"""`acart collect` against a scripted SEP target on loopback that plays a whole collection
(handshake, data connections, every set-up request, START, STOP, the records, the
counts, TERMINATE) with CPU 1 sending no sample. A time-based target (its handshake's OS
version says "time-based") whose collection lasted long enough for 20 ticks has a CPU
whose sampling timer never fired: collect must fail (exit 5) and name the CPU, yet keep
the folder it wrote. It must succeed when the collection was too short for 20 ticks, when
the target samples PMU events (which may never occur), when CPU 1 dropped what it took,
and when every CPU sent samples.

A board with more than 20 CPUs overflows GET_SAMPLE_DROP_INFO (20 entries): acart's
GET_DROP_REASONS then carries each CPU's `delivered` (docs/sep-protocol.md 4.2), and every
CPU's count is checked through it.

The target is tests/acarttest/scripted_target.py, written from docs/sep-protocol.md."""

import json
import os
import shutil

from acarttest.scripted_target import OP_TERMINATE, PMU_BASED, TIME_BASED, Target
from acarttest.tooltest import check, main, run


def collect(args, name, version, samples, dropped=None, duration="0.5", event=None, expect=0,
            flood=False, delivered=None):
    t = Target(version, samples, dropped, flood, delivered)
    t.start()
    folder = os.path.join(args.workdir, name)
    cmd = [args.acart, "collect", "--target", "127.0.0.1:%d" % t.port, "--duration", duration,
           "-o", folder, "--timeout", "20"]
    if event:
        cmd += ["--event", event]
    out, err = run(cmd, expect=expect)
    t.join(30)
    check(not t.is_alive(), "%s: the scripted target is still waiting" % name)
    if flood:  # the host gave up on the target mid-session: nothing more to check of it
        return out, err
    check(t.error is None, "%s: the scripted target failed: %s" % (name, t.error))
    check(t.ops and t.ops[-1] == OP_TERMINATE, "%s: the session did not end with TERMINATE: %r"
          % (name, t.ops[-5:]))
    check(os.path.exists(os.path.join(folder, "session.json")),
          "%s: no session.json in %s" % (name, folder))
    return out, err


def test(args):
    # 0.5 s at 1 GHz every 2.2 M TSC ticks: about 227 ticks per CPU; CPU 1 took none.
    _, err = collect(args, "silent_time_based", TIME_BASED, [120, 0], expect=5)
    check("CPU 1 took no sample in" in err and "time-based sampling" in err and
          "timer never fired" in err, "silent CPU not named:\n%s" % err)
    check("CPU 0 took" not in err, "CPU 0 blamed:\n%s" % err)

    # Three CPUs, the last one silent: the check covers every CPU, not just CPU 1.
    _, err = collect(args, "silent_last_cpu", TIME_BASED, [50, 60, 0], expect=5)
    check("CPU 2 took no sample in" in err, "silent CPU 2 not named:\n%s" % err)

    # One tick per second of collection: too short to expect 20 ticks anywhere.
    collect(args, "short_time_based", TIME_BASED, [1, 0],
            event="CPU_CLK_UNHALTED.REF_TSC:sa=1000000000")
    # PMU events may never occur on a CPU.
    collect(args, "silent_pmu", PMU_BASED, [120, 0])
    # CPU 1's timer fired; its ring was full: a warning about drops, no failure.
    _, err = collect(args, "dropped_time_based", TIME_BASED, [120, 0], dropped=[0, 200])
    check("dropped 200 samples" in err, "no warning about the drops:\n%s" % err)
    # Every CPU sampled.
    out, _ = collect(args, "all_time_based", TIME_BASED, [120, 110])
    check("230 samples" in out, "summary: %s" % out)

    # 40 CPUs: GET_SAMPLE_DROP_INFO names the first 20, GET_DROP_REASONS all of them.
    many = [100 + i for i in range(40)]
    out, err = collect(args, "cpus_40", TIME_BASED, many, delivered=list(many))
    check("%d samples" % sum(many) in out, "summary: %s" % out)
    check("covers" not in err, "a CPU went unchecked:\n%s" % err)
    with open(os.path.join(args.workdir, "cpus_40", "session.json")) as f:
        samples = json.load(f)["samples"]
    check(samples["per_cpu"] == many, "per-CPU counts: %r" % samples.get("per_cpu"))
    # CPU 33 sent one record fewer than the target claims: named, though past the 20.
    claimed = list(many)
    claimed[33] += 1
    _, err = collect(args, "cpus_40_short", TIME_BASED, many, delivered=claimed, expect=5)
    check("data channel of CPU 33 was cut after 133 of 134 records" in err,
          "CPU 33's shortfall not named:\n%s" % err)
    # A silent CPU past the 20 is named too.
    quiet = list(many)
    quiet[37] = 0
    _, err = collect(args, "cpus_40_silent", TIME_BASED, quiet, delivered=list(quiet), expect=5)
    check("CPU 37 took no sample in" in err, "silent CPU 37 not named:\n%s" % err)

    # A target that goes on sending module records after STOP: the host gives up once it
    # has more than a target can hold (256 MiB that are not samples), never drains for ever.
    _, err = collect(args, "flood_after_stop", PMU_BASED, [10, 10], expect=5, flood=True)
    check("still sending: more than a target can hold" in err, "flood not refused:\n%s" % err)
    shutil.rmtree(os.path.join(args.workdir, "flood_after_stop"), ignore_errors=True)


if __name__ == "__main__":
    main(test)
